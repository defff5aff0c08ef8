// The pieces on the board: a piece that may move stands out (a thick ring in its seat's colour,
// a hop; the chooser's other pieces dimmed; no motion when the system asks for less); 飞行棋's
// pieces are planes heading along the track, Ludo's are tokens; a stack's count is in the seat's
// colour. A movable piece pointed at or focused rings where it would land, till the hint's mark
// takes its place.
import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, open, shot } from './helpers.mjs';

/** Draws both boards in the page, red to choose among its pieces 1 and 2; returns what is drawn. */
async function drawn(page) {
  await page.waitForSelector('#preview svg.board');
  return page.evaluate(async () => {
    const m = await import('./js/board.js');
    const out = /** @type {Record<string, any>} */ ({});
    for (const rules of ['feixingqi', 'ludo']) {
      const geo = m.normalizeGeo(await (await fetch(`api/board/${rules}`)).json());
      const host = document.createElement('div');
      host.style.width = '380px';
      host.id = `pieces-${rules}`;
      document.body.prepend(host);
      const board = m.createBoard(host, geo, {});
      board.setSpeed(0);
      // red: 1 on the loop, 2 in the hangar, 3 and 4 stacked; yellow: 1 and 2 stacked
      board.setPieces([[5, -1, 20, 20], [3, 3, -1, -1], [-1, -1, -1, -1], [-1, -1, -1, -1]], [0, 1, 2, 3]);
      board.setLegal(0, [0, 1]);
      const q = (/** @type {number} */ s, /** @type {number} */ k) => /** @type {Element} */ (host.querySelector(`.piece[data-seat="${s}"][data-piece="${k}"]`));
      const ring = (/** @type {Element} */ p) => {
        const h = getComputedStyle(/** @type {Element} */ (p.querySelector('.halo')));
        const hop = p.querySelector('.hop');
        return { width: parseFloat(h.strokeWidth), stroke: h.stroke, anim: hop ? getComputedStyle(hop).animationName : 'none', opacity: getComputedStyle(p).opacity, cls: p.getAttribute('class') };
      };
      const badge = /** @type {Element} */ ([...host.querySelectorAll('.piece[data-seat="1"] .badge')].find((b) => getComputedStyle(b).display !== 'none'));
      out[rules] = {
        legal: ring(q(0, 1)), legalHangar: ring(q(0, 2)), idle: ring(q(0, 3)), other: ring(q(1, 1)),
        planes: host.querySelectorAll('.piece .plane').length,
        pieces: host.querySelectorAll('.piece').length,
        heading: q(0, 1).querySelector('.plane')?.getAttribute('transform') ?? null,
        badge: badge ? { text: badge.textContent, fill: badge.querySelector('rect')?.getAttribute('fill') } : null,
      };
    }
    return out;
  });
}

const RED = ['rgb(226, 59, 59)', '#e23b3b'];

