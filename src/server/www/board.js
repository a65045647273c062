/* board.js — the Zèrtz board drawn as inline SVG.
 *
 * Cells come from the API (`cells`: name, x = column, y = height in half rows; neighbours at
 * (x, y±2) and (x±1, y±1)).  Columns are vertical, flat-top layout: screen x = x·U·√3/2,
 * screen y = −y·U/2, so neighbouring rings are U apart.  Flipping the board is a 180° turn of
 * the picture only.
 *
 * new Z.Board(svg, {onClick(cell, what)}) then board.setCells(cells) and board.render(view):
 *   view.rings        Set of cells that hold a ring
 *   view.marbles      {cell: 'W'|'G'|'B'}
 *   view.clickRings   Map cell -> 'place' | 'remove' | 'land'   (clickable, highlighted)
 *   view.clickMarbles Set of cells whose marble is clickable (a jump's start)
 *   view.selected     {cell, color} a placement being chosen (ghost marble), or null
 *   view.selFrom      the cell of the jumping marble chosen, or null
 *   view.last         {cells: [...], jump: [path] | null, isolated: [{cell, color}]}
 *   view.heat         Map cell -> share of the search's visits (0..1)
 *   view.marks        [{kind: 'played' | 'best', move: Z.parseMove(...)}]
 */
