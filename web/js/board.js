// The board: drawn in SVG from the engine's geometry (GET /api/board/{rules}), pieces as focusable
// SVG groups, every movement animated square by square with requestAnimationFrame.
//
// Coordinates: one unit = one grid cell; x = column, y = row (RULES.md §1).

const NS = 'http://www.w3.org/2000/svg';

/** Seat colours per rule set (RULES.md §1): 飞行棋 red yellow blue green; Ludo red green yellow blue. */
export const COLOURS = {
  feixingqi: ['#e23b3b', '#f2b705', '#2f7de1', '#2e9e4f'],
  ludo: ['#e23b3b', '#2e9e4f', '#f2b705', '#2f7de1'],
};
/** Each colour dark enough for text on white (contrast ≥ 5:1; the yellow of the board is 1.8:1). */
export const TEXT_COLOURS = {
  feixingqi: ['#c62828', '#8a6700', '#1f5fb4', '#1e7a3a'],
  ludo: ['#c62828', '#1e7a3a', '#8a6700', '#1f5fb4'],
};
const LIGHT = {
  feixingqi: ['#fbd3d0', '#fdecb4', '#cfe0fa', '#cdebd5'],
  ludo: ['#fbd3d0', '#cdebd5', '#fdecb4', '#cfe0fa'],
};

/**
 * @typedef {[number, number]} Cell  row, col
 * @typedef {{rules: string, size: number, track: Cell[], lanes: Cell[][], goals: Cell[], bases: Cell[],
 *   baseSize: number, takeoff: Cell[]|null, fly: {from:number,to:number,crossed:Cell}[]|null, safe: number[]}} Geo
 */

/**
 * Accepts the server's board JSON in any of the plausible shapes (arrays of [r,c] or {row,col})
 * and returns the renderer's form.
 * @param {any} j
 * @returns {Geo}
 */
export function normalizeGeo(j) {
  /** @param {any} c @returns {Cell} */
  const cell = (c) => Array.isArray(c) ? [c[0], c[1]] : [c.row ?? c.r, c.col ?? c.c];
  const rules = String(j.rules ?? 'feixingqi').toLowerCase().startsWith('l') ? 'ludo' : 'feixingqi';
  const track = (j.track || []).map((t) => cell(t && !Array.isArray(t) && t.cell ? t.cell : t));
  if (Array.isArray(j.seats)) {
    // docs/PROTOCOL.md §5
    const seats = [...j.seats].sort((a, b) => a.seat - b.seat);
    const hasFly = seats.every((s) => s.fly);
    return {
      rules, size: j.size, track,
      lanes: seats.map((s) => s.lane.map(cell)),
      goals: seats.map((s) => cell(s.goal)),
      bases: seats.map((s) => cell(s.base.cell)),
      baseSize: seats[0].base.size,
      takeoff: seats.every((s) => s.takeoff) ? seats.map((s) => cell(s.takeoff)) : null,
      fly: hasFly ? seats.map((s) => ({ from: s.fly.from, to: s.fly.to, crossed: cell(s.fly.crossed) })) : null,
      safe: j.safeSquares ?? [],
    };
  }
  // the test fixture's flat form
  return {
    rules, size: j.size, track,
    lanes: j.lanes.map((l) => l.map(cell)), goals: j.goals.map(cell), bases: j.bases.map(cell),
    baseSize: j.baseSize, takeoff: j.takeoff ? j.takeoff.map(cell) : null,
    fly: j.fly ? j.fly.map((f) => ({ from: f.from, to: f.to, crossed: cell(f.crossed) })) : null,
    safe: j.safe ?? [],
  };
}

/** Squares around the loop, on both boards. */
export const LOOP = 52;
/** Absolute loop square of (seat, progress) or -1 (RULES.md §2.2, §4). */
export function absOf(geo, seat, p) {
  if (geo.rules === 'ludo') return p >= 0 && p <= 50 ? (13 * seat + p) % LOOP : -1;
  return p >= 1 && p <= 50 ? (13 * seat + p - 2 + LOOP) % LOOP : -1;
}

// 飞行棋 footprints of loop squares a = 0..12 (seat 0's quarter) as polygons [x, y]; the rest are
// these rotated 90° clockwise k times for a + 13k (RULES.md §2.3: cell(a+13) = rot(cell(a))).
const R = (x0, y0, x1, y1) => [[x0, y0], [x1, y0], [x1, y1], [x0, y1]];
const FXQ_QUARTER = [
  R(4, 14, 6, 15), R(4, 13, 6, 14), [[6, 11], [6, 13], [4, 13]], [[4, 11], [6, 11], [4, 13]],
  R(3, 11, 4, 13), R(2, 11, 3, 13), [[0, 11], [2, 11], [2, 13]], R(0, 10, 2, 11), R(0, 9, 2, 10),
  R(0, 8, 2, 9), R(0, 7, 2, 8), R(0, 6, 2, 7), [[2, 4], [2, 6], [0, 6]],
];
const FXQ_TAKEOFF0 = [[4, 15], [6, 17], [4, 17]];
/** @param {number[][]} poly @param {number} k @param {number} n */
function rotPoly(poly, k, n) {
  let p = poly;
  for (let i = 0; i < k; i++) p = p.map(([x, y]) => [n - y, x]);
  return p;
}
const centroid = (poly) => {
  if (poly.length === 3) return [(poly[0][0] + poly[1][0] + poly[2][0]) / 3, (poly[0][1] + poly[1][1] + poly[2][1]) / 3];
  let x = 0, y = 0;
  for (const [a, b] of poly) { x += a; y += b; }
  return [x / poly.length, y / poly.length];
};

/** @param {string} tag @param {Record<string, any>} [attrs] @param {Element} [parent] */
function el(tag, attrs = {}, parent) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs) if (attrs[k] !== undefined && attrs[k] !== null) e.setAttribute(k, String(attrs[k]));
  if (parent) parent.appendChild(e);
  return e;
}
const pts = (poly) => poly.map(([x, y]) => `${+x.toFixed(3)},${+y.toFixed(3)}`).join(' ');

