/* common.js — shared helpers of the Zèrtz page: the API client, error messages, DOM helpers and
 * the parser of moves in official notation.  Plain script (no modules): everything hangs on
 * window.Z. */
'use strict';
window.Z = window.Z || {};

(function (Z) {
  const SVGNS = 'http://www.w3.org/2000/svg';
  Z.COLORS = ['W', 'G', 'B'];
  Z.COLOR_NAMES = { W: 'white', G: 'grey', B: 'black' };

  /* ---------------------------------------------------------------- DOM helpers */
  /* h('div', {class: 'x', 'data-testid': 'y', onclick: fn}, child, 'text', ...) */
  Z.h = function (tag, attrs, ...children) {
    const e = document.createElement(tag);
    setAttrs(e, attrs);
    for (const c of children.flat()) if (c != null && c !== false) e.append(c instanceof Node ? c : String(c));
    return e;
  };
  Z.s = function (tag, attrs, ...children) {
    const e = document.createElementNS(SVGNS, tag);
    setAttrs(e, attrs);
    for (const c of children.flat()) if (c != null && c !== false) e.append(c instanceof Node ? c : String(c));
    return e;
  };
  function setAttrs(e, attrs) {
    if (!attrs) return;
    for (const [k, v] of Object.entries(attrs)) {
      if (v == null || v === false) continue;
      if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
      else if (k === 'text') e.textContent = v;
      else e.setAttribute(k, v === true ? '' : String(v));
    }
  }
  Z.$ = (sel, root) => (root || document).querySelector(sel);
  Z.$$ = (sel, root) => Array.from((root || document).querySelectorAll(sel));
  Z.clear = (e) => { while (e.firstChild) e.removeChild(e.firstChild); return e; };

  Z.pct = (p, digits) => (p == null || Number.isNaN(p) ? '—' : (100 * p).toFixed(digits == null ? 0 : digits) + '%');

  /* ---------------------------------------------------------------- errors */
  Z.showError = function (msg) {
    const box = document.getElementById('errors');
    if (!box) return;
    const text = String(msg || 'Something went wrong');
    // the same message twice in a row: show it once
    const last = box.lastElementChild;
    if (last && last.dataset.msg === text) { last.classList.remove('pulse'); void last.offsetWidth; last.classList.add('pulse'); return; }
    const t = Z.h('div', { class: 'error', role: 'alert', 'data-testid': 'error', 'data-msg': text },
      Z.h('span', { class: 'error-icon', 'aria-hidden': 'true' }, '!'),
      Z.h('span', { class: 'error-text' }, text),
      Z.h('button', { class: 'error-close', 'data-testid': 'error-dismiss', 'aria-label': 'Dismiss', title: 'Dismiss', onclick: () => t.remove() }, '×'));
    box.append(t);
    while (box.children.length > 4) box.firstElementChild.remove();
    setTimeout(() => { if (t.isConnected) { t.classList.add('fade'); setTimeout(() => t.remove(), 400); } }, 15000);
  };

  /* ---------------------------------------------------------------- the API */
  Z.api = async function (method, path, body) {
    const opt = { method, headers: {} };
    if (body !== undefined) { opt.headers['Content-Type'] = 'application/json'; opt.body = JSON.stringify(body); }
    let r;
    try { r = await fetch(path, opt); } catch (e) {
      const err = new Error('The server cannot be reached (' + e.message + ')'); err.status = 0; throw err;
    }
    const text = await r.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
    if (!r.ok) {
      const why = data && data.error ? data.error : (text && text.length < 200 ? text : r.statusText);
      const err = new Error(`${why} (${r.status})`);
      err.status = r.status; err.data = data; throw err;
    }
    if (data === null && text) { const err = new Error('The server answered something that is not JSON'); err.status = r.status; throw err; }
    return data;
  };

  /* ---------------------------------------------------------------- notation */
  const CELL = '[a-z]\\d{1,2}';
  const RE_PLACE = new RegExp(`^([WGB])(${CELL})(?:,(${CELL}))?(?:\\s*x\\s*((?:[WGB]${CELL})+))?$`);
  const RE_JUMP = new RegExp(`^x\\s*(${CELL})((?:[WGB]${CELL})+)(?:\\s*x\\s*((?:[WGB]${CELL})+))?$`);
  const RE_PAIRS = new RegExp(`([WGB])(${CELL})`, 'g');

  function pairs(s) {
    const out = [];
    if (!s) return out;
    for (const m of s.matchAll(RE_PAIRS)) out.push({ color: m[1], cell: m[2] });
    return out;
  }

  /* One move or a whole turn in official notation:
   *   {type: 'place', color, cell, remove (or null), isolated: [{color, cell}]}
   *   {type: 'jump', path: [from, to1, to2...], over: [colour...], isolated: []}
   * null when the text is not understood. */
  Z.parseMove = function (text) {
    if (typeof text !== 'string') return null;
    const t = text.trim();
    let m = RE_PLACE.exec(t);
    if (m) return { type: 'place', color: m[1], cell: m[2], remove: m[3] || null, isolated: pairs(m[4]), text };
    m = RE_JUMP.exec(t);
    if (m) {
      const ps = pairs(m[2]);
      return { type: 'jump', path: [m[1], ...ps.map((p) => p.cell)], over: ps.map((p) => p.color), isolated: pairs(m[3]), text };
    }
    return null;
  };

  /* The cell a move "goes to": a placement's cell, a jump's (last) landing cell. */
  Z.moveTarget = function (mv) {
    if (!mv) return null;
    return mv.type === 'place' ? mv.cell : mv.path[mv.path.length - 1];
  };

  /* ---------------------------------------------------------------- small marbles (captures, pool) */
  /* A row of marble counters: [{color, n}] drawn as one marble with the count. */
  Z.marbleCounts = function (container, counts, opts) {
    Z.clear(container);
    const o = opts || {};
    Z.COLORS.forEach((c, i) => {
      const n = counts ? counts[i] : 0;
      const item = Z.h('span', { class: 'mcount' + (n ? '' : ' zero'), 'data-color': c, 'data-count': n, title: `${n} ${Z.COLOR_NAMES[c]}` });
      item.append(Z.marbleIcon(c, o.size || 22), Z.h('span', { class: 'mcount-n' }, String(n)));
      container.append(item);
    });
  };

  Z.marbleIcon = function (color, size) {
    const sz = size || 22;
    const svg = Z.s('svg', { class: 'marble-icon', width: sz, height: sz, viewBox: '-12 -12 24 24', 'aria-hidden': 'true' });
    svg.append(Z.s('circle', { r: 10, class: 'marble marble-' + color }));
    svg.append(Z.s('circle', { r: 3.2, cx: -3.6, cy: -3.8, class: 'marble-shine' }));
    return svg;
  };
})(window.Z);
