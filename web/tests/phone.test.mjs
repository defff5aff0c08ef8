// Phones (a touch screen, no mouse): what a QA pass on phones found, asserted where it is cheap.
// A phone on its side shows the board and the roll button in one screen; the set-up's sticky
// start strip lets taps through to the options under it; a tap 16 px off a movable plane's centre
// moves it; a new view opens at its top; a room's lobby shows 开始对局 without scrolling and its
// game has no sideways scroll, the name tags inside the board and off the own hangar planes; a
// tap on another seat's plane is that plane's, not the movable one's beside it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, open, setupGame, shot, state, waitHumanOrEnd } from './helpers.mjs';

const TOUCH = { isMobile: true, hasTouch: true };

/** Rolls (by tapping the roll button) until this screen has a piece to choose; false at the end. */
async function untilMove(page) {
  for (let i = 0; i < 200; i++) {
    if (await waitHumanOrEnd(page)) return false;
    const st = await state(page);
    if (st.phase === 'move') return true;
    await page.tap('#btn-roll');
    await page.waitForFunction((v) => /** @type {any} */ (window).__fxq.current.st?.version !== v, st.version);
  }
  return false;
}

test('phone on its side: board, die and roll button in one screen; touch wording; a long banner wraps', { timeout: 60000 }, async () => {
  const B = await launch({ width: 844, height: 390 }, TOUCH);
  try {
    const page = await B.page();
    await open(page, { lang: 'en' });
    await setupGame(page, { rules: 'ludo', players: 2 });
    await waitHumanOrEnd(page);
    for (const vp of [{ width: 844, height: 390 }, { width: 740, height: 360 }]) {
      await page.setViewportSize(vp);
      await page.waitForTimeout(150);
      const r = await page.evaluate(() => {
        const box = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id)).getBoundingClientRect();
        return { scrollY, roll: box('btn-roll').bottom, die: box('die').bottom, board: box('board').bottom, boardW: box('board').width, rollText: document.getElementById('btn-roll')?.textContent };
      });
      await shot(page, `phone-landscape-${vp.width}.png`);
      assert.equal(r.scrollY, 0);
      for (const k of ['roll', 'die', 'board']) assert.ok(r[k] <= vp.height, `${vp.width}×${vp.height}: ${k} bottom ${r[k]} > ${vp.height}`);
      assert.ok(r.boardW >= vp.height - 80, `the board keeps the screen's height: ${r.boardW}`);
      // no "(Space)" on a phone (a touch screen has no keyboard at hand)
      assert.equal(r.rollText, 'Roll');
    }
    // a long banner wraps inside the board: "Yellow has every piece in the centre: place 1" was
    // kept on one line, 400 px wide, and gave a 360 px phone a sideways scroll, shown or faded
    await page.setViewportSize({ width: 360, height: 640 });
    const wide = await page.evaluate(() => {
      const b = /** @type {HTMLElement} */ (document.getElementById('banner'));
      b.textContent = 'Yellow has every piece in the centre: place 1';
      b.classList.add('show');
      return { page: document.documentElement.scrollWidth, banner: b.getBoundingClientRect().right };
    });
    assert.ok(wide.page <= 360 && wide.banner <= 360, `the banner stays on the screen: ${JSON.stringify(wide)}`);
    assert.ok(!(await page.isVisible('.keys')), 'no key list on a touch screen');
  } finally { await B.close(); }
});