/** Shape of a seat's pieces (so colour is never the only difference): ● ■ ▲ ◆. */
function shapePath(seat, r) {
  switch (seat) {
    case 0: return `M${-r},0a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0`;
    case 1: { const s = r * 0.88; return `M${-s},${-s}H${s}V${s}H${-s}Z`; }
    case 2: { const h = r * 1.15; return `M0,${-h}L${h * 0.95},${h * 0.7}H${-h * 0.95}Z`; }
    default: { const d = r * 1.2; return `M0,${-d}L${d},0L0,${d}L${-d},0Z`; }
  }
}
/** A plane seen from above, nose at +x, about 2 units long and wide. */
const PLANE_PATH = 'M1,0L0.3,-0.12L-0.1,-0.85H-0.28L-0.08,-0.12H-0.6L-0.8,-0.35H-0.95L-0.85,0L-0.95,0.35H-0.8L-0.6,0.12H-0.08L-0.28,0.85H-0.1L0.3,0.12Z';
/** A piece's plane: stouter than the board's marks, so that it reads at phone size; nose at +x, ±1. */
const PIECE_PLANE = 'M1,0C1,-0.17 0.85,-0.26 0.6,-0.27L0.3,-0.27L-0.2,-0.98H-0.48L-0.3,-0.27L-0.62,-0.24L-0.82,-0.58H-1L-0.92,-0.16V0.16L-1,0.58H-0.82L-0.62,0.24L-0.3,0.27L-0.48,0.98H-0.2L0.3,0.27H0.6C0.85,0.26 1,0.17 1,0Z';
export const SHAPE_NAMES = { zh: ['圆', '方', '三角', '菱形'], en: ['circle', 'square', 'triangle', 'diamond'] };

// ---- item mode glyphs (RULES.md §10.3): each draws into a group centred on (0,0), radius ≈ 0.3
const SVGNS = 'http://www.w3.org/2000/svg';
function gl(tag, attrs, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  parent.appendChild(e);
  return e;
}
function dieFace(g, pips, fill = '#fff') {
  gl('rect', { x: -0.24, y: -0.24, width: 0.48, height: 0.48, rx: 0.08, fill, stroke: '#222', 'stroke-width': 0.035 }, g);
  for (const [x, y] of pips) gl('circle', { cx: x * 0.13, cy: y * 0.13, r: 0.045, fill: '#222' }, g);
}
/** 6数骰, 动力装置, 遥控骰子, 护盾, 导弹 */
export const ITEM_GLYPH = {
  sixDie: (g) => dieFace(g, [[-1, -1], [-1, 0], [-1, 1], [1, -1], [1, 0], [1, 1]], '#ffe082'),
  booster: (g) => gl('path', { d: 'M0.05,-0.3L-0.18,0.04H0L-0.06,0.3L0.18,-0.06H0Z', fill: '#fb8c00', stroke: '#5d2f00', 'stroke-width': 0.025 }, g),
  remoteDie: (g) => {
    dieFace(g, [[0, 0]], '#b3e5fc');
    gl('path', { d: 'M0.18,-0.24L0.3,-0.36M0.24,-0.36A0.06,0.06 0 0 1 0.3,-0.3', fill: 'none', stroke: '#0277bd', 'stroke-width': 0.04 }, g);
  },
  shield: (g) => gl('path', { d: 'M0,-0.28L0.22,-0.18V0.02C0.22,0.16 0.1,0.24 0,0.29C-0.1,0.24 -0.22,0.16 -0.22,0.02V-0.18Z', fill: '#64b5f6', stroke: '#0d47a1', 'stroke-width': 0.035 }, g),
  missile: (g) => {
    gl('path', { d: 'M0.3,0L0.1,-0.08H-0.2L-0.3,-0.16V0.16L-0.2,0.08H0.1Z', fill: '#e53935', stroke: '#5b0000', 'stroke-width': 0.025 }, g);
    gl('path', { d: 'M-0.3,0H-0.4', stroke: '#ff9800', 'stroke-width': 0.06 }, g);
  },
};
/** 顺风, 大雾, 雷暴 */
export const WEATHER_GLYPH = {
  tailwind: (g) => gl('path', { d: 'M-0.3,-0.12H0.12A0.1,0.1 0 1 0 0.02,-0.24M-0.3,0.02H0.24M-0.3,0.16H0.08A0.1,0.1 0 1 1 -0.02,0.28', fill: 'none', stroke: '#e0f7fa', 'stroke-width': 0.055, 'stroke-linecap': 'round' }, g),
  fog: (g) => gl('path', { d: 'M-0.3,-0.14Q-0.15,-0.22 0,-0.14T0.3,-0.14M-0.3,0Q-0.15,-0.08 0,0T0.3,0M-0.3,0.14Q-0.15,0.06 0,0.14T0.3,0.14', fill: 'none', stroke: '#eceff1', 'stroke-width': 0.06, 'stroke-linecap': 'round' }, g),
  storm: (g) => {
    gl('path', { d: 'M-0.28,-0.02A0.12,0.12 0 0 1 -0.14,-0.2A0.16,0.16 0 0 1 0.16,-0.2A0.12,0.12 0 0 1 0.28,-0.02Z', fill: '#90a4ae' }, g);
    gl('path', { d: 'M0.02,-0.04L-0.1,0.14H0.02L-0.06,0.32L0.14,0.08H0.02L0.1,-0.04Z', fill: '#ffeb3b', stroke: '#795548', 'stroke-width': 0.02 }, g);
  },
};
export const ITEM_NAMES = {
  zh: { sixDie: '6数骰', booster: '动力装置', remoteDie: '遥控骰子', shield: '护盾', missile: '导弹', tailwind: '顺风', fog: '大雾', storm: '雷暴' },
  en: { sixDie: 'six die', booster: 'booster', remoteDie: 'remote die', shield: 'shield', missile: 'missile', tailwind: 'tailwind', fog: 'fog', storm: 'storm' },
};

/**
 * The icon of an item or a weather as a small SVG of `size` px, as the board draws it (a weather
 * glyph, drawn for the board's tinted square, on a dark disc): the bars and the legend beside
 * the board use it. @param {string} kind @param {number} [size]
 */
export function glyphIcon(kind, size = 36) {
  const svg = document.createElementNS(SVGNS, 'svg');
  svg.setAttribute('viewBox', '-0.4 -0.4 0.8 0.8');
  svg.setAttribute('width', String(size));
  svg.setAttribute('height', String(size));
  svg.setAttribute('aria-hidden', 'true');
  const g = gl('g', {}, svg);
  if (WEATHER_GLYPH[kind]) { gl('circle', { r: 0.38, fill: 'rgb(40,60,90)' }, g); WEATHER_GLYPH[kind](g); }
  else ITEM_GLYPH[kind]?.(g);
  return svg;
}

/**
 * The item bar 道具栏 (at most 3 items): one button per item, used by click or by the keys 1–3.
 * `onUse(item, index)` is called for an enabled bar; the caller then asks for a target where the
 * item needs one (护盾: an own plane; 导弹: an enemy plane; 遥控骰子: a face).
 * @param {HTMLElement} host
 * @param {{onUse?: (item:string, index:number)=>void, lang?: 'zh'|'en', hint?: string|null}} [opts]
 */
