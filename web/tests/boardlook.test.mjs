// How the board reads to a player (a review's findings): the 大师提示's mark is the one landing mark
// on the board, not beside a focused piece's landing ring; every seat's pieces stand out on their
// own hangar and on squares of their own colour; pieces are big enough to see and tap on a phone.
import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, open, setupGame, shot, state, waitHumanOrEnd, PHONE, DESKTOP } from './helpers.mjs';

test('H with a piece focused: the hint\'s mark replaces its landing ring; focus shows a ring again', { timeout: 90000 }, async () => {
  const B = await launch(DESKTOP);
  try {
    const page = await B.page();
    await open(page, { lang: 'zh' });
    await setupGame(page, { rules: 'feixingqi', players: 2 });
    // roll by keyboard until a piece can move (a takeoff needs a 6 at first)
    for (let i = 0; i < 300; i++) {
      await waitHumanOrEnd(page);
      const st = await state(page);
      if (st.phase === 'move') break;
      await page.focus('#btn-roll');
      await page.keyboard.press(' ');
      await page.waitForFunction((v) => /** @type {any} */ (window).__fxq.current.st?.version !== v, st.version, { timeout: 15000 });
    }
    assert.equal((await state(page)).phase, 'move', 'a choice came');
    const marks = () => page.evaluate(() => ({
      preview: document.querySelectorAll('#board .preview-mark, #board .preview-edge').length,
      hint: document.querySelectorAll('#board g.hint-mark').length,
      focused: document.activeElement?.closest('.piece')?.getAttribute('data-piece') ?? null,
    }));
    await page.keyboard.press('ArrowRight');
    await page.waitForSelector('#board .preview-mark');
    const before = await marks();
    assert.ok(before.focused, 'a piece is focused');
    assert.equal(before.preview, 2, 'the focused piece shows its landing ring (dashes and edge)');
    await page.keyboard.press('h');
    await page.waitForSelector('#board g.hint-mark', { timeout: 30000 });
    const hinted = await marks();
    await shot(page, 'boardlook-hint-focused.png');
    assert.equal(hinted.preview, 0, `with the hint drawn no other landing ring stays: ${JSON.stringify(hinted)}`);
    // focusing a piece again shows its ring again (from none focused: with one movable piece the
    // arrow would keep the focus where it is, and no focus event come)
    await page.evaluate(() => /** @type {HTMLElement|null} */ (document.activeElement)?.blur());
    await page.keyboard.press('ArrowRight');
    await page.waitForSelector('#board .preview-mark', { timeout: 5000 });
    assert.equal((await marks()).preview, 2);
    assert.deepEqual(B.errors, []);
  } finally { await B.close(); }
});