'use strict';
(function (Z) {
  const U = 40;                       // distance between neighbouring rings
  const DX = U * Math.sqrt(3) / 2;
  const R_RING = 0.47 * U, R_HOLE = 0.2 * U, R_MARBLE = 0.35 * U;
  let uidCounter = 0;

  class Board {
    constructor(svg, opts) {
      this.svg = svg;
      this.opts = opts || {};
      this.flipped = false;
      this.cells = [];
      this.byName = new Map();
      this.byXY = new Map();
      this.uid = 'b' + (++uidCounter);
      this.view = null;
      svg.setAttribute('preserveAspectRatio', 'xMidYMid meet');
      svg.addEventListener('click', (ev) => this._click(ev));
      svg.addEventListener('keydown', (ev) => {
        if (ev.key !== 'Enter' && ev.key !== ' ') return;
        const t = ev.target.closest && ev.target.closest('[data-clickable="true"]');
        if (t) { ev.preventDefault(); this._fire(t); }
      });
    }

    setCells(cells) {
      const key = (cells || []).map((c) => c.name).join(',');
      if (key === this._cellsKey) return;
      this._cellsKey = key;
      this.cells = cells || [];
      this.byName = new Map(this.cells.map((c) => [c.name, c]));
      this.byXY = new Map(this.cells.map((c) => [c.x + ',' + c.y, c]));
    }

    setFlipped(f) { this.flipped = !!f; if (this.view) this.render(this.view); }

    /* Screen position of a cell. */
    pos(name) {
      const c = this.byName.get(name);
      if (!c) return null;
      const s = this.flipped ? -1 : 1;
      return { x: s * c.x * DX, y: -s * c.y * U / 2 };
    }

    /* The cell between two cells two steps apart (a jump's jumped cell). */
    between(a, b) {
      const ca = this.byName.get(a), cb = this.byName.get(b);
      if (!ca || !cb) return null;
      const c = this.byXY.get((ca.x + cb.x) / 2 + ',' + (ca.y + cb.y) / 2);
      return c ? c.name : null;
    }

    _click(ev) {
      const t = ev.target.closest && ev.target.closest('[data-clickable="true"]');
      if (t && this.svg.contains(t)) this._fire(t);
      else if (this.opts.onBackground) this.opts.onBackground();
    }

    _fire(t) {
      if (this.opts.onClick) this.opts.onClick(t.getAttribute('data-cell'), t.getAttribute('data-testid'), t.getAttribute('data-kind'));
    }

    render(view) {
      this.view = view;
      const v = view || {};
      const svg = this.svg;
      Z.clear(svg);
      svg.setAttribute('data-flipped', this.flipped ? 'true' : 'false');
      if (!this.cells.length) {
        svg.setAttribute('viewBox', '0 0 300 300');
        if (v.placeholder) svg.append(Z.s('text', { x: 150, y: 150, class: 'board-empty', 'text-anchor': 'middle', 'dominant-baseline': 'middle' }, v.placeholder));
        return;
      }

      // the view box: every cell of the board, so that the picture does not move as rings go
      let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
      for (const c of this.cells) {
        const p = this.pos(c.name);
        x0 = Math.min(x0, p.x); x1 = Math.max(x1, p.x); y0 = Math.min(y0, p.y); y1 = Math.max(y1, p.y);
      }
      const pad = 0.62 * U;
      svg.setAttribute('viewBox', `${(x0 - pad).toFixed(1)} ${(y0 - pad).toFixed(1)} ${(x1 - x0 + 2 * pad).toFixed(1)} ${(y1 - y0 + 2 * pad).toFixed(1)}`);

      const S = Z.s;
      const rings = v.rings || new Set();
      const marbles = v.marbles || {};
      const clickRings = v.clickRings || new Map();
      const clickMarbles = v.clickMarbles || new Set();
      const heat = v.heat || new Map();
      const last = v.last || null;
      const marks = v.marks || [];
      const uid = this.uid;

      // arrow heads
      const defs = S('defs');
      for (const [name, cls] of [['played', 'mk-played'], ['best', 'mk-best'], ['last', 'mk-last']]) {
        defs.append(S('marker', { id: `${uid}-arrow-${name}`, viewBox: '0 0 10 10', refX: 7, refY: 5, markerWidth: 4.2, markerHeight: 4.2, orient: 'auto-start-reverse' },
          S('path', { d: 'M0,0 L10,5 L0,10 z', class: cls })));
      }
      svg.append(defs);

      const gHalo = S('g', { class: 'layer-halo' });
      const gRings = S('g', { class: 'layer-rings' });
      const gUnder = S('g', { class: 'layer-under' });
      const gMarbles = S('g', { class: 'layer-marbles' });
      const gOver = S('g', { class: 'layer-over' });
      svg.append(gHalo, gRings, gUnder, gMarbles, gOver);

      // last turn: a soft halo on the cells it used
      const lastCells = new Set(last && last.cells ? last.cells : []);
      for (const name of lastCells) {
        const p = this.pos(name);
        if (!p) continue;
        gHalo.append(S('circle', { cx: p.x, cy: p.y, r: 0.58 * U, class: 'halo-last' + (rings.has(name) ? '' : ' gone') }));
      }

      const markCells = new Set();
      for (const m of marks) if (m.move && m.move.type === 'place') { markCells.add(m.move.cell); if (m.move.remove) markCells.add(m.move.remove); }

      // rings (and the places of removed rings, faint)
      for (const c of this.cells) {
        const p = this.pos(c.name);
        const has = rings.has(c.name);
        if (!has) {
          gRings.append(S('circle', { cx: p.x, cy: p.y, r: R_RING - 2, class: 'ring-gone', 'data-testid': 'ring-gone', 'data-cell': c.name }));
          continue;
        }
        const kind = clickRings.get(c.name) || null;
        const isSel = v.selected && v.selected.cell === c.name;
        const g = S('g', {
          class: 'ring' + (kind ? ' click click-' + kind : '') + (isSel ? ' selected' : ''),
          transform: `translate(${p.x.toFixed(2)},${p.y.toFixed(2)})`,
          'data-testid': 'ring', 'data-cell': c.name,
          'data-clickable': kind ? 'true' : 'false',
          'data-kind': kind || null,
          tabindex: kind ? 0 : null, role: kind ? 'button' : null,
          'aria-label': kind ? `${c.name}: ${kind === 'place' ? 'place here' : kind === 'remove' ? 'remove this ring' : 'jump here'}` : null,
        });
        if (kind) g.append(S('circle', { r: 0.55 * U, class: 'click-glow' }));
        g.append(S('circle', { r: R_RING, class: 'ring-body' }));
        const share = heat.get(c.name);
        if (share != null && v.heatMax > 0) {
          g.append(S('circle', { r: R_RING, class: 'ring-heat', 'data-testid': 'heat', 'data-cell': c.name, 'data-share': share.toFixed(4),
            style: `fill-opacity:${(0.14 + 0.72 * share / v.heatMax).toFixed(3)}` }));
        }
        g.append(S('circle', { r: R_HOLE, class: 'ring-hole' }));
        if (!marbles[c.name] && !isSel && !markCells.has(c.name) && v.labels !== false && !(share != null && share >= 0.02)) {
          g.append(S('text', { class: 'ring-label', y: 0.5, 'dominant-baseline': 'middle', 'text-anchor': 'middle' }, c.name));
        }
        if (kind === 'remove') g.append(S('path', { class: 'remove-x', d: xPath(0.17 * U) }));
        gRings.append(g);
      }

      // review marks under the marbles: the placement's ring outline, the removal's cross
      for (const mk of marks) {
        const mv = mk.move;
        if (!mv) continue;
        const off = mk.kind === 'best' ? -3.5 : 3.5;
        if (mv.type === 'place') {
          const p = this.pos(mv.cell);
          if (p) gUnder.append(S('circle', { cx: p.x, cy: p.y, r: mk.kind === 'best' ? 0.44 * U : 0.53 * U, class: 'mark-ring mk-' + mk.kind, 'data-testid': 'mark-' + mk.kind, 'data-cell': mv.cell }));
          if (mv.remove) {
            const q = this.pos(mv.remove);
            if (q) {
              gOver.append(S('circle', { cx: q.x, cy: q.y, r: (mk.kind === 'best' ? 0.36 : 0.46) * U, class: 'mark-remove-ring mk-' + mk.kind }));
              gOver.append(S('path', { class: 'mark-remove mk-' + mk.kind, d: xPath(0.16 * U, q.x + off * 0.6, q.y + off * 0.6), 'data-testid': 'mark-' + mk.kind + '-remove', 'data-cell': mv.remove }));
            }
          }
        }
      }

      // marbles
      for (const [cell, color] of Object.entries(marbles)) {
        const p = this.pos(cell);
        if (!p) continue;
        const click = clickMarbles.has(cell);
        const sel = v.selFrom === cell;
        const g = S('g', {
          class: 'marble-g' + (click ? ' click' : '') + (sel ? ' selected' : ''),
          transform: `translate(${p.x.toFixed(2)},${p.y.toFixed(2)})`,
          'data-testid': 'marble', 'data-cell': cell, 'data-color': color,
          'data-clickable': click ? 'true' : 'false',
          tabindex: click ? 0 : null, role: click ? 'button' : null,
          'aria-label': `${Z.COLOR_NAMES[color]} marble on ${cell}` + (click ? ': jump with it' : ''),
        });
        if (click || sel) g.append(S('circle', { r: 0.5 * U, class: 'click-glow' }));
        g.append(marble(color, R_MARBLE));
        gMarbles.append(g);
      }

      // the placement being chosen: a ghost marble
      if (v.selected && v.selected.cell && v.selected.color) {
        const p = this.pos(v.selected.cell);
        if (p) gMarbles.append(S('g', { class: 'ghost ghost-select', transform: `translate(${p.x},${p.y})`, 'data-testid': 'ghost' }, marble(v.selected.color, R_MARBLE)));
      }

      // isolation captures of the last turn: fading ghost marbles where the rings were
      if (last && last.isolated) {
        for (const iso of last.isolated) {
          const p = this.pos(iso.cell);
          if (!p) continue;
          const g = S('g', { class: 'ghost ghost-isolated', transform: `translate(${p.x},${p.y})`, 'data-testid': 'isolated', 'data-cell': iso.cell });
          g.append(S('circle', { r: R_RING - 2, class: 'iso-ring' }));
          if (iso.color) g.append(marble(iso.color, R_MARBLE));
          gMarbles.append(g);
        }
      }

      // the last turn's jumps
      if (last && last.jump && last.jump.length > 1) gOver.append(this._arrow(last.jump, 'last', 0));

      // review marks over the marbles: ghosts of the placements, arrows of the jumps
      const placedBy = new Map();
      for (const mk of marks) if (mk.move && mk.move.type === 'place') placedBy.set(mk.kind, mk.move.cell);
      for (const mk of marks) {
        const mv = mk.move;
        if (!mv) continue;
        if (mv.type === 'place') {
          const p = this.pos(mv.cell);
          if (p && !marbles[mv.cell]) {
            // the engine's marble on the same ring as the one played: a small one beside it
            const shared = mk.kind === 'best' && placedBy.get('played') === mv.cell;
            const tx = shared ? p.x + 0.3 * U : p.x, ty = shared ? p.y - 0.3 * U : p.y;
            const g = S('g', { class: 'ghost ghost-mark mk-' + mk.kind + (shared ? ' shared' : ''), transform: `translate(${tx},${ty})` });
            if (shared) g.append(S('circle', { r: R_MARBLE * 0.62, class: 'ghost-badge' }));
            g.append(marble(mv.color, shared ? R_MARBLE * 0.5 : R_MARBLE));
            gOver.append(g);
          }
        } else if (mv.type === 'jump') {
          gOver.append(this._arrow(mv.path, mk.kind, mk.kind === 'best' ? -4 : 4));
        }
      }

      // heat labels on top
      if (v.heatMax > 0) {
        for (const [cell, share] of heat) {
          if (share < 0.02 || !rings.has(cell)) continue;
          const p = this.pos(cell);
          gOver.append(S('text', { x: p.x, y: p.y + 0.5, class: 'heat-label', 'dominant-baseline': 'middle', 'text-anchor': 'middle' }, Math.round(share * 100) + '%'));
        }
      }
    }

    _arrow(path, kind, off) {
      const pts = path.map((c) => this.pos(c)).filter(Boolean);
      if (pts.length < 2) return Z.s('g');
      // shift the line sideways a little so that two arrows on the same path both show
      const seg = [];
      for (let i = 0; i < pts.length; i++) {
        const a = pts[Math.max(0, i - 1)], b = pts[Math.min(pts.length - 1, i + 1)];
        const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy) || 1;
        seg.push({ x: pts[i].x - dy / len * off, y: pts[i].y + dx / len * off });
      }
      // start at the edge of the first marble, stop short of the last ring's centre
      const s0 = seg[0], s1 = seg[1], n = seg.length;
      const trim = (p, q, d) => { const L = Math.hypot(q.x - p.x, q.y - p.y) || 1; return { x: p.x + (q.x - p.x) * d / L, y: p.y + (q.y - p.y) * d / L }; };
      const start = trim(s0, s1, 0.3 * U);
      const end = trim(seg[n - 1], seg[n - 2], 0.18 * U);
      const d = ['M', start.x.toFixed(1), start.y.toFixed(1)];
      for (let i = 1; i < n - 1; i++) d.push('L', seg[i].x.toFixed(1), seg[i].y.toFixed(1));
      d.push('L', end.x.toFixed(1), end.y.toFixed(1));
      return Z.s('path', { d: d.join(' '), class: 'arrow mk-' + kind, 'marker-end': `url(#${this.uid}-arrow-${kind})`, 'data-testid': 'arrow-' + kind });
    }
  }

  function xPath(r, cx, cy) {
    const x = cx || 0, y = cy || 0;
    return `M${x - r},${y - r} L${x + r},${y + r} M${x - r},${y + r} L${x + r},${y - r}`;
  }

  function marble(color, r) {
    const g = Z.s('g', { class: 'marble-art' });
    g.append(Z.s('circle', { r, cy: 1.6, class: 'marble-shadow' }));
    g.append(Z.s('circle', { r, class: 'marble marble-' + color }));
    g.append(Z.s('circle', { r: r * 0.32, cx: -r * 0.36, cy: -r * 0.38, class: 'marble-shine marble-shine-' + color }));
    return g;
  }

  Z.Board = Board;
  Z.boardMarble = marble;
})(window.Z);
