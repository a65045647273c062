/* play.js — the Play tab: a game against the engine (or between two people at one screen).
 *
 * Moves are made by clicking, from the `legal` list of the game's state: a placement is a colour,
 * then a ring, then the ring to remove (sent at once when that placement removes none); a capture
 * is the jumping marble, then its landing ring (one jump per move; a chain goes on with the same
 * marble).  Exactly one string of `legal` is sent.  The panel's data-phase (idle / human /
 * engine / busy / wait / over) and data-stage (none / colour / ring / remove / jump-from /
 * jump-to) say what the page waits for. */
'use strict';
(function (Z) {
  const P = (Z.Play = {});
  const STORE_KEY = 'zertz.play.game';

  let game = null;                       // the last state from the server
  let sel = { color: null, cell: null, from: null };
  let busy = false;                      // a request that changes the game is in flight
  let engineBusy = false;                // POST .../engine in flight
  let hint = null;                       // {id, ply, running, snap, es, poll}
  let board = null;
  let resignArmed = null;
  let el = {};

  /* ------------------------------------------------------------------ setup */
  P.init = function () {
    const $ = (id) => document.getElementById(id);
    el = {
      root: $('panel-play'), form: $('ng-form'), rings: $('ng-rings'), seat: $('ng-seat'), level: $('ng-level'),
      timeRow: $('ng-time-row'), time: $('ng-time'), hcapOn: $('ng-hcap-on'), hcapRow: $('ng-hcap-row'), hcap: $('ng-handicap'),
      banner: $('result-banner'), status: $('status-line'), thinking: $('thinking'), svg: $('play-board'),
      picker: $('picker'), pickerLabel: $('picker-label'), cancel: $('cancel-sel'), note: $('last-note'),
      undo: $('undo'), resign: $('resign'), flip: $('flip'), sgf: $('download-sgf'),
      hint: $('hint'), hintStop: $('hint-stop'), hintBody: $('hint-body'), moves: $('move-list'), pool: $('pool'),
    };
    board = new Z.Board(el.svg, { onClick: onBoardClick });

    el.level.addEventListener('change', () => { el.timeRow.hidden = el.level.value !== 'time'; });
    el.hcapOn.addEventListener('change', () => {
      el.hcapRow.hidden = !el.hcapOn.checked;
      if (el.hcapOn.checked && el.rings.value === '37') el.rings.value = '48';   // Zèrtz+H is played on 48 rings
    });
    el.form.addEventListener('submit', (ev) => { ev.preventDefault(); newGame(); });
    for (const b of Z.$$('.pick', el.picker)) b.addEventListener('click', () => onPick(b.dataset.color));
    el.cancel.addEventListener('click', () => { sel = { color: null, cell: null, from: null }; update(); });
    el.undo.addEventListener('click', undo);
    $('new-game-jump').addEventListener('click', () => {
      const card = el.form.closest('.card');
      card.scrollIntoView({ behavior: 'smooth', block: 'nearest' });
      card.classList.remove('flash'); void card.offsetWidth; card.classList.add('flash');
      el.rings.focus({ preventScroll: true });
    });
    el.resign.addEventListener('click', resign);
    el.flip.addEventListener('click', () => {
      board.setFlipped(!board.flipped);
      el.flip.setAttribute('aria-pressed', board.flipped ? 'true' : 'false');
    });
    el.hint.addEventListener('click', startHint);
    el.hintStop.addEventListener('click', stopHint);
    el.sgf.addEventListener('click', (ev) => { if (!game) ev.preventDefault(); });
    document.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape' && Z.activeTab === 'play' && (sel.color || sel.cell || sel.from)) {
        sel = { color: null, cell: null, from: null }; update();
      }
    });

    // a game of this browser that the server still holds: take it up again
    const saved = localStorage.getItem(STORE_KEY);
    if (saved) {
      Z.api('GET', `/api/games/${encodeURIComponent(saved)}`).then((g) => {
        if (game) return;
        setGame(g);
        update();
        if (g.thinking) waitWhileThinking(); else maybeEngine();
      }).catch(() => localStorage.removeItem(STORE_KEY));
    }
    update();
  };

  P.game = () => game;

  /* ------------------------------------------------------------------ the game state */
  function setGame(g) {
    const changed = !game || game.id !== g.id || game.ply !== g.ply || (game.turns || []).length !== (g.turns || []).length;
    game = g;
    if (changed) sel = { color: null, cell: null, from: null };
    board.setCells(g.cells);
    try { localStorage.setItem(STORE_KEY, g.id); } catch (e) { /* private mode */ }
  }

  function isHumanTurn(g) {
    return !!g && !g.over && !g.thinking && (g.human == null || g.to_move === g.human);
  }

  function parseLegal(g) {
    const place = [], jump = [];
    for (const s of (g && g.legal) || []) {
      const m = Z.parseMove(s);
      if (!m) { console.warn('move not understood:', s); continue; }
      m.text = s;
      if (m.type === 'place') place.push(m);
      else if (m.path.length === 2) jump.push(m);
    }
    return { place, jump };
  }

  /* What the page waits for now, from the legal moves and the clicks so far. */
  function stage() {
    if (!isHumanTurn(game) || busy || engineBusy) return { stage: 'none' };
    const { place, jump } = parseLegal(game);
    if (jump.length) {
      const froms = [...new Set(jump.map((m) => m.path[0]))];
      let from = sel.from && froms.includes(sel.from) ? sel.from : null;
      if (!from && game.chain && froms.includes(game.chain)) from = game.chain;
      if (!from && froms.length === 1) from = froms[0];
      if (!from) return { stage: 'jump-from', froms };
      return { stage: 'jump-to', from, froms, lands: jump.filter((m) => m.path[0] === from) };
    }
    if (place.length) {
      const colors = Z.COLORS.filter((c) => place.some((m) => m.color === c));
      const color = sel.color && colors.includes(sel.color) ? sel.color : colors.length === 1 ? colors[0] : null;
      if (!color) return { stage: 'colour', colors };
      const forColor = place.filter((m) => m.color === color);
      const cells = [...new Set(forColor.map((m) => m.cell))];
      if (sel.cell && cells.includes(sel.cell)) {
        const removes = forColor.filter((m) => m.cell === sel.cell && m.remove);
        if (removes.length) return { stage: 'remove', colors, color, cell: sel.cell, removes };
      }
      return { stage: 'ring', colors, color, cells, forColor };
    }
    return { stage: 'none' };
  }

  /* ------------------------------------------------------------------ clicks */
  function onPick(color) {
    const st = stage();
    if (!st.colors || !st.colors.includes(color)) return;
    sel = { color: sel.color === color && st.colors.length > 1 ? null : color, cell: null, from: null };
    update();
  }

  function onBoardClick(cell, what) {
    const st = stage();
    if (st.stage === 'jump-from' || st.stage === 'jump-to') {
      if (what === 'marble' && st.froms.includes(cell)) {
        sel = { color: null, cell: null, from: sel.from === cell && !game.chain && st.froms.length > 1 ? null : cell };
        update();
        return;
      }
      if (st.stage === 'jump-to' && what === 'ring') {
        const m = st.lands.find((x) => x.path[1] === cell);
        if (m) sendMove(m.text);
      }
      return;
    }
    if (what !== 'ring') return;
    if (st.stage === 'ring') {
      const ms = st.forColor.filter((m) => m.cell === cell);
      if (!ms.length) return;
      if (!ms.some((m) => m.remove)) { sendMove(ms[0].text); return; }   // no ring can be removed: Wd4
      sel = { color: st.color, cell, from: null };
      update();
      return;
    }
    if (st.stage === 'remove') {
      const m = st.removes.find((x) => x.remove === cell);
      if (m) sendMove(m.text);
    }
  }

  /* ------------------------------------------------------------------ requests */
  async function newGame() {
    const body = { rings: Number(el.rings.value) };
    const seat = el.seat.value;
    body.human = seat === 'both' ? null : Number(seat);
    if (el.level.value === 'time') {
      const ms = Math.round(Number(el.time.value));
      if (!(ms > 0)) { Z.showError('Give the engine a time per move in milliseconds'); return; }
      body.time_ms = ms;
    } else body.level = el.level.value;
    if (el.hcapOn.checked) {
      const h = el.hcap.value.trim();
      if (!/^[01]:\d+,\d+,\d+$/.test(h)) { Z.showError('Handicap: write it as P:W,G,B, e.g. 1:1,1,1'); return; }
      body.handicap = h;
    }
    await clearHint();
    busy = true; update();
    try {
      const g = await Z.api('POST', '/api/games', body);
      game = null;
      setGame(g);
      el.note.textContent = '';
    } catch (e) { Z.showError('New game: ' + e.message); }
    finally { busy = false; }
    update();
    maybeEngine();
  }

  async function sendMove(text) {
    if (!game || busy) return;
    const id = game.id;
    await clearHint();
    sel = { color: null, cell: null, from: null };
    busy = true; update();
    try {
      setGame(await Z.api('POST', `/api/games/${id}/move`, { move: text }));
    } catch (e) {
      Z.showError(`Move ${text}: ${e.message}`);
      await refresh();
    } finally { busy = false; }
    update();
    maybeEngine();
  }

  async function refresh() {
    if (!game) return;
    try { setGame(await Z.api('GET', `/api/games/${game.id}`)); }
    catch (e) {
      if (e.status === 404) { Z.showError('The server no longer holds this game (idle too long?): start a new one.'); game = null; localStorage.removeItem(STORE_KEY); }
    }
  }

  /* The engine's turn: ask it to play (the whole turn, chains included). */
  async function maybeEngine() {
    const g = game;
    if (!g || g.over || g.human == null || g.to_move === g.human || engineBusy) return;
    if (g.thinking) { waitWhileThinking(); return; }
    engineBusy = true; update();
    try {
      const r = await Z.api('POST', `/api/games/${g.id}/engine`, {});
      if (game && game.id === r.id) setGame(r);
    } catch (e) {
      if (e.status === 409 && game && !game.over) { engineBusy = false; await waitWhileThinking(); return; }
      Z.showError('Engine: ' + e.message);
      await refresh();
    } finally { engineBusy = false; }
    update();
    if (game && game.id !== g.id) maybeEngine();     // a new game started meanwhile
  }
  P.engineMove = maybeEngine;

  async function waitWhileThinking() {
    if (!game) return;
    const id = game.id;
    engineBusy = true; update();
    try {
      for (let i = 0; i < 600; i++) {
        await new Promise((r) => setTimeout(r, 300));
        if (!game || game.id !== id) return;
        const g = await Z.api('GET', `/api/games/${id}`);
        setGame(g);
        if (!g.thinking) break;
      }
    } catch (e) { Z.showError(e.message); }
    finally { engineBusy = false; update(); }
  }

  function undoCount(g) {
    if (!g) return 0;
    // after a resignation the first turn undone is the resignation itself (the server's undo)
    if (g.over && g.end === 'resign') return 1;
    if (!(g.turns || []).length) return 0;
    if (g.human == null) return 1;
    if (g.chain && g.to_move === g.human) return 1;               // the person's unfinished capture
    const t = g.turns;
    if (t[t.length - 1].player === g.human) return 1;
    // the engine played last: take back its turn and the person's before it
    return t.length >= 2 ? 2 : 0;
  }

  async function undo() {
    const n = undoCount(game);
    if (!n || busy || engineBusy) return;
    await clearHint();
    busy = true; update();
    try {
      setGame(await Z.api('POST', `/api/games/${game.id}/undo`, { turns: n }));
      el.note.textContent = '';
    } catch (e) { Z.showError('Undo: ' + e.message); await refresh(); }
    finally { busy = false; }
    update();
    maybeEngine();
  }

  async function resign() {
    if (!game || game.over || busy) return;
    if (!resignArmed) {
      el.resign.textContent = 'Confirm resign';
      el.resign.classList.add('danger');
      resignArmed = setTimeout(() => { resignArmed = null; el.resign.textContent = 'Resign'; el.resign.classList.remove('danger'); }, 3000);
      return;
    }
    clearTimeout(resignArmed); resignArmed = null;
    el.resign.textContent = 'Resign'; el.resign.classList.remove('danger');
    await clearHint();
    busy = true; update();
    try { setGame(await Z.api('POST', `/api/games/${game.id}/resign`)); }
    catch (e) { Z.showError('Resign: ' + e.message); await refresh(); }
    finally { busy = false; }
    update();
  }

  /* ------------------------------------------------------------------ hint */
  function hintCurrent(h) { return h && hint === h && game && game.id === h.id && game.ply === h.ply; }

  async function startHint() {
    if (!game || game.over) return;
    await clearHint();
    const h = { id: game.id, ply: game.ply, running: true, snap: null, es: null, poll: null };
    hint = h;
    update();
    try {
      const snap = await Z.api('POST', `/api/games/${h.id}/think`, { time_ms: 10000 });
      if (!hintCurrent(h)) return;
      h.snap = snap;
      h.running = snap.running !== false;
      update();
      if (!h.running) return;
      const es = new EventSource(`/api/games/${h.id}/think/stream`);
      h.es = es;
      es.onmessage = (ev) => {
        if (!hintCurrent(h)) { es.close(); return; }
        try { const s = JSON.parse(ev.data); if (!s || typeof s.sims !== 'number') return; h.snap = s; } catch (e) { return; }
        if (h.snap.running === false) h.running = false;
        update();
      };
      es.addEventListener('end', (ev) => {
        es.close(); h.es = null;
        if (!hintCurrent(h)) return;
        if (ev.data) {
          try { const s = JSON.parse(ev.data); if (s && typeof s.sims === 'number') h.snap = s; } catch (e) { /* keep the last */ }
        }
        h.running = false;
        update();
      });
      es.onerror = () => {
        es.close(); h.es = null;
        if (hintCurrent(h) && h.running) pollHint(h);
      };
    } catch (e) {
      if (hint === h) { hint = null; update(); }
      Z.showError('Hint: ' + e.message);
    }
  }

  async function pollHint(h) {
    while (hintCurrent(h) && h.running) {
      try {
        const snap = await Z.api('GET', `/api/games/${h.id}/think`);
        if (!hintCurrent(h)) return;
        h.snap = snap;
        h.running = snap.running !== false;
        update();
      } catch (e) { h.running = false; update(); return; }
      await new Promise((r) => setTimeout(r, 400));
    }
  }

  async function stopHint() {
    const h = hint;
    if (!h || !h.running) return;
    if (h.es) { h.es.close(); h.es = null; }
    h.running = false;
    update();
    try {
      const snap = await Z.api('POST', `/api/games/${h.id}/think/stop`);
      if (hintCurrent(h) && snap) { h.snap = snap; update(); }
    } catch (e) { if (e.status !== 404 && e.status !== 409) Z.showError('Stop: ' + e.message); }
  }

  /* Any move (or undo, or a new game) clears the hint; a search still running is stopped. */
  async function clearHint() {
    const h = hint;
    hint = null;
    if (!h) return;
    if (h.es) { h.es.close(); h.es = null; }
    if (h.running) {
      h.running = false;
      try { await Z.api('POST', `/api/games/${h.id}/think/stop`); } catch (e) { /* finished already, or gone */ }
    }
    update();
  }

  function heatOf(snap) {
    const heat = new Map();
    let total = 0;
    for (const m of (snap && snap.moves) || []) {
      const mv = Z.parseMove(m.move);
      const cell = Z.moveTarget(mv);
      if (!cell || !(m.visits > 0)) continue;
      heat.set(cell, (heat.get(cell) || 0) + m.visits);
      total += m.visits;
    }
    let max = 0;
    if (total > 0) for (const [c, v] of heat) { heat.set(c, v / total); max = Math.max(max, v / total); }
    return { heat, max };
  }

  function renderHint() {
    const body = el.hintBody;
    const h = hint;
    el.hint.disabled = !game || game.over || busy || engineBusy || (h && h.running);
    el.hintStop.disabled = !(h && h.running);
    if (!h) {
      body.dataset.state = 'none';
      if (body.dataset.shown !== 'none') {
        body.dataset.shown = 'none';
        Z.clear(body).append(Z.h('p', { class: 'muted' }, 'Ask the engine about the current position: its best move, main line, the win chances and where its search looks (heat-map on the board).'));
      }
      return;
    }
    body.dataset.state = h.running ? 'running' : 'done';
    body.dataset.shown = 'hint';
    Z.clear(body);
    const s = h.snap;
    if (!s) { body.append(Z.h('p', { class: 'muted' }, Z.h('span', { class: 'spinner small' }), ' Starting the search…')); return; }
    const names = (game && game.players) || ['Player 1', 'Player 2'];
    const wp = typeof s.wp === 'number' ? s.wp : null;
    const p0 = wp == null ? null : s.to_move === 0 ? wp : 1 - wp;
    const bar = Z.h('div', { class: 'wpbar', 'data-testid': 'hint-wp', 'data-wp0': p0 == null ? '' : p0.toFixed(4), role: 'img',
      'aria-label': p0 == null ? 'No estimate yet' : `${names[0]} ${Z.pct(p0)}, ${names[1]} ${Z.pct(1 - p0)}` });
    const w0 = p0 == null ? 50 : Math.max(0, Math.min(100, p0 * 100));
    bar.append(Z.h('div', { class: 'wp-side wp-0', style: `width:${w0}%` }), Z.h('div', { class: 'wp-side wp-1', style: `width:${100 - w0}%` }));
    const legend = Z.h('div', { class: 'wp-legend' },
      Z.h('span', null, Z.h('i', { class: 'seat-dot seat-0' }), `${names[0]} `, Z.h('b', null, Z.pct(p0))),
      Z.h('span', null, Z.h('b', null, p0 == null ? '—' : Z.pct(1 - p0)), ` ${names[1]} `, Z.h('i', { class: 'seat-dot seat-1' })));
    body.append(bar, legend);
    const dl = Z.h('dl', { class: 'facts' });
    dl.append(Z.h('dt', null, 'Best'), Z.h('dd', null, Z.h('code', { 'data-testid': 'hint-best' }, s.best || '—')));
    const pv = Z.h('dd', { class: 'pv', 'data-testid': 'hint-pv' });
    (s.pv || []).slice(0, 10).forEach((m, i) => pv.append(Z.h('code', { class: 'chip' + (i % 2 ? ' alt' : '') }, m)));
    if (!(s.pv || []).length) pv.append('—');
    dl.append(Z.h('dt', null, 'Line'), pv);
    dl.append(Z.h('dt', null, 'Search'), Z.h('dd', { 'data-testid': 'hint-sims' },
      `${(s.sims || 0).toLocaleString('en')} simulations, ${(s.seconds || 0).toFixed(1)} s`,
      h.running ? Z.h('span', { class: 'live' }, ' · running') : Z.h('span', { class: 'muted' }, s.stopped ? ' · stopped' : ' · done')));
    body.append(dl);
    const moves = (s.moves || []).slice(0, 5);
    const total = (s.moves || []).reduce((a, m) => a + (m.visits || 0), 0);
    if (moves.length && total > 0) {
      const tb = Z.h('table', { class: 'top-moves' },
        Z.h('thead', null, Z.h('tr', null, Z.h('th', null, 'Move'), Z.h('th', null, 'Visits'), Z.h('th', null, 'Win'))));
      const tbody = Z.h('tbody');
      for (const m of moves) {
        tbody.append(Z.h('tr', null, Z.h('td', null, Z.h('code', null, m.move)), Z.h('td', null, Z.pct(m.visits / total)),
          Z.h('td', null, typeof m.q === 'number' ? Z.pct((m.q + 1) / 2) : '—')));
      }
      tb.append(tbody);
      body.append(tb);
    }
    if (s.error) body.append(Z.h('p', { class: 'warn' }, s.error));
  }

  /* ------------------------------------------------------------------ drawing */
  function update() {
    const g = game;
    const st = stage();
    const root = el.root;
    let phase = 'idle';
    if (g) {
      if (g.over) phase = 'over';
      else if (engineBusy || g.thinking) phase = 'engine';
      else if (busy) phase = 'busy';
      else if (isHumanTurn(g)) phase = 'human';
      else phase = 'wait';
    } else if (busy) phase = 'busy';
    root.dataset.phase = phase;
    root.dataset.stage = st.stage;
    root.dataset.gameId = g ? g.id : '';
    root.dataset.ply = g ? g.ply : '';
    document.getElementById('app').dataset.busy = busy || engineBusy ? 'true' : 'false';

    // players, captures, pool
    const names = g ? g.players : ['Player 1', 'Player 2'];
    for (let p = 0; p < 2; p++) {
      Z.$('#name-' + p).textContent = names[p];
      const card = Z.$('#player-' + p);
      card.classList.toggle('to-move', !!g && !g.over && g.to_move === p);
      Z.$('.to-move-tag', card).hidden = !(g && !g.over && g.to_move === p);
      card.classList.toggle('winner', !!g && g.over && g.winner === p);
      Z.marbleCounts(Z.$('#captures-' + p), g ? g.captures[p] : [0, 0, 0]);
    }
    Z.marbleCounts(el.pool, g ? g.pool : [0, 0, 0]);
    const info = document.getElementById('game-info');
    if (g) {
      const known = ['quick', 'casual', 'strong', 'full'].includes(g.level);
      const budget = known ? g.level : g.time_ms ? `${g.time_ms} ms a move` : `${g.sims} simulations a move`;
      info.textContent = `${g.variant === 'Zertz+H' ? 'Zèrtz+H' : 'Zèrtz'} · ${g.rings} rings` + (g.human == null ? ' · two players' : ` · engine: ${budget}`);
    } else info.textContent = '';

    // the banner
    if (g && g.over) {
      el.banner.hidden = false;
      el.banner.textContent = g.result || 'Game over';
      el.banner.classList.toggle('won', g.human != null && g.winner === g.human);
      el.banner.classList.toggle('lost', g.human != null && g.winner != null && g.winner !== g.human);
    } else el.banner.hidden = true;

    // status line (the banner takes its place at the end)
    el.status.parentElement.hidden = phase === 'over';
    el.picker.hidden = phase === 'over';
    el.thinking.hidden = phase !== 'engine';
    el.status.textContent = statusText(g, st, phase);
    let again = Z.$('#engine-move');
    if (phase === 'wait') {
      if (!again) {
        again = Z.h('button', { id: 'engine-move', class: 'btn small', 'data-testid': 'engine-move', onclick: () => maybeEngine() }, 'Let the engine move');
        el.status.after(again);
      }
    } else if (again) again.remove();

    // colour picker
    const poolEmpty = g && g.pool.every((n) => n === 0);
    const counts = !g ? [0, 0, 0] : poolEmpty ? g.captures[g.to_move] : g.pool;
    el.pickerLabel.textContent = poolEmpty && !g.over ? 'From captures' : 'Marble';
    for (const b of Z.$$('.pick', el.picker)) {
      const c = b.dataset.color;
      const i = Z.COLORS.indexOf(c);
      const enabled = !!st.colors && st.colors.includes(c);
      b.disabled = !enabled;
      b.dataset.clickable = enabled ? 'true' : 'false';
      b.setAttribute('aria-pressed', st.color === c ? 'true' : 'false');
      b.classList.toggle('chosen', st.color === c);
      Z.clear(b).append(Z.marbleIcon(c, 26), Z.h('span', { class: 'pick-n' }, String(counts[i])));
      b.setAttribute('aria-label', `${Z.COLOR_NAMES[c]} marble (${counts[i]} left)`);
      b.title = enabled ? `Place a ${Z.COLOR_NAMES[c]} marble` : `No ${Z.COLOR_NAMES[c]} placement possible`;
    }
    el.picker.classList.toggle('inactive', !(st.stage === 'colour' || st.stage === 'ring' || st.stage === 'remove'));
    el.cancel.hidden = !(sel.color || sel.cell || (sel.from && !(g && g.chain)));

    // buttons
    const n = undoCount(g);
    el.undo.disabled = !n || busy || engineBusy;
    el.undo.title = n === 2 ? 'Take back the engine\'s turn and yours' : n === 1 ? 'Take back the last turn' : 'Nothing to take back';
    el.undo.dataset.turns = String(n);
    el.resign.disabled = !g || g.over || busy || engineBusy;
    if (g) { el.sgf.href = `/api/games/${g.id}/sgf`; el.sgf.setAttribute('aria-disabled', 'false'); }
    else { el.sgf.removeAttribute('href'); el.sgf.setAttribute('aria-disabled', 'true'); }

    // last turn note
    if (g && g.last) {
      const L = g.last;
      const parts = [Z.h('span', { class: 'seat-dot seat-' + L.player }), ` ${g.players[L.player]} played `, Z.h('code', { 'data-testid': 'last-text' }, L.text)];
      if (L.isolated && L.isolated.length) parts.push(Z.h('span', { class: 'iso-note', 'data-testid': 'isolated-note' }, ` · isolated: ${L.isolated.join(', ')}`));
      Z.clear(el.note).append(...parts);
    } else Z.clear(el.note);

    renderMoves(g);
    renderHint();
    renderBoard(g, st);
  }
  P.update = () => update();

  function statusText(g, st, phase) {
    if (!g) return busy ? 'Starting…' : 'Start a new game.';
    if (phase === 'over') return 'Game over.';
    const name = g.players[g.to_move];
    if (phase === 'engine') return `${name} to move.`;
    if (phase === 'busy') return 'Sending…';
    if (phase === 'wait') return `${name} to move.`;
    const who = g.human == null ? `${name}: ` : 'Your turn: ';
    switch (st.stage) {
      case 'colour': return who + 'choose a marble colour' + (g.pool.every((n) => n === 0) ? ' (the pool is empty: place from your captures).' : '.');
      case 'ring': return who + `place the ${Z.COLOR_NAMES[st.color]} marble on a highlighted ring.`;
      case 'remove': return who + `remove a free ring (${Z.COLOR_NAMES[st.color]} on ${st.cell}).`;
      case 'jump-from': return who + 'a capture is compulsory — choose the marble that jumps.';
      case 'jump-to': return who + (g.chain ? `keep capturing with the marble on ${st.from}.` : `jump with the marble on ${st.from}: choose where it lands.`);
      default: return `${name} to move.`;
    }
  }

  function renderMoves(g) {
    const ol = el.moves;
    const turns = (g && g.turns) || [];
    const key = g ? g.id + ':' + turns.map((t) => t.text).join(';') : '';
    if (ol.dataset.key === key) return;
    ol.dataset.key = key;
    Z.clear(ol);
    turns.forEach((t, i) => {
      ol.append(Z.h('li', { 'data-testid': 'turn', 'data-player': t.player, class: i === turns.length - 1 ? 'last' : null },
        Z.h('span', { class: 'mv-n' }, String(i + 1)),
        Z.h('span', { class: 'seat-dot seat-' + t.player, title: g.players[t.player] }),
        Z.h('code', { class: 'mv-text' }, t.text)));
    });
    if (!turns.length) ol.append(Z.h('li', { class: 'muted empty' }, g ? 'No turn played yet.' : 'No game.'));
    ol.scrollTop = ol.scrollHeight;
  }

  function renderBoard(g, st) {
    if (!g) { board.setCells([]); board.render({ placeholder: busy ? 'Setting up the board…' : 'Choose the options and start a new game' }); return; }
    const view = {
      rings: new Set(g.rings_left),
      marbles: g.marbles,
      clickRings: new Map(),
      clickMarbles: new Set(),
      selected: null, selFrom: null,
      last: null, heat: null, heatMax: 0, marks: [],
    };
    if (st.stage === 'ring') for (const c of st.cells) view.clickRings.set(c, 'place');
    if (st.stage === 'remove') {
      for (const m of st.removes) view.clickRings.set(m.remove, 'remove');
      view.selected = { cell: st.cell, color: st.color };
    }
    if (st.stage === 'jump-from') for (const c of st.froms) view.clickMarbles.add(c);
    if (st.stage === 'jump-to') {
      for (const c of st.froms) if (c !== st.from && !g.chain) view.clickMarbles.add(c);
      for (const m of st.lands) view.clickRings.set(m.path[1], 'land');
      view.selFrom = st.from;
    }
    if (g.last) {
      const mv = Z.parseMove(g.last.text);
      const colorOf = new Map(((mv && mv.isolated) || []).map((p) => [p.cell, p.color]));
      view.last = {
        cells: g.last.cells || [],
        jump: mv && mv.type === 'jump' ? mv.path : null,
        isolated: (g.last.isolated || []).map((c) => ({ cell: c, color: colorOf.get(c) || null })),
      };
    }
    if (hint && hint.snap && hintCurrent(hint)) {
      const { heat, max } = heatOf(hint.snap);
      view.heat = heat; view.heatMax = max;
    }
    board.render(view);
  }
})(window.Z);