test('a movable piece stands out; 飞行棋 pieces are planes, Ludo pieces are not', { timeout: 60000 }, async () => {
  const B = await launch();
  try {
    const page = await B.page();
    await open(page, { lang: 'zh' });
    const d = await drawn(page);
    await shot(page, 'pieces-movable.png');
    for (const rules of ['feixingqi', 'ludo']) {
      const r = d[rules];
      for (const l of [r.legal, r.legalHangar]) {
        assert.match(l.cls, /\blegal\b/);
        assert.ok(RED.includes(l.stroke), `${rules}: the ring is in the seat's colour: ${l.stroke}`);
        assert.ok(l.width >= 2 * r.other.width, `${rules}: the ring is thick: ${l.width} vs ${r.other.width}`);
        assert.equal(l.anim, 'hop', `${rules}: a movable piece hops`);
        assert.equal(l.opacity, '1');
      }
      assert.equal(r.other.anim, 'none', `${rules}: another seat's piece stays still`);
      assert.match(r.idle.cls, /\bidle\b/, `${rules}: the chooser's piece that cannot move is marked`);
      assert.ok(Number(r.idle.opacity) < 1, `${rules}: and dimmed`);
      assert.doesNotMatch(r.other.cls, /\bidle\b/, `${rules}: other seats' pieces are not dimmed`);
      assert.deepEqual(r.badge, { text: '×2', fill: rules === 'ludo' ? '#1e7a3a' : '#8a6700' }, `${rules}: the stack count is in the seat's colour`);
    }
    assert.equal(d.feixingqi.planes, d.feixingqi.pieces, 'every 飞行棋 piece is a plane');
    assert.match(String(d.feixingqi.heading), /^rotate\(/, 'a plane points along the track');
    assert.equal(d.ludo.planes, 0, 'Ludo\'s pieces are tokens');
    assert.deepEqual(B.errors, []);
  } finally { await B.close(); }
});

test('reduced motion: a movable piece keeps its ring and does not hop', { timeout: 60000 }, async () => {
  const B = await launch(undefined, { reducedMotion: 'reduce' });
  try {
    const page = await B.page();
    await open(page, { lang: 'zh' });
    const d = await drawn(page);
    for (const rules of ['feixingqi', 'ludo']) {
      assert.equal(d[rules].legal.anim, 'none', `${rules}: no hop`);
      assert.ok(RED.includes(d[rules].legal.stroke), `${rules}: the ring is there`);
      assert.ok(d[rules].legal.width >= 2 * d[rules].other.width);
    }
  } finally { await B.close(); }
});

test('a movable piece pointed at or focused shows where it would land, not beside the hint; nothing for the others', { timeout: 60000 }, async () => {
  const B = await launch();
  try {
    const page = await B.page();
    await open(page, { lang: 'zh' });
    await page.waitForSelector('#preview svg.board');
    const r = await page.evaluate(async () => {
      const m = await import('./js/board.js');
      const geo = m.normalizeGeo(await (await fetch('api/board/feixingqi')).json());
      const host = document.createElement('div');
      host.style.width = '380px';
      document.body.prepend(host);
      const board = m.createBoard(host, geo, {});
      board.setSpeed(0);
      // the landings as the state's choices give them: red 1 (on p5) to p11, red 2 (in the
      // hangar) to its takeoff point
      board.setPieces([[5, -1, -1, -1], [3, -1, -1, -1], [-1, -1, -1, -1], [-1, -1, -1, -1]], [0, 1, 2, 3]);
      board.setLegal(0, [0, 1], { 0: 11, 1: 0 });
      const q = (/** @type {number} */ s, /** @type {number} */ k) => /** @type {SVGGElement} */ (host.querySelector(`.piece[data-seat="${s}"][data-piece="${k}"]`));
      const mark = () => {
        const c = host.querySelector('.preview-mark');
        return c ? [Number(c.getAttribute('cx')).toFixed(2), Number(c.getAttribute('cy')).toFixed(2), c.getAttribute('data-piece')].join(',') : null;
      };
      const at = (/** @type {number} */ p) => board.pointOf(0, p, 0).map((v) => v.toFixed(2)).join(',');
      const out = { none: mark() };
      q(0, 1).focus();
      out.one = mark(); out.oneWant = `${at(11)},1`;
      q(0, 1).blur();
      out.blurred = mark();
      q(0, 2).dispatchEvent(new PointerEvent('pointerenter', { pointerType: 'mouse' }));
      out.two = mark(); out.twoWant = `${board.pointOf(0, 0, 1).map((v) => v.toFixed(2)).join(',')},2`;
      q(0, 2).dispatchEvent(new PointerEvent('pointerleave', { pointerType: 'mouse' }));
      out.left = mark();
      // yellow's plane cannot move: no mark
      q(1, 1).dispatchEvent(new PointerEvent('pointerenter', { pointerType: 'mouse' }));
      out.other = mark();
      // the hint's mark takes its place (dashes and edge); a piece focused again shows its own
      const rings = () => host.querySelectorAll('.preview-mark, .preview-edge').length;
      q(0, 1).focus();
      out.focusedRings = rings();
      board.setHint({ seat: 0, piece: 1, to: 0 });
      out.hinted = [rings(), host.querySelectorAll('g.hint-mark').length];
      q(0, 2).focus();
      out.again = mark();
      // the next choice clears it
      q(0, 1).focus();
      board.setLegal(-1, []);
      out.cleared = mark();
      out.clearedRings = rings();
      return out;
    });
    assert.equal(r.none, null);
    assert.equal(r.one, r.oneWant, 'focused: its landing square');
    assert.equal(r.blurred, null);
    assert.equal(r.two, r.twoWant, 'pointed at: its landing square');
    assert.equal(r.left, null);
    assert.equal(r.other, null, 'a piece that cannot move shows nothing');
    assert.equal(r.focusedRings, 2);
    assert.deepEqual(r.hinted, [0, 1], 'with the hint drawn, no landing ring beside its mark');
    assert.equal(r.again, r.twoWant, 'focused after the hint: its landing square again');
    assert.equal(r.cleared, null);
    assert.equal(r.clearedRings, 0);
    assert.deepEqual(B.errors, []);
  } finally {
    await B.close();
  }
});