export function createItemBar(host, opts = {}) {
  const bar = document.createElement('div');
  bar.className = 'item-bar';
  bar.setAttribute('role', 'toolbar');
  bar.setAttribute('aria-label', (opts.lang || 'zh') === 'zh' ? '道具栏' : 'Item bar');
  host.appendChild(bar);
  let items = [], enabled = false;
  function render(hint) {
    bar.replaceChildren();
    for (let i = 0; i < 3; i++) {
      const it = items[i];
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'item-slot' + (it && hint === it ? ' hinted' : '');
      b.disabled = !it || !enabled;
      const name = it ? ITEM_NAMES[opts.lang || 'zh'][it] : '';
      b.setAttribute('aria-label', it ? `${i + 1}: ${name}` : `${i + 1}: —`);
      b.title = name;
      b.appendChild(glyphIcon(it ?? ''));
      b.addEventListener('click', () => { if (it && enabled) opts.onUse?.(it, i); });
      bar.appendChild(b);
    }
  }
  // Keys 1–3 use an item only while this bar is on screen (not from the set-up or the replay
  // shown over the game) and never from a text field (a room's points, a nickname).
  const onKey = (e) => {
    const i = ['1', '2', '3'].indexOf(e.key);
    const typing = e.target instanceof HTMLElement && e.target.closest('input, select, textarea');
    if (i < 0 || !enabled || !items[i] || e.ctrlKey || e.metaKey || e.altKey || typing) return;
    if (!bar.isConnected || bar.getClientRects().length === 0) return;
    e.preventDefault();
    opts.onUse?.(items[i], i);
  };
  document.addEventListener('keydown', onKey);
  render(opts.hint ?? null);
  return {
    el: bar,
    /** @param {string[]} list the bar's items @param {boolean} canUse before the own roll @param {string|null} [hint] the 大师提示's item */
    set(list, canUse, hint = null) { items = list.slice(0, 3); enabled = canUse; render(hint); },
    destroy() { document.removeEventListener('keydown', onKey); bar.remove(); },
  };
}

/**
 * @param {HTMLElement} host
 * @param {Geo} geo
 * `itemName`: the name of an item or a weather (道具模式), for its icon on the board.
 * `label`: a piece's name for a screen reader, told every piece on the board (`all`) too.
 * @param {{onPick?: (piece:number)=>void, label?: (seat:number, piece:number, progress:number, all:{seat:number, piece:number, p:number}[])=>string, itemName?: (kind:string)=>string, onGrow?: ()=>void}} [opts]
 */