test('phone set-up: a tap on 2 人 under the sticky start strip takes; the game opens at its top', { timeout: 60000 }, async () => {
  const B = await launch({ width: 360, height: 640 }, TOUCH);
  try {
    const page = await B.page();
    await open(page, { lang: 'zh' });
    await page.waitForSelector('#setup-form');
    // scroll so that the 2 人 pill sits right under the strip
    const at = await page.evaluate(() => {
      const pill = /** @type {HTMLElement} */ (document.querySelector('input[name=players][value="2"] + span'));
      const bar = /** @type {HTMLElement} */ (document.querySelector('.setup .start-row'));
      const p = pill.getBoundingClientRect();
      const b0 = bar.getBoundingClientRect();
      window.scrollBy(0, p.top + p.height / 2 - (b0.top + 12));
      const q = pill.getBoundingClientRect(), b = bar.getBoundingClientRect();
      return { x: q.left + q.width / 2, y: q.top + q.height / 2, barTop: b.top, barBottom: b.bottom };
    });
    assert.ok(at.y > at.barTop && at.y < at.barBottom, `the pill is under the strip: ${JSON.stringify(at)}`);
    assert.ok(!(await page.isChecked('input[name=players][value="2"]')));
    await page.touchscreen.tap(at.x, at.y);
    await page.waitForTimeout(200);
    assert.ok(await page.isChecked('input[name=players][value="2"]'), 'the tap on 2 人 went through the strip');
    // started from the bottom of the set-up, the game opens at its top (it kept the scroll)
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    assert.ok(await page.evaluate(() => scrollY) > 300);
    await page.tap('#btn-start');
    await page.waitForSelector('#view-game:not([hidden]) svg.board');
    assert.equal(await page.evaluate(() => scrollY), 0, 'the game view opens at its top');
  } finally { await B.close(); }
});

/** How far off a plane's centre the tap falls, in CSS px (the nearest-piece reach is 22). */
const OFF = 16;
test('phone: a tap 16 px off a movable plane\'s centre moves it', { timeout: 60000 }, async () => {
  const B = await launch({ width: 360, height: 640 }, TOUCH);
  try {
    const page = await B.page();
    await open(page, { lang: 'zh' });
    // (4 players, the default: no option to tap, so the old set-up strip does not get in the way)
    await setupGame(page, { rules: 'feixingqi', players: 4 });
    let tries = 0;
    for (; tries < 12 && await untilMove(page); tries++) {
      const st = await state(page);
      // a legal plane on the loop (a tap beside a hangar plane lands on its hangar, which takes
      // a plane off by itself), tapped OFF px off its centre (outside the plane drawn and its
      // halo, some 11 px at most here), on the side away from the others
      const flying = (st.seats.find((s) => s.seat === st.turn)?.pieces || []).map((p, k) => (typeof p === 'number' && p > 0 && p < 50 ? k : -1)).filter((k) => k >= 0);
      const t = await page.evaluate(([seat, OFF, flying]) => {
        const c = [...document.querySelectorAll(`svg.board .piece.legal[data-seat="${seat}"] .body`)].map((e) => {
          const r = e.getBoundingClientRect();
          return { x: r.left + r.width / 2, y: r.top + r.height / 2, w: r.width, k: Number(/** @type {HTMLElement} */ (e.closest('.piece')).dataset.piece) - 1 };
        });
        const me = c.find((q) => flying.includes(q.k)) || c[0];
        const others = c.filter((q) => q !== me);
        let best = { dx: OFF, dy: 0, d: -1 };
        for (let a = 0; a < 8; a++) {
          const dx = OFF * Math.cos(a * Math.PI / 4), dy = OFF * Math.sin(a * Math.PI / 4);
          const d = Math.min(999, ...others.map((o) => Math.hypot(o.x - me.x - dx, o.y - me.y - dy)));
          if (d > best.d) best = { dx, dy, d };
        }
        scrollTo(0, 0);
        return { x: me.x + best.dx, y: me.y + best.dy, cx: me.x, cy: me.y, w: me.w, k: me.k, nearest: best.d };
      }, [st.turn, OFF, flying]);
      // (the miss is off the plane drawn: a tap there did nothing)
      assert.ok(t.w < 30, `the plane is small: ${t.w}`);
      if (t.nearest < 25 || !flying.includes(t.k)) {
        // two legal planes side by side, or none on the loop: not this case; move one and try
        // the next choice
        await page.touchscreen.tap(t.cx, t.cy);
        await page.waitForFunction((v) => /** @type {any} */ (window).__fxq.current.st?.version !== v, st.version, { timeout: 3000 });
        continue;
      }
      const before = st.seats.find((s) => s.seat === st.turn)?.pieces[t.k];
      // a click, not a touch: Chromium's own touch adjustment snaps some touches to a nearby
      // listener and some not (the old build passed one run in three); the board's handler is
      // what is tested, and it reads clicks
      await page.mouse.click(t.x, t.y);
      await page.waitForFunction((v) => /** @type {any} */ (window).__fxq.current.st?.version !== v, st.version, { timeout: 3000 });
      const after = (await state(page)).seats.find((s) => s.seat === st.turn)?.pieces[t.k];
      assert.notEqual(after, before, `plane ${t.k + 1} moved (progress ${before} → ${after})`);
      return;
    }
    assert.fail('no lone plane on the loop to tap in twelve choices');
  } finally { await B.close(); }
});

