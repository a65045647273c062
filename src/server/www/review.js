/* review.js — the Review tab: a whole game reviewed by the engine (POST /api/reviews), followed
 * as it runs (the event stream, or polling), then shown as a win-probability graph with the
 * flagged turns, a list of turns, a summary per player and the board of any turn with the turn
 * played (orange) and the engine's choice (blue). */
'use strict';
(function (Z) {
  const R = (Z.Review = {});
  const LABELS = ['inaccuracy', 'mistake', 'blunder'];

  let rv = null;          // {id, data, running, stopped, es, sel}
  let board = null;
  let el = {};

  R.init = function () {
    const $ = (id) => document.getElementById(id);
    el = {
      root: $('panel-review'), form: $('rv-form'), text: $('rv-text'), file: $('rv-file'), rings: $('rv-rings'),
      budget: $('rv-budget'), stop: $('rv-stop'), progress: $('rv-progress'), fill: $('rv-progress-fill'),
      ptext: $('rv-progress-text'), summary: $('rv-summary'), status: $('rv-status'), svg: $('rv-board'),
      graph: $('rv-graph'), position: $('rv-position'), moves: $('rv-moves'),
    };
    board = new Z.Board(el.svg, {});
    el.form.addEventListener('submit', (ev) => { ev.preventDefault(); start(); });
    el.stop.addEventListener('click', stop);
    el.file.addEventListener('change', () => {
      const f = el.file.files && el.file.files[0];
      if (!f) return;
      const fr = new FileReader();
      fr.onload = () => { el.text.value = String(fr.result || ''); el.text.dispatchEvent(new Event('input')); };
      fr.onerror = () => Z.showError('Cannot read ' + f.name);
      fr.readAsText(f);
    });
    el.graph.addEventListener('click', onGraphClick);
    let resizeTimer = null;
    window.addEventListener('resize', () => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => { if (Z.activeTab === 'review') renderGraph(rv && rv.data && rv.data.review); }, 120);
    });
    document.addEventListener('keydown', (ev) => {
      if (Z.activeTab !== 'review' || !rv || !rv.data) return;
      const tag = (ev.target && ev.target.tagName) || '';
      if (/^(INPUT|TEXTAREA|SELECT)$/.test(tag) || (ev.target.closest && ev.target.closest('[role=tab]'))) return;
      const n = nturns();
      if (ev.key === 'ArrowLeft') select(Math.max(0, rv.sel - 1));
      else if (ev.key === 'ArrowRight') select(Math.min(n, rv.sel + 1));
      else if (ev.key === 'Home') select(0);
      else if (ev.key === 'End') select(n);
      else return;
      ev.preventDefault();
    });
    render();
  };

  R.current = () => rv;

  function playerNames(review) {
    const p = (review && review.players) || [];
    return [0, 1].map((i) => (p[i] && String(p[i]).trim()) || `Player ${i + 1}`);
  }

  function nturns() { return rv && rv.data && rv.data.review ? (rv.data.review.turns || []).length : 0; }

  /* ------------------------------------------------------------------ requests */
  async function start() {
    const text = el.text.value.trim();
    if (!text) { Z.showError('Paste a Boardspace SGF or turns in notation, or open a .sgf file.'); return; }
    const ms = Math.round(Number(el.budget.value));
    if (!(ms >= 1 && ms <= 10000)) { Z.showError('The budget is 1 to 10,000 ms per position.'); return; }
    const body = { time_ms: ms };
    if (text.startsWith('(')) body.sgf = text;
    else {
      body.moves = text.split(/[\n;]+/).map((s) => s.trim().replace(/^\d+[.)]\s*/, '')).filter(Boolean).join('; ');
      body.rings = Number(el.rings.value);
    }
    await closeCurrent(true);
    rv = { id: null, data: null, running: true, stopped: false, es: null, sel: 0, userSelected: false };
    const mine = rv;
    render();
    try {
      const data = await Z.api('POST', '/api/reviews', body);
      if (rv !== mine) return;
      mine.id = data.id;
      accept(mine, data);
      if (mine.running) follow(mine);
    } catch (e) {
      if (rv === mine) { mine.running = false; mine.failed = e.message; render(); }
      Z.showError('Review: ' + e.message);
    }
  }

  function accept(r, data) {
    if (!data) return;
    // a stream message may carry the whole GET answer or the review alone
    if (!data.review && data.turns && data.wp0) data = Object.assign({}, r.data || {}, { review: data, done: data.done, total: data.total });
    r.data = Object.assign({}, r.data || {}, data);
    if (data.error) r.error = data.error;
    r.running = data.running !== false && !data.error;
    render();
  }

  function follow(r) {
    let es;
    try { es = new EventSource(`/api/reviews/${encodeURIComponent(r.id)}/stream`); } catch (e) { poll(r); return; }
    r.es = es;
    es.onmessage = (ev) => {
      if (rv !== r) { es.close(); return; }
      try { const d = JSON.parse(ev.data); if (d && (d.review || d.turns || d.id)) accept(r, d); } catch (e) { /* a partial line: wait for the next */ }
    };
    es.addEventListener('end', async (ev) => {
      es.close(); r.es = null;
      if (rv !== r) return;
      if (ev.data) { try { const d = JSON.parse(ev.data); if (d && (d.review || d.turns)) accept(r, d); } catch (e) { /* ignore */ } }
      await finalFetch(r);
    });
    es.onerror = () => {
      es.close(); r.es = null;
      if (rv === r && r.running) poll(r);
    };
  }

  async function finalFetch(r) {
    try {
      const data = await Z.api('GET', `/api/reviews/${encodeURIComponent(r.id)}`);
      if (rv !== r) return;
      accept(r, data);
      if (data.running) { poll(r); return; }
    } catch (e) { if (rv === r) Z.showError('Review: ' + e.message); }
    if (rv === r) { r.running = false; render(); }
  }

  async function poll(r) {
    if (r.polling) return;
    r.polling = true;
    try {
      while (rv === r && r.running) {
        await new Promise((res) => setTimeout(res, 500));
        if (rv !== r || !r.running) break;
        try { accept(r, await Z.api('GET', `/api/reviews/${encodeURIComponent(r.id)}`)); }
        catch (e) { r.running = false; Z.showError('Review: ' + e.message); render(); }
      }
    } finally { r.polling = false; }
  }

  async function stop() {
    if (!rv || !rv.running || !rv.id) return;
    const r = rv;
    r.running = false; r.stopped = true;
    if (r.es) { r.es.close(); r.es = null; }
    render();
    try {
      // the last state first, then free it (DELETE stops the search)
      const data = await Z.api('GET', `/api/reviews/${encodeURIComponent(r.id)}`).catch(() => null);
      await Z.api('DELETE', `/api/reviews/${encodeURIComponent(r.id)}`);
      if (data && rv === r) { accept(r, data); r.running = false; r.stopped = true; render(); }
    } catch (e) { Z.showError('Stop: ' + e.message); }
  }

  async function closeCurrent(free) {
    const r = rv;
    if (!r) return;
    if (r.es) { r.es.close(); r.es = null; }
    if (free && r.running && r.id) { r.running = false; try { await Z.api('DELETE', `/api/reviews/${encodeURIComponent(r.id)}`); } catch (e) { /* gone */ } }
    r.running = false;
  }

  /* ------------------------------------------------------------------ selection */
  function select(t) {
    if (!rv || !rv.data) return;
    rv.sel = Math.max(0, Math.min(nturns(), t));
    rv.userSelected = true;
    render();
    const li = el.moves.querySelector(`li[data-index="${rv.sel}"]`);
    if (li && li.scrollIntoView) li.scrollIntoView({ block: 'nearest' });
  }
  R.select = select;

  function onGraphClick(ev) {
    const n = nturns();
    if (!n) return;
    const g = el.graph._geom;
    if (!g) return;
    const pt = el.graph.createSVGPoint();
    pt.x = ev.clientX; pt.y = ev.clientY;
    const m = el.graph.getScreenCTM();
    if (!m) return;
    const p = pt.matrixTransform(m.inverse());
    const t = Math.floor(((p.x - g.x0) / g.w) * n);
    select(Math.max(0, Math.min(n - 1, t)));
  }

  /* ------------------------------------------------------------------ drawing */
  function render() {
    const r = rv;
    const data = r && r.data;
    const review = data && data.review;
    let state = 'none';
    if (r) state = r.failed ? 'error' : r.error ? 'error' : r.running ? 'running' : r.stopped ? 'stopped' : data ? 'done' : 'starting';
    el.root.dataset.state = state;
    el.root.dataset.reviewId = (r && r.id) || '';
    el.status.dataset.state = state;
    el.stop.disabled = !(r && r.running && r.id);

    // progress
    const done = data ? data.done || 0 : 0, total = data ? data.total || 0 : 0;
    el.progress.hidden = !r || !!r.failed;
    el.fill.style.width = total ? `${(100 * done / total).toFixed(1)}%` : '0%';
    el.progress.dataset.done = done; el.progress.dataset.total = total;
    el.ptext.textContent = !r ? '' : !data ? 'Starting…' : `${done} / ${total} positions` + (r.running ? '' : r.stopped ? ' · stopped' : ' · done');
    el.progress.classList.toggle('running', !!(r && r.running));

    const n = review ? (review.turns || []).length : 0;
    if (!r) el.status.textContent = 'Paste or open a game, then press Review.';
    else if (r.failed) el.status.textContent = 'The review could not start (see the message).';
    else if (r.error) el.status.textContent = 'The review stopped with an error: ' + r.error;
    else if (!data) el.status.textContent = 'Starting the review…';
    else {
      const names = playerNames(review);
      const head = `${names[0]} vs ${names[1]} · ${data.review ? data.review.board || '' : ''} rings · ${n} turns`;
      el.status.textContent = r.running ? `Reviewing… ${head}` : `${head}` + (r.stopped ? ' (stopped early)' : '');
    }

    renderGraph(review);
    renderMoves(review);
    renderSummary(review);
    renderPosition(data, review);
  }
  R.render = render;

  const fmtLoss = (l) => (typeof l === 'number' ? '−' + (100 * l).toFixed(1) + '%' : '');

  function renderGraph(review) {
    const svg = el.graph;
    Z.clear(svg);
    const W = Math.max(320, Math.min(1000, Math.round(svg.clientWidth || 640))), H = 170;
    const g = { x0: 38, y0: 12, w: W - 38 - 12, h: H - 12 - 26 };
    svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    svg._geom = g;
    const S = Z.s;
    const wp0 = review ? review.wp0 || [] : [];
    const turns = review ? review.turns || [] : [];
    const n = turns.length;
    svg.dataset.turns = String(n);
    const X = (i) => g.x0 + (n ? (i / n) * g.w : 0);
    const Y = (p) => g.y0 + (1 - p) * g.h;

    // frame, grid, labels
    svg.append(S('rect', { x: g.x0, y: g.y0, width: g.w, height: g.h, class: 'g-frame' }));
    for (const p of [0, 0.25, 0.5, 0.75, 1]) {
      svg.append(S('line', { x1: g.x0, x2: g.x0 + g.w, y1: Y(p), y2: Y(p), class: p === 0.5 ? 'g-mid' : 'g-grid' }));
      svg.append(S('text', { x: g.x0 - 6, y: Y(p), class: 'g-axis', 'text-anchor': 'end', 'dominant-baseline': 'middle' }, Math.round(p * 100) + '%'));
    }
    if (!n) {
      svg.append(S('text', { x: g.x0 + g.w / 2, y: g.y0 + g.h / 2 - 14, class: 'g-empty', 'text-anchor': 'middle' }, 'The win probability of the first player, turn by turn, shows here.'));
      return;
    }
    const step = n <= 12 ? 1 : n <= 30 ? 5 : n <= 80 ? 10 : 20;
    for (let i = step; i <= n; i += step) {
      svg.append(S('text', { x: X(i), y: g.y0 + g.h + 15, class: 'g-axis', 'text-anchor': 'middle' }, String(i)));
    }
    svg.append(S('text', { x: g.x0, y: g.y0 + g.h + 15, class: 'g-axis', 'text-anchor': 'middle' }, '0'));

    // selection band: the selected turn spans [sel, sel + 1]
    if (rv && rv.sel < n) {
      svg.append(S('rect', { x: X(rv.sel), y: g.y0, width: Math.max(2, X(rv.sel + 1) - X(rv.sel)), height: g.h, class: 'g-sel', 'data-testid': 'graph-selection', 'data-turn': rv.sel + 1 }));
    } else if (rv) {
      svg.append(S('line', { x1: X(n), x2: X(n), y1: g.y0, y2: g.y0 + g.h, class: 'g-sel-line' }));
    }

    // the area of player 0's win probability and its line (broken where a value is unknown)
    const runs = [];
    let cur = [];
    for (let i = 0; i <= n; i++) {
      const p = wp0[i];
      if (typeof p === 'number') cur.push([X(i), Y(p)]);
      else if (cur.length) { runs.push(cur); cur = []; }
    }
    if (cur.length) runs.push(cur);
    for (const run of runs) {
      if (run.length < 2) continue;
      const pts = run.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ');
      const base = Y(0.5).toFixed(1);
      svg.append(S('polygon', { points: `${run[0][0].toFixed(1)},${base} ${pts} ${run[run.length - 1][0].toFixed(1)},${base}`, class: 'g-area' }));
      svg.append(S('polyline', { points: pts, class: 'g-line', 'data-testid': 'graph-line' }));
    }

    // one point per turn (after the turn), coloured dots on the flagged ones
    const names = playerNames(review);
    for (let i = 0; i < n; i++) {
      const t = turns[i];
      const p = wp0[i + 1];
      const y = typeof p === 'number' ? Y(p) : Y(0.5);
      const tip = `Turn ${i + 1} · ${names[t.player]}: ${t.played}` + (t.label ? ` · ${t.label} ${fmtLoss(t.loss)}` : '') + (typeof p === 'number' ? ` · ${names[0]} ${Z.pct(p)}` : '');
      const pt = S('circle', { cx: X(i + 1), cy: y, r: 2.2, class: 'g-point' + (typeof p === 'number' ? '' : ' na'), 'data-testid': 'graph-point', 'data-turn': i + 1 }, S('title', null, tip));
      svg.append(pt);
    }
    for (let i = 0; i < n; i++) {
      const t = turns[i];
      if (!t.label) continue;
      const p = wp0[i + 1];
      svg.append(S('circle', { cx: X(i + 1), cy: typeof p === 'number' ? Y(p) : Y(0.5), r: 5, class: 'g-flag lbl-' + t.label, 'data-testid': 'graph-flag', 'data-turn': i + 1, 'data-label': t.label },
        S('title', null, `Turn ${i + 1} · ${names[t.player]}: ${t.played} · ${t.label} ${fmtLoss(t.loss)} · engine: ${t.best}`)));
    }
    svg.append(S('text', { x: g.x0 + 6, y: g.y0 + 11, class: 'g-who' }, `▲ ${names[0]}`));
    svg.append(S('text', { x: g.x0 + 6, y: g.y0 + g.h - 5, class: 'g-who' }, `▼ ${names[1]}`));
  }

  function renderMoves(review) {
    const ol = el.moves;
    Z.clear(ol);
    const turns = review ? review.turns || [] : [];
    const names = playerNames(review);
    if (!turns.length) { ol.append(Z.h('li', { class: 'muted empty' }, 'No turns yet.')); return; }
    turns.forEach((t, i) => {
      const flagged = !!t.label;
      const li = Z.h('li', {
        class: 'rv-turn' + (flagged ? ' flagged lbl-' + t.label : '') + (rv.sel === i ? ' selected' : ''),
        'data-testid': flagged ? 'flagged-move' : 'review-move', 'data-turn': i + 1, 'data-index': i, 'data-label': t.label || null,
        tabindex: 0, role: 'button', 'aria-label': `Turn ${i + 1}, ${names[t.player]}: ${t.played}` + (flagged ? `, ${t.label}` : ''),
        onclick: () => select(i), onkeydown: (ev) => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); select(i); } },
      },
        Z.h('span', { class: 'mv-n' }, String(i + 1)),
        Z.h('span', { class: 'seat-dot seat-' + t.player, title: names[t.player] }),
        Z.h('code', { class: 'mv-text' }, t.played),
        flagged ? Z.h('span', { class: 'badge lbl-' + t.label }, t.label)
          : t.better ? Z.h('span', { class: 'badge better-badge', 'data-testid': 'better-move', 'data-turn': i + 1, title: 'Better than the engine\'s choice: its search saw this turn\'s worth only once it was played' }, '!')
          : (t.is_best ? Z.h('span', { class: 'badge best-badge', title: 'The engine\'s choice' }, '✓') : null),
        flagged ? Z.h('span', { class: 'loss', title: t.value_from === 'reply played' ? 'Seen in hindsight: the reply played was better than the engine had thought' : null }, fmtLoss(t.loss)) : null,
        flagged && t.best ? Z.h('span', { class: 'best-alt' }, 'best ', Z.h('code', null, t.best)) : null);
      ol.append(li);
    });
    const fin = Z.h('li', { class: 'rv-turn final' + (rv.sel === turns.length ? ' selected' : ''), 'data-index': turns.length, tabindex: 0, role: 'button', onclick: () => select(turns.length) },
      Z.h('span', { class: 'mv-n' }, ''), Z.h('span', { class: 'muted' }, 'Final position'));
    ol.append(fin);
  }

  function renderSummary(review) {
    const box = el.summary;
    Z.clear(box);
    if (!review || !review.summary) { box.append(Z.h('p', { class: 'muted' }, 'No review yet.')); return; }
    const names = playerNames(review);
    const tb = Z.h('table', { class: 'summary', 'data-testid': 'rv-summary-table' });
    tb.append(Z.h('thead', null, Z.h('tr', null, Z.h('th', null, ''),
      Z.h('th', { title: 'inaccuracies' }, Z.h('i', { class: 'dot lbl-inaccuracy' })),
      Z.h('th', { title: 'mistakes' }, Z.h('i', { class: 'dot lbl-mistake' })),
      Z.h('th', { title: 'blunders' }, Z.h('i', { class: 'dot lbl-blunder' })),
      Z.h('th', { title: 'mean loss of win probability per turn' }, 'avg loss'))));
    const body = Z.h('tbody');
    for (const s of review.summary) {
      body.append(Z.h('tr', { 'data-testid': 'rv-summary-' + s.player },
        Z.h('th', null, Z.h('span', { class: 'seat-dot seat-' + s.player }), ' ', names[s.player]),
        Z.h('td', null, String(s.inaccuracy || 0)), Z.h('td', null, String(s.mistake || 0)), Z.h('td', null, String(s.blunder || 0)),
        Z.h('td', null, typeof s.mean_loss === 'number' ? (100 * s.mean_loss).toFixed(1) + '%' : '—')));
    }
    tb.append(body);
    box.append(tb);
    box.append(Z.h('div', { class: 'summary-legend' },
      ...LABELS.map((l) => Z.h('span', null, Z.h('i', { class: 'dot lbl-' + l }), l))));
    if (review.budget) {
      const b = review.budget;
      box.append(Z.h('p', { class: 'muted small' }, `${b.time_ms ? b.time_ms + ' ms' : b.sims + ' simulations'} per position; a loss of ${(review.thresholds || [0.1, 0.2, 0.3]).map((x) => Math.round(x * 100) + '%').join(' / ')} of win probability is an inaccuracy / mistake / blunder.`));
    }
  }

  function renderPosition(data, review) {
    const box = el.position;
    Z.clear(box);
    if (!data || !review) {
      box.append(Z.h('p', { class: 'muted' }, '—'));
      board.setCells([]);
      board.render({ placeholder: rv && !rv.failed ? 'Setting up the review…' : 'The reviewed game shows here' });
      return;
    }
    const names = playerNames(review);
    const turns = review.turns || [];
    const t = rv.sel;
    const pos = (data.positions || [])[t];
    board.setCells(data.cells || []);
    const view = { rings: new Set(pos ? pos.rings_left : []), marbles: pos ? pos.marbles : {}, marks: [] };
    const turn = turns[t];
    if (turn) {
      view.marks.push({ kind: 'played', move: Z.parseMove(turn.played) });
      if (!turn.is_best && turn.best) view.marks.push({ kind: 'best', move: Z.parseMove(turn.best) });
    }
    board.render(view);
    el.svg.dataset.turn = String(t);

    if (turn) {
      box.append(Z.h('div', { class: 'pos-head' }, Z.h('b', null, `Turn ${t + 1}`), ' · ', Z.h('span', { class: 'seat-dot seat-' + turn.player }), ' ', Z.h('span', { class: 'pos-name', title: names[turn.player] }, names[turn.player])));
      const dl = Z.h('dl', { class: 'facts' });
      dl.append(Z.h('dt', null, Z.h('i', { class: 'sw sw-played' }), 'Played'), Z.h('dd', null, Z.h('code', { 'data-testid': 'rv-played' }, turn.played),
        turn.label ? Z.h('span', { class: 'badge lbl-' + turn.label }, turn.label) : null));
      dl.append(Z.h('dt', null, Z.h('i', { class: 'sw sw-best' }), 'Engine'), Z.h('dd', null, Z.h('code', { 'data-testid': 'rv-best' }, turn.best || '—'),
        turn.is_best ? Z.h('span', { class: 'muted' }, ' (the same)') : null));
      dl.append(Z.h('dt', null, 'Win before'), Z.h('dd', null, Z.pct(turn.wp_before, 1)));
      dl.append(Z.h('dt', null, 'Loss'), Z.h('dd', null, typeof turn.loss === 'number' ? (100 * turn.loss).toFixed(1) + '%' : '—', turn.forced ? Z.h('span', { class: 'muted' }, ' (forced)') : null));
      box.append(dl);
    } else {
      box.append(Z.h('div', { class: 'pos-head' }, Z.h('b', null, 'Final position'), ` after ${turns.length} turns`));
    }
    if (pos) {
      const caps = Z.h('div', { class: 'pos-caps' });
      for (let p = 0; p < 2; p++) {
        const row = Z.h('div', { class: 'pos-cap-row' }, Z.h('span', { class: 'pos-cap-name' }, Z.h('span', { class: 'seat-dot seat-' + p }), ' ', names[p]));
        const c = Z.h('div', { class: 'captures small' });
        Z.marbleCounts(c, pos.captures ? pos.captures[p] : [0, 0, 0], { size: 18 });
        row.append(c);
        caps.append(row);
      }
      const prow = Z.h('div', { class: 'pos-cap-row' }, Z.h('span', { class: 'pos-cap-name muted' }, 'Pool'));
      const pc = Z.h('div', { class: 'captures small' });
      Z.marbleCounts(pc, pos.pool || [0, 0, 0], { size: 18 });
      prow.append(pc);
      caps.append(prow);
      box.append(caps);
    }
  }

  R.labels = LABELS;
})(window.Z);