/** WCAG contrast of two [r, g, b] colours. @param {number[]} a @param {number[]} b */
function contrast(a, b) {
  const lum = (/** @type {number[]} */ c) => c.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

test('every seat\'s pieces stand out on their own hangar and on squares of their own colour', { timeout: 60000 }, async () => {
  const B = await launch(PHONE);
  try {
    const page = await B.page();
    await open(page, { lang: 'zh' });
    await page.waitForSelector('#preview svg.board');
    const seen = await page.evaluate(async () => {
      const m = await import('./js/board.js');
      /** @param {string} c @returns {number[]} */
      const rgba = (c) => {
        const x = document.createElement('canvas').getContext('2d');
        if (!x) throw new Error('no canvas');
        x.fillStyle = c;
        x.fillRect(0, 0, 1, 1);
        return [...x.getImageData(0, 0, 1, 1).data];
      };
      const out = [];
      for (const rules of ['feixingqi', 'ludo']) {
        const geo = m.normalizeGeo(await (await fetch(`api/board/${rules}`)).json());
        const host = document.createElement('div');
        host.style.width = '374px';
        document.body.prepend(host);
        const board = m.createBoard(host, geo, {});
        board.setSpeed(0);
        // each seat: piece 1 in its hangar, piece 2 on its lane (a square of its own colour)
        board.setPieces([0, 1, 2, 3].map(() => [-1, 52, -1, -1]), [0, 1, 2, 3]);
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        const px = host.getBoundingClientRect().width / (geo.size + 0.3);
        for (let s = 0; s < 4; s++) {
          // what lies under a seat's pieces: its hangar's colours (the seat's own, light, white)
          const under = [...new Set([...host.querySelectorAll(`.base[data-seat="${s}"] [fill]`)].map((e) => /** @type {string} */ (e.getAttribute('fill'))))];
          for (const k of [1, 2]) {
            const g = /** @type {Element} */ (host.querySelector(`.piece[data-seat="${s}"][data-piece="${k}"]`));
            // the outermost of the piece's outline: the shape drawn with the widest reach
            const edges = [...g.querySelectorAll('.rim, .body')].map((e) => {
              const cs = getComputedStyle(e);
              const painted = cs.stroke !== 'none';
              const r = /** @type {SVGGraphicsElement} */ (e).getBBox().width / 2;
              return { reach: r + (painted ? parseFloat(cs.strokeWidth) / 2 : 0), colour: painted ? cs.stroke : cs.fill };
            }).sort((a, b) => b.reach - a.reach);
            const band = (edges[0].reach - (edges[1]?.reach ?? edges[0].reach - 0.045)) * px;
            for (const bg of under) {
              const [r, gg, b, a] = rgba(edges[0].colour);
              const back = rgba(bg);
              const over = [r, gg, b].map((v, i) => v * a / 255 + back[i] * (1 - a / 255));
              out.push({ rules, seat: s, piece: k, bg, edge: edges[0].colour, over, back: back.slice(0, 3), band });
            }
          }
        }
        host.remove();
      }
      return out;
    });
    const worst = seen.map((x) => ({ ...x, ratio: contrast(x.over, x.back) })).sort((a, b) => a.ratio - b.ratio);
    for (const rules of ['feixingqi', 'ludo']) {
      const w = /** @type {any} */ (worst.find((x) => x.rules === rules));
      console.log(`${rules}: lowest outline contrast ${w.ratio.toFixed(2)}:1 (seat ${w.seat}, ${w.edge} on ${w.bg}); edge band ${w.band.toFixed(2)} px`);
    }
    for (const x of worst) {
      assert.ok(x.ratio >= 3, `${x.rules} seat ${x.seat} piece ${x.piece}: outline ${x.edge} on ${x.bg} is ${x.ratio.toFixed(2)}:1`);
      assert.ok(x.band >= 1, `${x.rules} seat ${x.seat}: the outline shows ${x.band.toFixed(2)} px wide`);
    }
    assert.deepEqual(B.errors, []);
  } finally { await B.close(); }
});

/**
 * Starts a game of `rules` at this viewport and lays out on its board: red 1 movable (its landing
 * ring shown), red 3 and 4 stacked, yellow 1 beside a green on one square; returns the on-screen
 * sizes of what is drawn, in CSS px.
 * @param {import('playwright-core').Page} page @param {string} rules
 */
async function sizes(page, rules) {
  await setupGame(page, { rules, players: 4 });
  await waitHumanOrEnd(page);
  return page.evaluate(async () => {
    const b = /** @type {any} */ (window).__fxq.current.board;
    const fxq = b.geo.rules === 'feixingqi';
    const G = fxq ? 3 : 1, Y = fxq ? 1 : 2;
    const st = [[5, -1, 20, 20], [-1, -1, -1, -1], [-1, -1, -1, -1], [-1, -1, -1, -1]];
    // yellow's and green's pieces on one loop square (13 squares a seat further on)
    st[Y][0] = 30;
    st[G][0] = ((30 + 13 * (Y - G)) % 52 + 52) % 52;
    b.setPieces(st, [0, 1, 2, 3]);
    b.setLegal(0, [0], { 0: 11 });
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    /** The box round what `sel` finds (all of it), on screen. @param {string} sel */
    const box = (sel) => {
      const rs = [...document.querySelectorAll(`#board ${sel}`)].map((e) => e.getBoundingClientRect());
      const l = Math.min(...rs.map((r) => r.left)), t = Math.min(...rs.map((r) => r.top));
      const w = Math.max(...rs.map((r) => r.right)) - l, h = Math.max(...rs.map((r) => r.bottom)) - t;
      return { w, h, x: l + w / 2, y: t + h / 2 };
    };
    const piece = (/** @type {number} */ s, /** @type {number} */ k) => `.piece[data-seat="${s}"][data-piece="${k}"]`;
    /** @type {any} */ (document.querySelector(`#board ${piece(0, 1)}`)).focus();
    const board = box('svg.board');
    const unit = board.w / (b.geo.size + 0.3);
    // a piece as seen: its badge or token and its plane (not its rings or shadow); the hangar's
    // planes point along an axis (a plane askew has a box too big)
    const pieces = [0, 1, 2, 3].map((s) => box(`${piece(s, 2)} :is(.body, .plane)`));
    const stackTop = [...document.querySelectorAll(`#board .piece[data-seat="0"] .badge`)].find((e) => getComputedStyle(e).display !== 'none');
    const pill = stackTop ? stackTop.getBoundingClientRect() : null;
    const mixed = [box(`${piece(Y, 1)} .body`), box(`${piece(G, 1)} .body`)];
    return {
      unit, pieces: pieces.map((p) => Math.max(p.w, p.h)), square: unit,
      // the movable piece's ring (at rest, outside its body), its landing ring
      body: box(`${piece(0, 1)} .body`).w, halo: box(`${piece(0, 1)} .halo-edge`).w, landing: box('.preview-mark').w,
      pill: pill ? { w: pill.width, h: pill.height, text: stackTop?.textContent } : null,
      mixed: mixed.map((p) => Math.max(p.w, p.h)), mixedApart: Math.hypot(mixed[0].x - mixed[1].x, mixed[0].y - mixed[1].y),
    };
  });
}

test('pieces are big enough to see and tap on a phone, and stay as they were on a desktop', { timeout: 90000 }, async () => {
  for (const [vp, name] of [[PHONE, 'phone'], [DESKTOP, 'desktop']]) {
    // (a browser each: the page would open the game going on, not the set-up)
    for (const rules of ['feixingqi', 'ludo']) {
      const B = await launch(/** @type {any} */ (vp), name === 'phone' ? { isMobile: true, hasTouch: true } : {});
      try {
        const page = await B.page();
        await open(page, { lang: 'zh' });
        const d = await sizes(page, rules);
        await shot(page, `boardlook-size-${rules}-${name}.png`);
        const small = Math.min(...d.pieces), round = d.pieces[0];
        console.log(`${name} ${rules}: a square ${d.unit.toFixed(1)} px, pieces ${d.pieces.map((x) => x.toFixed(1)).join(' ')} px, ring ${d.halo.toFixed(1)}, landing ${d.landing.toFixed(1)}, pill ${d.pill?.h.toFixed(1)}, mixed ${d.mixed.map((x) => x.toFixed(1)).join(' ')} ${d.mixedApart.toFixed(1)} apart`);
        // (a square piece is the smallest: its side is 0.88 of a round one's width)
        if (name === 'phone') assert.ok(round >= 22 && small >= 20, `${rules}: a round piece ≥ 22 px, every piece ≥ 20 px on a 390 px phone: ${d.pieces}`);
        // a round piece (red's) never wider than a square (it would cover its neighbours'), on
        // a desktop as it was
        assert.ok(round <= 1.05 * d.square, `${rules} ${name}: ${round} within a square of ${d.square}`);
        if (name === 'desktop') assert.ok(round >= 0.6 * d.square && round <= 0.85 * d.square, `${rules}: desktop pieces as they were: ${d.pieces}`);
        // the movable ring stands outside the piece, the landing ring would ring one there, the
        // stack's count is a readable pill, two seats on one square each show
        assert.ok(d.halo > d.body + 2, `${rules} ${name}: ring ${d.halo} round a piece of ${d.body}`);
        assert.ok(d.landing >= d.body, `${rules} ${name}: landing ring ${d.landing} for a piece of ${d.body}`);
        assert.equal(d.pill?.text, '×2');
        assert.ok((d.pill?.h ?? 0) >= (name === 'phone' ? 9 : 12), `${rules} ${name}: the count pill is ${d.pill?.h} px tall`);
        assert.ok(d.mixedApart >= 0.5 * Math.min(...d.mixed), `${rules} ${name}: two seats on a square apart: ${d.mixedApart}`);
        assert.deepEqual(B.errors, []);
      } finally { await B.close(); }
    }
  }
});