test('phone room: 开始对局 in the first screen, no sideways scroll, the name tags off the hangar planes', { timeout: 60000 }, async () => {
  const B = await launch({ width: 390, height: 844 }, TOUCH);
  try {
    const page = await B.page();
    await open(page, { lang: 'zh' });
    await page.waitForSelector('#setup-form');
    await page.tap('#tab-online');
    await page.waitForSelector('#online-form');
    await page.fill('#nick', '小明同学的手机很长的名字');
    await page.dispatchEvent('#nick', 'change');
    await page.check('input[name=players][value="2"]', { force: true });
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.tap('#btn-create');
    await page.waitForSelector('#view-room:not([hidden]) #room-code');
    // the other seat to a computer, then start, without scrolling
    const slot = await page.locator('#slots select').first().getAttribute('id');
    await page.selectOption(`#${slot}`, 'easy');
    await page.waitForFunction(() => !/** @type {HTMLButtonElement} */ (document.getElementById('btn-room-start'))?.disabled, null, { timeout: 10000 });
    const start = await page.evaluate(() => ({ scrollY, bottom: /** @type {HTMLElement} */ (document.getElementById('btn-room-start')).getBoundingClientRect().bottom }));
    await shot(page, 'phone-lobby-390.png');
    assert.equal(start.scrollY, 0, 'the lobby opens at its top');
    assert.ok(start.bottom <= 844, `开始对局 in the first screen: bottom ${start.bottom}`);
    await page.tap('#btn-room-start');
    await page.waitForSelector('#view-game:not([hidden]) svg.board');
    // (attached: the tag of the seat holding the die is hidden)
    await page.waitForSelector('#board .seat-tag', { state: 'attached' });
    await page.waitForTimeout(300);
    await shot(page, 'phone-room-390.png');
    const r = await page.evaluate(() => {
      const board = /** @type {HTMLElement} */ (document.getElementById('board')).getBoundingClientRect();
      const tags = [...document.querySelectorAll('#board .seat-tag')].map((e) => {
        const b = e.getBoundingClientRect();
        const seat = /** @type {HTMLElement} */ (e).dataset.seat;
        // the planes of that seat still in the hangar (progress < 0: the hangar spots)
        const st = /** @type {any} */ (window).__fxq.current.st;
        const inHangar = st.seats.find((/** @type {any} */ s) => String(s.seat) === seat).pieces.map((/** @type {any} */ p, /** @type {number} */ k) => (p.progress ?? -1) < 0 ? k + 1 : 0).filter(Boolean);
        const over = inHangar.filter((k) => {
          const p = /** @type {Element} */ (document.querySelector(`svg.board .piece[data-seat="${seat}"][data-piece="${k}"] .body`)).getBoundingClientRect();
          return p.left < b.right && p.right > b.left && p.top < b.bottom && p.bottom > b.top;
        });
        return { seat, l: b.left, r: b.right, t: b.top, b: b.bottom, over, inHangar: inHangar.length };
      });
      return { sw: document.documentElement.scrollWidth, cw: document.documentElement.clientWidth, scrollY, board: { l: board.left, r: board.right, t: board.top, b: board.bottom }, tags };
    });
    assert.equal(r.scrollY, 0, 'the game opens at its top');
    assert.ok(r.sw <= r.cw, `no sideways scroll: ${r.sw} > ${r.cw}`);
    assert.equal(r.tags.length, 2);
    // the tag of the seat whose hangar holds the die gives way to it (the turn bar names who
    // rolls); the others are in sight, off their planes
    const dieSeat = await page.evaluate(() => /** @type {HTMLElement} */ (document.getElementById('board')).dataset.dieSeat);
    const shown = await page.locator('#board .seat-tag').evaluateAll((els) => els.filter((e) => getComputedStyle(e).visibility === 'visible').map((e) => /** @type {HTMLElement} */ (e).dataset.seat));
    assert.deepEqual(shown, r.tags.map((g) => g.seat).filter((s) => s !== dieSeat), `the die in seat ${dieSeat}'s hangar`);
    assert.equal(shown.length, 1);
    for (const g of r.tags.filter((x) => shown.includes(x.seat))) {
      assert.ok(g.l >= r.board.l - 0.5 && g.r <= r.board.r + 0.5 && g.t >= r.board.t - 0.5 && g.b <= r.board.b + 0.5, `tag inside the board: ${JSON.stringify(g)} ${JSON.stringify(r.board)}`);
      assert.ok(g.inHangar > 0, `seat ${g.seat} has planes in its hangar to cover`);
      assert.deepEqual(g.over, [], `seat ${g.seat}'s tag covers its hangar planes`);
    }
  } finally { await B.close(); }
});