export function createBoard(host, geo, opts = {}) {
  const n = geo.size;
  const fxq = geo.rules === 'feixingqi';
  const col = COLOURS[geo.rules];
  const light = LIGHT[geo.rules];
  const svg = el('svg', { viewBox: `-0.15 -0.15 ${n + 0.3} ${n + 0.3}`, class: 'board ' + geo.rules, role: 'group' });
  // the squares and marks are drawing only (their lane digits read as "1 2 3 4 5 1 2 …"): the
  // pieces, items and weather say where things are
  const gBoard = el('g', { class: 'squares', 'aria-hidden': 'true' }, svg);
  const gMarks = el('g', { class: 'marks', 'aria-hidden': 'true' }, svg);
  const gItems = el('g', { class: 'items' }, svg);
  const gPieces = el('g', { class: 'pieces' }, svg);
  // the weather's badge stands above the pieces: a plane parked on the weather square (fog
  // holds planes there) hid the only mark of where the weather was
  const gBadges = el('g', { class: 'badges' }, svg);
  const gOver = el('g', { class: 'over' }, svg);

  /** Centre point of each loop square (footprint centroid for 飞行棋, cell centre for Ludo). */
  const loopPt = geo.track.map(([r, c]) => [c + 0.5, r + 0.5]);
  const mid = n / 2;

  // ---- background
  el('rect', { x: -0.15, y: -0.15, width: n + 0.3, height: n + 0.3, rx: 0.4, class: 'bg' }, gBoard);

  // ---- bases (hangars / yards)
  const baseEls = [];
  geo.bases.forEach(([r, c], s) => {
    const b = geo.baseSize;
    const g = el('g', { class: 'base', 'data-seat': s }, gBoard);
    el('rect', { x: c + 0.06, y: r + 0.06, width: b - 0.12, height: b - 0.12, rx: 0.35, fill: col[s], class: 'base-rect' }, g);
    if (fxq) {
      el('rect', { x: c + 0.3, y: r + 0.3, width: b - 0.6, height: b - 0.6, rx: 0.25, fill: light[s] }, g);
    } else {
      el('rect', { x: c + 0.9, y: r + 0.9, width: b - 1.8, height: b - 1.8, rx: 0.3, fill: '#fff' }, g);
    }
    for (let k = 0; k < 4; k++) {
      const [x, y] = baseSpot(s, k);
      el('circle', { cx: x, cy: y, r: fxq ? 0.55 : 0.7, fill: fxq ? '#fff' : light[s], stroke: col[s], 'stroke-width': 0.06 }, g);
    }
    baseEls.push(g);
  });

  // ---- loop squares
  geo.track.forEach(([r, c], a) => {
    if (fxq) {
      const poly = rotPoly(FXQ_QUARTER[a % 13], Math.floor(a / 13), n);
      el('polygon', { points: pts(poly), fill: col[a % 4], class: 'sq', 'data-a': a }, gBoard);
      loopPt[a] = centroid(poly);
    } else {
      let fill = '#fff';
      const startOf = a % 13 === 0 ? a / 13 : -1;
      if (startOf >= 0) fill = col[startOf];
      el('rect', { x: c, y: r, width: 1, height: 1, fill, class: 'sq', 'data-a': a }, gBoard);
      if (geo.safe.includes(a) && startOf < 0) star(c + 0.5, r + 0.5, 0.36, gBoard);
      if (startOf >= 0) arrowGlyph(c + 0.5, r + 0.5, startOf, gBoard);
    }
  });

  // ---- lanes, centre, takeoff points
  geo.lanes.forEach((lane, s) => lane.forEach(([r, c], i) => {
    if (fxq) {
      el('rect', { x: c + 0.06, y: r + 0.06, width: 0.88, height: 0.88, rx: 0.12, fill: col[s], class: 'lane' }, gBoard);
      el('text', { x: c + 0.5, y: r + 0.62, class: 'lane-n' }, gBoard).textContent = String(i + 1);
    } else {
      el('rect', { x: c, y: r, width: 1, height: 1, fill: col[s], class: 'sq lane' }, gBoard);
    }
  }));
  // centre block: four triangles meeting in the middle, one per seat, on the side of its goal
  const gr = geo.goals.map(([r]) => r), gc = geo.goals.map(([, c]) => c);
  const x0 = Math.min(...gc), x1 = Math.max(...gc) + 1, y0 = Math.min(...gr), y1 = Math.max(...gr) + 1;
  const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
  geo.goals.forEach(([r, c], s) => {
    const dx = c + 0.5 - cx, dy = r + 0.5 - cy;
    let tri;
    if (Math.abs(dy) > Math.abs(dx)) tri = dy > 0 ? [[x0, y1], [x1, y1], [cx, cy]] : [[x0, y0], [x1, y0], [cx, cy]];
    else tri = dx > 0 ? [[x1, y0], [x1, y1], [cx, cy]] : [[x0, y0], [x0, y1], [cx, cy]];
    el('polygon', { points: pts(tri), fill: col[s], class: 'goal' }, gBoard);
  });
  if (fxq && geo.takeoff) {
    geo.takeoff.forEach(([r, c], s) => {
      const poly = rotPoly(FXQ_TAKEOFF0, s, n);
      el('polygon', { points: pts(poly), fill: col[s], class: 'takeoff' }, gBoard);
      const [x, y] = centroid(poly);
      planeGlyph(x, y, 0.42, s * 90 - 90, gBoard);
    });
    // fly lines: dashed, in the flyer's colour, with the crossed lane square circled
    (geo.fly || []).forEach((f, s) => {
      const [ax, ay] = loopPt[f.from], [bx, by] = loopPt[f.to];
      el('line', { x1: ax, y1: ay, x2: bx, y2: by, stroke: col[s], class: 'flyline' }, gMarks);
      const [r, c] = f.crossed;
      el('circle', { cx: c + 0.5, cy: r + 0.5, r: 0.47, stroke: col[s], class: 'crossed' }, gMarks);
      planeGlyph(ax, ay, 0.3, Math.atan2(by - ay, bx - ax) * 180 / Math.PI, gMarks, 'rgba(255,255,255,.9)');
    });
    // entry arrows: from p50 into L1
    for (let s = 0; s < 4; s++) {
      const a = absOf(geo, s, 50);
      const [ex, ey] = loopPt[a];
      const [lr, lc] = geo.lanes[s][0];
      const dx = lc + 0.5 - ex, dy = lr + 0.5 - ey, len = Math.hypot(dx, dy);
      el('line', { x1: ex, y1: ey, x2: ex + dx / len * 0.75, y2: ey + dy / len * 0.75, class: 'entry-arrow' }, gMarks);
    }
  }

  function star(x, y, r, parent) {
    const p = [];
    for (let i = 0; i < 10; i++) {
      const a = -Math.PI / 2 + i * Math.PI / 5, rr = i % 2 ? r * 0.45 : r;
      p.push([x + rr * Math.cos(a), y + rr * Math.sin(a)]);
    }
    el('polygon', { points: pts(p), class: 'star' }, parent);
  }
  function arrowGlyph(x, y, s, parent) {
    const g = el('g', { transform: `translate(${x} ${y}) rotate(${[-90, 0, 90, 180][s]})` }, parent);
    el('path', { d: 'M-0.28,0H0.22M0.05,-0.18L0.25,0L0.05,0.18', class: 'start-arrow' }, g);
  }
  function planeGlyph(x, y, s, rot, parent, fill = '#fff') {
    const g = el('g', { transform: `translate(${x} ${y}) rotate(${rot}) scale(${s})`, class: 'plane-glyph' }, parent);
    el('path', { d: PLANE_PATH, fill }, g);
  }

  /** Centre of parking spot k of a seat's base. */
  function baseSpot(s, k) {
    const [r, c] = geo.bases[s];
    const h = geo.baseSize / 2;
    return [c + (k % 2) * h + h / 2, r + Math.floor(k / 2) * h + h / 2];
  }

  /** Point of (seat, progress, piece index); progress < 0 = hangar/yard. */
  function pointOf(s, p, k) {
    if (p < 0 || p === undefined || p === null) return baseSpot(s, k);
    if (p >= 56) { const [r, c] = geo.goals[s]; return [c + 0.5, r + 0.5]; }
    if (p >= 51) { const [r, c] = geo.lanes[s][p - 51]; return [c + 0.5, r + 0.5]; }
    if (p === 0 && fxq && geo.takeoff) return centroid(rotPoly(FXQ_TAKEOFF0, s, n));
    const a = absOf(geo, s, p);
    return loopPt[a];
  }
  /** A key that is equal for pieces on the same square. */
  function keyOf(s, p, k) {
    if (p < 0) return `h${s}.${k}`;
    if (p >= 56) return `g${s}`;
    if (p >= 51) return `l${s}.${p}`;
    if (p === 0 && fxq) return `t${s}`;
    return `a${absOf(geo, s, p)}`;
  }

  // ---- pieces
  /** @type {{seat:number, piece:number, p:number, g:SVGGElement, inner:SVGGElement, x:number, y:number, order:number, badge:SVGGElement, plane:SVGGElement|null}[]} */
  let pieces = [];
  let seatsInPlay = [0, 1, 2, 3];
  const PR = fxq ? 0.36 : 0.36;
  /**
   * How much bigger than PR says the pieces are drawn (with their stack offsets, count and
   * rings): on a phone a square is some 22 px and a piece was 17 px across, hard to see and to
   * tap. They grow towards PIECE_PX wide, at most GROW_MAX (a piece then fills its square); on a
   * big board they stay as they are.
   */
  let grow = 1;
  const PIECE_PX = 24, GROW_MAX = 1.3;
  new ResizeObserver(() => {
    const unit = svg.getBoundingClientRect().width / (n + 0.3);
    if (!unit) return;
    const next = +Math.min(GROW_MAX, Math.max(1, PIECE_PX / (2 * PR * unit))).toFixed(2);
    if (next === grow) return;
    grow = next;
    layout();
    opts.onGrow?.();
  }).observe(svg);
  /** The farthest point of each seat's shape from its centre, per unit of its radius (shapePath). */
  const SHAPE_REACH = [1, 0.88 * Math.SQRT2, 1.15 * Math.hypot(0.95, 0.7), 1.2];
  /**
   * How far a piece of `seat` reaches from its centre as drawn now, its rim and growth included:
   * what a thing beside it (the die in a hangar) keeps clear of. @param {number} seat
   */
  function reach(seat) {
    const rim = fxq ? 0.19 : 0.17; // style.css .piece .rim
    return ((fxq ? PR + 0.03 : PR) * SHAPE_REACH[seat] + rim / 2) * grow;
  }

  function makePiece(s, k) {
    // a button a screen reader hears as unavailable until it can move (or be aimed at)
    const g = /** @type {SVGGElement} */ (el('g', { class: 'piece', 'data-seat': s, 'data-piece': k + 1, role: 'button', 'aria-disabled': 'true', style: `--c:${col[s]}` }, gPieces));
    const inner = /** @type {SVGGElement} */ (el('g', { class: 'piece-inner' }, g));
    el('ellipse', { cx: 0.04, cy: 0.1, rx: PR * 0.95, ry: PR * 0.55, class: 'shadow' }, inner);
    // the ring of a piece that may move: the seat's colour between two dark edges (`halo-edge`),
    // so that it shows on a square of any colour, the own seat's included
    el('path', { d: shapePath(s, PR + 0.1), class: 'halo-edge' }, inner);
    el('path', { d: shapePath(s, PR + 0.1), class: 'halo' }, inner);
    // what hops while the piece may move (the shadow and the ring stay on the square)
    const hop = el('g', { class: 'hop' }, inner);
    // 飞行棋: the seat's shape (● ■ ▲ ◆, never colour alone) is a light badge outlined in the
    // seat's colour, a plane in that colour on it heading along the track; Ludo: a token. A dark
    // rim round it: the seat's colour alone faded into its own hangar and squares (yellow on the
    // white hangar spot 1.8:1, on a yellow square 1:1)
    const bodyR = fxq ? PR + 0.03 : PR;
    el('path', { d: shapePath(s, bodyR), class: 'rim' }, hop);
    el('path', { d: shapePath(s, bodyR), fill: fxq ? light[s] : col[s], stroke: fxq ? col[s] : undefined, class: 'body' }, hop);
    if (fxq) {
      const plane = el('g', { class: 'plane' }, hop);
      el('path', { d: PIECE_PLANE, fill: col[s], transform: `scale(${PR * 1.12})` }, plane);
    }
    el('text', { x: 0, y: 0.15, class: 'num' }, hop).textContent = String(k + 1);
    // 护盾: a ring and a small shield shown while the plane is shielded (item mode); a dashed
    // thin ring alone was hard to see on a phone, on blue and green squares above all
    const ring = el('g', { class: 'shield-ring', style: 'display:none' }, hop);
    el('circle', { r: PR + 0.14, fill: 'none', stroke: '#fff', 'stroke-width': 0.14 }, ring);
    el('circle', { r: PR + 0.14, fill: 'none', stroke: '#1565c0', 'stroke-width': 0.08 }, ring);
    const mark = el('g', { transform: `translate(${-PR * 0.9} ${PR * 0.8}) scale(0.6)` }, ring);
    el('circle', { r: 0.3, fill: '#fff', stroke: '#1565c0', 'stroke-width': 0.05 }, mark);
    ITEM_GLYPH.shield(mark);
    // the count of a stack (迭子): the seat's dark colour, white figures, a white edge
    const badge = /** @type {SVGGElement} */ (el('g', { class: 'badge', transform: `translate(${PR * 0.9} ${-PR * 0.9})` }, g));
    el('rect', { x: -0.24, y: -0.17, width: 0.48, height: 0.34, rx: 0.17, fill: TEXT_COLOURS[geo.rules][s] }, badge);
    el('text', { y: 0.1 }, badge);
    const piece = { seat: s, piece: k, p: -1, g, inner, x: 0, y: 0, order: 0, badge, plane: /** @type {SVGGElement|null} */ (hop.querySelector('.plane')) };
    g.addEventListener('click', () => {
      if (g.classList.contains('target')) onTarget?.(s, k);
      else if (g.classList.contains('legal')) opts.onPick?.(k);
    });
    // pointed at or focused, a movable piece shows where it would land (the click then moves it)
    g.addEventListener('pointerenter', (e) => { if (e.pointerType !== 'touch') preview(piece); });
    g.addEventListener('focus', () => preview(piece));
    g.addEventListener('pointerleave', () => preview(null));
    g.addEventListener('blur', () => preview(null));
    // Enter or Space, as on any button (Space did nothing: the roll's key went by)
    g.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter' && e.key !== ' ') return;
      if (g.classList.contains('target')) { e.preventDefault(); e.stopPropagation(); onTarget?.(s, k); }
      else if (g.classList.contains('legal')) { e.preventDefault(); e.stopPropagation(); opts.onPick?.(k); }
    });
    return piece;
  }

  // A tap near a piece that can move (or be aimed at) counts as a tap on it: a plane is some 23 px
  // wide on a phone (it was 18, and a tap 10 px off its centre mostly missed). The tap goes
  // to the nearest such piece within about 22 CSS px (a 44 px target, never less than the piece
  // itself), so of two close ones the nearer wins and neither steals the other's taps. A tap right
  // on a usable piece is its own (the listener above); the keyboard is untouched. Not while an
  // item asks for a target: a missile cannot be taken back, so it takes a tap on the plane itself.
  svg.addEventListener('click', (e) => {
    const hit = /** @type {Element} */ (e.target);
    // a tap on any piece is that piece's (another seat's plane beside a movable one is no tap
    // on the movable one)
    if (hit.closest?.('.piece')) return;
    if (onTarget && pieces.some((pc) => pc.g.classList.contains('target'))) return;
    const usable = pieces.filter((pc) => pc.g.classList.contains('legal'));
    const m = /** @type {SVGSVGElement} */ (svg).getScreenCTM();
    if (!usable.length || !m || !m.a) return;
    const at = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
    const reach = Math.max((PR + 0.06) * grow, 22 / m.a);
    let best = null, bestD = reach;
    // in drawing order, ties to the later one: the one drawn on top, as a direct tap would
    for (const g of gPieces.children) {
      const pc = usable.find((q) => q.g === g);
      if (!pc) continue;
      const d = Math.hypot(pc.x - at.x, pc.y - at.y);
      if (d <= bestD) { best = pc; bestD = d; }
    }
    if (!best) return;
    opts.onPick?.(best.piece);
  });

  /**
   * The way a plane at (seat, progress) points, in degrees (0 = +x): towards its next square; in
   * the hangar, as the takeoff square's plane; in the centre, as it came in.
   */
  function headingOf(s, p) {
    if (p < 0) return s * 90 - 90;
    const from = p >= 56 ? 55 : p, to = p >= 56 ? 56 : p + 1;
    const [x0, y0] = pointOf(s, from, 0), [x1, y1] = pointOf(s, to, 0);
    return Math.atan2(y1 - y0, x1 - x0) * 180 / Math.PI;
  }
  /** @param {{plane:SVGGElement|null}} pc @param {number} deg */
  function turnTo(pc, deg) {
    pc.plane?.setAttribute('transform', `rotate(${+deg.toFixed(1)})`);
  }

  function place(pc, x, y) {
    pc.x = x; pc.y = y;
    pc.g.setAttribute('transform', `translate(${x.toFixed(3)} ${y.toFixed(3)})${grow === 1 ? '' : ` scale(${grow})`}`);
  }

  /** Lays out every piece at its square: stacks get a count badge; mixed squares spread out. */
  function layout() {
    /** @type {Map<string, typeof pieces>} */
    const groups = new Map();
    for (const pc of pieces) {
      const k = keyOf(pc.seat, pc.p, pc.piece);
      if (!groups.has(k)) groups.set(k, []);
      groups.get(k).push(pc);
    }
    for (const list of groups.values()) {
      const seatsHere = [...new Set(list.map((pc) => pc.seat))];
      list.forEach((pc, i) => {
        const [x, y] = pointOf(pc.seat, pc.p, pc.piece);
        let dx = 0, dy = 0;
        if (seatsHere.length > 1) {
          const j = seatsHere.indexOf(pc.seat);
          dx = (j % 2 ? 0.2 : -0.2); dy = (j > 1 ? 0.2 : -0.2) + (seatsHere.length === 2 ? 0.2 : 0);
        }
        dx *= grow; dy *= grow;
        const same = list.filter((q) => q.seat === pc.seat);
        const idx = same.indexOf(pc);
        // drawn by the square's row, a stack bottom first: its top piece and count over the rest
        pc.order = y + dy + idx * 0.001;
        dx += idx * 0.05 * grow; dy -= idx * 0.07 * grow;
        place(pc, x + dx, y + dy);
        turnTo(pc, headingOf(pc.seat, pc.p));
        pc.inner.setAttribute('transform', seatsHere.length > 1 ? 'scale(0.72)' : '');
        const top = idx === same.length - 1;
        const count = pc.p >= 0 && pc.p < 56 ? same.length : (pc.p >= 56 ? same.length : 1);
        pc.badge.style.display = top && count > 1 ? '' : 'none';
        pc.badge.querySelector('text').textContent = '×' + count;
        pc.g.classList.toggle('finished', pc.p >= 56);
        pc.g.classList.toggle('stacked', count > 1);
      });
    }
    [...pieces].sort((a, b) => a.order - b.order).forEach((pc) => gPieces.appendChild(pc.g));
    updateLabels();
  }

  function updateLabels() {
    const all = pieces.map((pc) => ({ seat: pc.seat, piece: pc.piece, p: pc.p }));
    for (const pc of pieces) {
      pc.g.setAttribute('aria-label', opts.label ? opts.label(pc.seat, pc.piece, pc.p, all) : `${pc.seat} ${pc.piece + 1}`);
    }
    for (const g of svg.querySelectorAll('[data-kind]')) nameIcon(g);
  }
  /** An item's or weather's icon says what it is (a tooltip, and its name to a screen reader). @param {Element} g */
  function nameIcon(g) {
    const name = opts.itemName?.(g.getAttribute('data-kind') ?? '') ?? '';
    g.setAttribute('aria-label', name);
    const title = g.querySelector(':scope > title') ?? el('title', {}, g);
    if (g.firstChild !== title) g.prepend(title);
    title.textContent = name;
  }

  /**
   * Sets every piece: state[seat] = array of progress values (-1 hangar/yard, 56 finished).
   * @param {number[][]} state @param {number[]} seats
   */
  function setPieces(state, seats) {
    seatsInPlay = seats;
    const want = seats.reduce((n, s) => n + (state[s]?.length || 0), 0);
    if (pieces.length !== want || pieces.some((pc) => !seats.includes(pc.seat))) {
      pieces.forEach((pc) => pc.g.remove());
      pieces = [];
      for (const s of seats) (state[s] || []).forEach((_, k) => pieces.push(makePiece(s, k)));
    }
    for (const pc of pieces) pc.p = state[pc.seat][pc.piece];
    layout();
  }
  const find = (s, k) => pieces.find((pc) => pc.seat === s && pc.piece === k);

  // ---- animation
  let speed = 1; // multiplier of durations; 0 = instant
  let skipAll = false;
  function tween(ms, f) {
    if (speed === 0 || skipAll || ms <= 0) { f(1); return Promise.resolve(); }
    return new Promise((res) => {
      const t0 = performance.now();
      const d = ms * speed;
      const tick = (now) => {
        const u = Math.min(1, (now - t0) / d);
        f(u);
        if (u < 1) requestAnimationFrame(tick); else res();
      };
      requestAnimationFrame(tick);
    });
  }
  const ease = (u) => u < 0.5 ? 2 * u * u : 1 - Math.pow(-2 * u + 2, 2) / 2;
  async function moveTo(pc, x, y, ms, arc = 0) {
    const sx = pc.x, sy = pc.y;
    // a plane flies nose first (one sent home keeps its heading: it is not flying there)
    if (arc < 1 && Math.hypot(x - sx, y - sy) > 0.05) turnTo(pc, Math.atan2(y - sy, x - sx) * 180 / Math.PI);
    gPieces.appendChild(pc.g);
    pc.inner.setAttribute('transform', '');
    pc.badge.style.display = 'none';
    await tween(ms, (u) => {
      const e = ease(u);
      const lift = arc ? Math.sin(Math.PI * u) * arc : 0;
      place(pc, sx + (x - sx) * e, sy + (y - sy) * e - lift);
      pc.inner.setAttribute('transform', arc ? `scale(${1 + lift * 0.25})` : '');
    });
  }
  function flash(x, y, colour, cls = 'burst') {
    const c = el('circle', { cx: x, cy: y, r: 0.2, stroke: colour, class: cls }, gOver);
    tween(420, (u) => { c.setAttribute('r', String(0.2 + u * 0.8)); c.setAttribute('opacity', String(1 - u)); }).then(() => c.remove());
  }

  /**
   * Animates the engine's events (Step, Jump, Fly, Captured, TakeOff, Bounce, Finished, Penalty...).
   * Each event is a plain object with a `type` and the fields of crates/rules Event.
   * @param {any[]} events @param {(e:any)=>void} [onEvent]
   */
  async function animate(events, onEvent) {
    skipAll = false;
    for (const e of events) {
      await onEvent?.(e);
      const pc = e.piece !== undefined && e.seat !== undefined ? find(e.seat, e.piece) : null;
      const go = (p, ms, arc) => { pc.p = p; const [x, y] = pointOf(pc.seat, p, pc.piece); return moveTo(pc, x, y, ms, arc); };
      switch (e.kind) {
        case 'takeOff': if (pc) await go(0, 320, 0.3); break;
        case 'step': if (pc) await go(e.to, 150, 0.12); break;
        case 'jump': if (pc) await go(e.to, 380, 0.9); break;
        case 'fly': if (pc) await go(e.to, 700, 0.35); break;
        case 'bounce': case 'parked': case 'blocked': if (pc) flash(pc.x, pc.y, '#333'); break;
        case 'captured': {
          const v = find(e.victimSeat, e.victimPiece);
          if (v) {
            flash(v.x, v.y, col[v.seat]);
            v.p = -1;
            const [x, y] = pointOf(v.seat, -1, v.piece);
            await moveTo(v, x, y, 450, 1.2);
          }
          break;
        }
        case 'collision': if (pc) flash(pc.x, pc.y, '#000'); break;
        case 'finished': if (pc) { pc.p = 56; flash(pc.x, pc.y, col[pc.seat], 'burst gold'); } break;
        // ---- item mode (docs/PROTOCOL.md "Items (proposal)")
        case 'itemAppeared': await popIn(glyphAt(e.item, e.square)); break;
        case 'weatherAppeared': await popIn(glyphAt(e.weather, e.square, true)); break;
        case 'weatherVanished': {
          const w = gItems.querySelector(`.weather-cell[data-a="${e.square}"]`);
          gBadges.querySelector(`.weather-badge[data-a="${e.square}"]`)?.remove();
          if (w) await tween(400, (u) => w.setAttribute('opacity', String(1 - u)));
          w?.remove();
          break;
        }
        case 'itemPicked': {
          const ic = gItems.querySelector(`.item-icon[data-a="${e.square}"]`);
          if (ic) {
            const [x0, y0] = loopPt[e.square], [x1, y1] = baseSpot(e.seat, 0);
            await tween(500, (u) => {
              const k = ease(u);
              ic.setAttribute('transform', `translate(${x0 + (x1 - x0) * k} ${y0 + (y1 - y0) * k - Math.sin(Math.PI * u) * 0.8}) scale(${1 - 0.5 * u})`);
            });
            ic.remove();
          }
          break;
        }
        case 'itemUsed': {
          const [x, y] = baseSpot(e.seat, 0);
          const g = itemGlyph(e.use?.item, x, y, 0.9, gOver);
          await tween(450, (u) => g.setAttribute('opacity', String(1 - u * 0.8)));
          g.remove();
          if (e.use?.item === 'shield') { const t = find(e.seat, e.use.piece); if (t) setShielded(t, true); }
          break;
        }
        case 'missileHit': {
          const v = find(e.victimSeat, e.victimPiece);
          if (v) {
            const [sx, sy] = baseSpot(e.seat, 0);
            const m = itemGlyph('missile', sx, sy, 0.6, gOver);
            await tween(450, (u) => {
              const k = ease(u);
              m.setAttribute('transform', `translate(${sx + (v.x - sx) * k} ${sy + (v.y - sy) * k}) rotate(${Math.atan2(v.y - sy, v.x - sx) * 180 / Math.PI}) scale(0.6)`);
            });
            m.remove();
            flash(v.x, v.y, '#e53935');
            v.p = -1;
            const [x, y] = pointOf(v.seat, -1, v.piece);
            await moveTo(v, x, y, 450, 1.2);
          }
          break;
        }
        case 'shieldHeld': if (pc) flash(pc.x, pc.y, '#1e88e5'); break;
        case 'shieldEnded': if (pc) setShielded(pc, false); break;
        case 'weatherStruck': if (pc) await weatherEffect(e.weather, pc.x, pc.y); break;
        case 'penalty': {
          await Promise.all(pieces.filter((q) => q.seat === e.seat).map((q) => {
            q.p = -1; const [x, y] = pointOf(q.seat, -1, q.piece); return moveTo(q, x, y, 500, 1);
          }));
          break;
        }
        default: break;
      }
    }
    layout();
  }

  // ---- highlights
  /**
   * Marks the pieces `seat` may move. One tab stop for them all, the lowest-numbered (a roving
   * tabindex: the arrows go from piece to piece in number order, as the number keys do; Tab
   * followed the drawing order, 1, 4, 3, 2).
   */
  function setLegal(seat, list, landing = {}) {
    const first = Math.min(...list);
    landings = landing;
    preview(null);
    for (const pc of pieces) {
      const legal = pc.seat === seat && list.includes(pc.piece);
      pc.g.classList.toggle('legal', legal);
      // the chooser's other pieces step back a little, so the movable ones stand out (not those
      // home already: they are out of the choice anyway, and a stack's count there grew faint)
      pc.g.classList.toggle('idle', !legal && pc.seat === seat && list.length > 0 && pc.p < 56);
      if (legal) pc.g.setAttribute('tabindex', pc.piece === first ? '0' : '-1'); else pc.g.removeAttribute('tabindex');
      markUsable(pc);
    }
  }
  /** Where each movable piece would land (the state's `choices`: piece → progress, null when a
   * stack collision sends it home), for [`preview`]. @type {Record<number, number|null>} */
  let landings = {};
  /**
   * The landing square of a movable piece, marked while it is pointed at or focused (as the
   * hint's mark, lighter); nothing for a piece that cannot move or would not stay on the board.
   * @param {{seat:number, piece:number, g:SVGGElement}|null} pc
   */
  function preview(pc) {
    gOver.querySelectorAll('.preview-mark, .preview-edge').forEach((x) => x.remove());
    const to = pc && pc.g.classList.contains('legal') ? landings[pc.piece] : null;
    if (!pc || to === null || to === undefined) return;
    const [x, y] = pointOf(pc.seat, to, pc.piece);
    // a dark edge under the dashes: a ring in the seat's colour vanished on a square of that
    // colour, which is where takeoffs and jumps land
    // (as big as a piece grown on a phone: it rings one standing there)
    el('circle', { r: 0.46 * grow, class: 'preview-edge', cx: x, cy: y }, gOver);
    el('circle', { r: 0.46 * grow, class: 'preview-mark', cx: x, cy: y, 'data-piece': pc.piece + 1, style: `--c:${col[pc.seat]}` }, gOver);
  }
  /** `aria-disabled` as the piece stands: usable when it can move or be aimed at. */
  function markUsable(pc) {
    const usable = pc.g.classList.contains('legal') || pc.g.classList.contains('target');
    pc.g.setAttribute('aria-disabled', String(!usable));
  }
  /** @type {((seat:number, piece:number)=>void)|null} */
  let onTarget = null;
  /**
   * The targeting step of an item (护盾: an own plane, 导弹: an enemy plane): these planes are
   * marked and focusable, a click or Enter on one calls `cb(seat, piece)`. An empty list ends it.
   * @param {number[][]} list [seat, piece] pairs @param {((seat:number, piece:number)=>void)|null} [cb]
   */
  function setTargets(list, cb = null) {
    onTarget = list.length ? cb : null;
    for (const pc of pieces) {
      const on = list.some(([s, k]) => s === pc.seat && k === pc.piece);
      pc.g.classList.toggle('target', on);
      if (on) pc.g.setAttribute('tabindex', '0');
      else if (!pc.g.classList.contains('legal')) pc.g.removeAttribute('tabindex');
      markUsable(pc);
    }
  }
  /** Focuses the next (dir 1) or previous (-1) target plane. */
  function focusTarget(dir = 1) {
    const list = pieces.filter((pc) => pc.g.classList.contains('target'));
    if (!list.length) return;
    const i = list.findIndex((pc) => pc.g === document.activeElement);
    /** @type {any} */ (list[(i + dir + list.length) % list.length].g).focus();
  }
  function setTurn(seat) {
    baseEls.forEach((g, s) => g.classList.toggle('turn', s === seat));
    svg.dataset.turn = String(seat);
  }
  /** Marks the hint: the piece and its landing square. */
  function setHint(h) {
    gOver.querySelectorAll('.hint-mark').forEach((x) => x.remove());
    pieces.forEach((pc) => pc.g.classList.remove('hinted'));
    if (!h) return;
    // the hint's mark replaces a pointed-at or focused piece's landing ring (H pressed with a
    // piece focused): two landing marks at once read as two advices
    preview(null);
    const pc = find(h.seat, h.piece);
    if (pc) pc.g.classList.add('hinted');
    if (h.to !== undefined && h.to !== null) {
      const [x, y] = pointOf(h.seat, h.to, h.piece);
      if (pc) {
        // a dashed arrow from the piece to where it lands
        const dx = x - pc.x, dy = y - pc.y, len = Math.hypot(dx, dy);
        if (len > 1.6) {
          const ux = dx / len, uy = dy / len;
          el('line', { x1: pc.x + ux * 0.45 * grow, y1: pc.y + uy * 0.45 * grow, x2: x - ux * 0.55 * grow, y2: y - uy * 0.55 * grow, class: 'hint-mark hint-arrow' }, gOver);
        }
      }
      const g = el('g', { class: 'hint-mark', transform: `translate(${x} ${y})` }, gOver);
      el('circle', { r: 0.48 * grow }, g);
      el('path', { d: 'M-0.22,0L-0.05,0.18L0.25,-0.2', transform: `scale(${grow})` }, g);
    }
  }
  function focusLegal(dir = 1) {
    const legal = pieces.filter((pc) => pc.g.classList.contains('legal')).sort((a, b) => a.piece - b.piece);
    if (!legal.length) return;
    const i = legal.findIndex((pc) => pc.g === document.activeElement);
    const next = legal[(i + dir + legal.length) % legal.length];
    for (const pc of legal) pc.g.setAttribute('tabindex', pc === next ? '0' : '-1');
    /** @type {any} */ (next.g).focus();
  }

  // ---- item mode: items and weather on the board, shields on planes (RULES.md §10.3)
  /**
   * The icon of item or weather `kind` at loop square `a`; a weather cell gets a tinted square
   * behind its glyph, and a small badge of it in the square's corner above any plane on it.
   */
  function glyphAt(kind, a, weather = false) {
    const [x, y] = loopPt[a];
    const g = el('g', { class: weather ? 'weather-cell' : 'item-icon', 'data-a': a, 'data-kind': kind, role: 'img', transform: `translate(${x} ${y})` }, gItems);
    if (weather) el('rect', { x: -0.5, y: -0.5, width: 1, height: 1, rx: 0.2, fill: 'rgba(40,60,90,.35)' }, g);
    else el('circle', { r: 0.36, fill: '#fff', stroke: '#333', 'stroke-width': 0.04 }, g);
    (weather ? WEATHER_GLYPH : ITEM_GLYPH)[kind]?.(g);
    nameIcon(g);
    if (weather) {
      const badge = el('g', { class: 'weather-badge', 'data-a': a, 'data-kind': kind, role: 'img', transform: `translate(${x + 0.34} ${y - 0.34}) scale(0.5)` }, gBadges);
      el('circle', { r: 0.42, fill: 'rgb(40,60,90)', stroke: '#fff', 'stroke-width': 0.06 }, badge);
      WEATHER_GLYPH[kind]?.(badge);
      nameIcon(badge);
    }
    return g;
  }
  async function popIn(g) {
    const t = g.getAttribute('transform');
    await tween(300, (u) => g.setAttribute('transform', `${t} scale(${0.2 + 0.8 * ease(u)})`));
    g.setAttribute('transform', t);
  }
  function itemGlyph(kind, x, y, size, parent) {
    const g = el('g', { transform: `translate(${x} ${y}) scale(${size})` }, parent);
    el('circle', { r: 0.36, fill: '#fff', stroke: '#333', 'stroke-width': 0.04 }, g);
    ITEM_GLYPH[kind]?.(g);
    return g;
  }
  function setShielded(pc, on) {
    const ring = pc.inner.querySelector('.shield-ring');
    if (ring) ring.style.display = on ? '' : 'none';
    pc.g.classList.toggle('shielded', on);
  }
  async function weatherEffect(kind, x, y) {
    const g = el('g', { transform: `translate(${x} ${y})` }, gOver);
    WEATHER_GLYPH[kind]?.(g);
    await tween(kind === 'storm' ? 500 : 400, (u) => {
      g.setAttribute('opacity', String(kind === 'storm' ? (Math.floor(u * 6) % 2 ? 0.3 : 1) : 1 - u));
      g.setAttribute('transform', `translate(${x + (kind === 'tailwind' ? u * 0.6 : 0)} ${y}) scale(${1 + u * 0.4})`);
    });
    g.remove();
  }
  /**
   * Draws the item mode's state (docs/PROTOCOL.md "Items (proposal)"): items on the board, the
   * weather cell, shields on planes. `null` clears it (the plain game).
   * @param {{board?:{square:number,item:string}[], weather?:{square:number,kind:string}|null, shields?:number[][]}|null} items
   */
  function setItems(items) {
    gItems.replaceChildren();
    gBadges.replaceChildren();
    for (const pc of pieces) setShielded(pc, false);
    if (!items) return;
    if (items.weather) glyphAt(items.weather.kind, items.weather.square, true);
    for (const b of items.board || []) glyphAt(b.item, b.square);
    for (const [s, k] of items.shields || []) { const pc = find(s, k); if (pc) setShielded(pc, true); }
  }

  host.replaceChildren(svg);
  return {
    svg, setPieces, animate, setLegal, setTurn, setHint, focusLegal, pointOf, setItems, setTargets, focusTarget, reach,
    setSpeed(v) { speed = v; },
    skip() { skipAll = true; },
    state() { return pieces.map((pc) => ({ seat: pc.seat, piece: pc.piece, p: pc.p })); },
    relabel: updateLabels,
    geo,
  };
}