test('phone board: a tap on another seat\'s plane is not a tap on the movable plane beside it', { timeout: 60000 }, async () => {
  const B = await launch({ width: 360, height: 640 }, TOUCH);
  try {
    const page = await B.page();
    await open(page, { lang: 'zh' });
    await page.waitForSelector('#preview svg.board');
    // red's plane on p13 (loop square 11) may move; yellow's on its p1 (square 12) stands next
    // to it, one square (some 20 px on a 290 px board) away: within the near-tap reach of 22 px
    const at = await page.evaluate(async () => {
      const m = await import('./js/board.js');
      const geo = m.normalizeGeo(await (await fetch('api/board/feixingqi')).json());
      const host = document.createElement('div');
      host.style.width = '290px';
      document.body.prepend(host);
      scrollTo(0, 0);
      const picks = /** @type {number[]} */ ([]);
      /** @type {any} */ (window).__picks = picks;
      const board = m.createBoard(host, geo, { onPick: (/** @type {number} */ k) => picks.push(k) });
      board.setSpeed(0);
      board.setPieces([[13, -1, -1, -1], [1, -1, -1, -1], [-1, -1, -1, -1], [-1, -1, -1, -1]], [0, 1, 2, 3]);
      board.setLegal(0, [0]);
      const centre = (/** @type {string} */ sel) => {
        const r = /** @type {Element} */ (host.querySelector(sel)).getBoundingClientRect();
        return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
      };
      return { red: centre('.piece[data-seat="0"][data-piece="1"] .body'), yellow: centre('.piece[data-seat="1"][data-piece="1"] .body') };
    });
    const apart = Math.hypot(at.red.x - at.yellow.x, at.red.y - at.yellow.y);
    assert.ok(apart < 22, `the planes stand within the reach: ${apart}`);
    const picks = () => page.evaluate(() => /** @type {any} */ (window).__picks.slice());
    await page.mouse.click(at.yellow.x, at.yellow.y);
    assert.deepEqual(await picks(), [], 'a tap on yellow\'s plane moved red\'s');
    // 16 px off red, on the side away from yellow: red's
    const ux = (at.red.x - at.yellow.x) / apart, uy = (at.red.y - at.yellow.y) / apart;
    await page.mouse.click(at.red.x + 16 * ux, at.red.y + 16 * uy);
    assert.deepEqual(await picks(), [0]);
  } finally { await B.close(); }
});
