// The die at 快 speed: every roll's value is drawn, and stays a moment, before the game goes on.
// (The tumble of random faces restarted at each new roll while the screen went on after 133 ms:
// most rolls at 快 were never drawn, a person's own roll with no move among them; the 6's
// colour came before the 6.) The choose prompt no longer says the roll: the die must.
// And where it is: on the board at the roller's hangar, as the commercial apps have it (in the
// side panel it was under the board on a phone), a button to tap, clear of every plane and square.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, open, setupGame, shot, state, waitHumanOrEnd, DESKTOP, PHONE } from './helpers.mjs';

/** A face counts as drawn when it stayed this long (a tumble's random faces at 快 last less). */
const HELD_MS = 100;

test('快: every roll of a game against computers is drawn on the die', { timeout: 180000 }, async () => {
  const b = await launch();
  try {
    const page = await b.page();
    await open(page, { speed: 'fast' });
    await setupGame(page, { rules: 'feixingqi', players: 4, pieces: 2, seats: { 1: 'easy', 2: 'easy', 3: 'easy' } });
    // every face the die shows (its pips; 0 for the "?"), when, and a 6's look on another face
    await page.evaluate(() => {
      const el = /** @type {HTMLElement} */ (document.getElementById('die'));
      const w = /** @type {any} */ (window);
      w.__faces = /** @type {[number, number][]} */ ([]);
      w.__sixEarly = /** @type {number[]} */ ([]);
      const face = () => el.querySelectorAll('circle').length;
      new MutationObserver(() => {
        const f = face();
        const last = w.__faces[w.__faces.length - 1];
        if (!last || last[0] !== f) w.__faces.push([f, performance.now()]);
        if (el.classList.contains('six') && f !== 6) w.__sixEarly.push(f);
      }).observe(el, { childList: true, subtree: true, attributes: true, attributeFilter: ['class'] });
    });
    // a stretch of the game: the person rolls and takes the first choice, the computers play; it
    // stops at the person's turn (nothing goes on then: the last roll has been told)
    const t0 = Date.now();
    for (;;) {
      if (await waitHumanOrEnd(page, 60000)) break;
      const rolls = await page.evaluate(() => /** @type {any} */ (window).__fxq.current.local.frames.flatMap((f) => f.events || []).filter((e) => e.kind === 'rolled').length);
      if (rolls >= 40 || Date.now() - t0 > 90000) break;
      const st = await state(page);
      if (st.phase === 'move') await page.locator(`svg.board .piece.legal[data-seat="${st.turn}"][data-piece="${st.legal[0] + 1}"]`).dispatchEvent('click');
      else await page.click('#btn-roll');
      await page.waitForFunction((v) => /** @type {any} */ (window).__fxq.current.st?.version !== v, st.version, { timeout: 15000 });
    }
    await page.waitForTimeout(300);
    const { rolled, faces, sixEarly } = await page.evaluate(() => {
      const w = /** @type {any} */ (window);
      return {
        rolled: w.__fxq.current.local.frames.flatMap((f) => f.events || []).filter((e) => e.kind === 'rolled').map((e) => e.die),
        faces: w.__faces, sixEarly: w.__sixEarly,
      };
    });
    // the faces that stayed (the last one stays still)
    const held = faces.filter((f, i) => (i + 1 < faces.length ? faces[i + 1][1] - f[1] : Infinity) >= HELD_MS).map((f) => f[0]);
    // each roll, in order, among them
    let at = 0;
    const missed = [];
    for (const [n, d] of rolled.entries()) {
      const k = held.indexOf(d, at);
      if (k < 0) missed.push(`roll ${n + 1}: ${d}`); else at = k + 1;
    }
    console.log(`${rolled.length} rolls, ${faces.length} faces drawn, ${held.length} held ≥ ${HELD_MS} ms; missed ${missed.length}`);
    assert.ok(rolled.length >= 20, `only ${rolled.length} rolls`);
    assert.deepEqual(missed, [], `rolls never drawn on the die (${missed.length} of ${rolled.length}); rolled ${rolled.join(',')}, held faces ${held.join(',')}`);
    assert.deepEqual(sixEarly, [], 'the 6\'s look before the 6 was drawn');
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});

/**
 * Where the die is at this state, against the board as drawn (screen pixels): in the hangar of
 * the seat to act, clear of its parking spots, of every piece and of every square and lane.
 * @param {import('playwright-core').Page} page
 */
const dieAt = (page) => page.evaluate(() => {
  const st = /** @type {any} */ (window).__fxq.current.st;
  const die = /** @type {HTMLButtonElement} */ (document.getElementById('die'));
  const f = /** @type {SVGSVGElement} */ (die.querySelector('svg')).getBoundingClientRect();
  const c = { x: f.x + f.width / 2, y: f.y + f.height / 2 };
  // the drawn die's corner is 0.592 of its side from its centre (rx 18 and half the stroke of 100)
  const reach = 0.592 * f.width;
  const away = (/** @type {DOMRect} */ r) => Math.hypot(r.x + r.width / 2 - c.x, r.y + r.height / 2 - c.y) - r.width / 2 - reach;
  const base = /** @type {Element} */ (document.querySelector(`#board svg.board .base[data-seat="${st.turn}"]`)).getBoundingClientRect();
  const inBase = c.x > base.left && c.x < base.right && c.y > base.top && c.y < base.bottom;
  const spots = [...document.querySelectorAll(`#board svg.board .base[data-seat="${st.turn}"] circle`)].map((e) => away(e.getBoundingClientRect()));
  // the pieces as drawn, their corners and rims too (a box or a circle round them missed a grown
  // square badge's corner under the die): points of the die's face, on a grid, in no piece's shape
  const face = [];
  for (let i = 0; i <= 12; i++) {
    for (let j = 0; j <= 12; j++) {
      const u = 0.05 + 0.9 * i / 12, v = 0.05 + 0.9 * j / 12;
      // (the rounded corners' cut-off, rx 18 of 100)
      const cu = Math.max(0, Math.abs(u - 0.5) - 0.27), cv = Math.max(0, Math.abs(v - 0.5) - 0.27);
      if (Math.hypot(cu, cv) <= 0.18) face.push(new DOMPoint(f.x + u * f.width, f.y + v * f.height));
    }
  }
  const under = [...document.querySelectorAll('#board svg.board .piece .rim')].filter((e) => {
    const g = /** @type {SVGGeometryElement} */ (e);
    const m = g.getScreenCTM()?.inverse();
    return !!m && face.some((p) => { const q = p.matrixTransform(m); return g.isPointInFill(q) || g.isPointInStroke(q); });
  }).length;
  const squares = [...document.querySelectorAll('#board svg.board :is(.sq, .lane, .takeoff, .goal)')].filter((e) => {
    const r = e.getBoundingClientRect();
    return Math.min(r.right, f.right) - Math.max(r.left, f.left) > 0.5 && Math.min(r.bottom, f.bottom) - Math.max(r.top, f.top) > 0.5;
  }).length;
  const hit = document.elementFromPoint(c.x, c.y);
  return { turn: st.turn, phase: st.phase, tag: die.tagName, disabled: die.disabled, hidden: die.hidden, label: die.getAttribute('aria-label'),
    side: f.width, inBase, spotGap: Math.min(...spots), under, squares, takesTap: !!hit && die.contains(hit) };
});

for (const [name, vp] of [['desktop', DESKTOP], ['phone', PHONE]]) {
  test(`the die sits at the roller's hangar, clear of every plane and square, and a tap on it rolls (${name})`, { timeout: 240000 }, async () => {
    const b = await launch(vp);
    try {
      const page = await b.page();
      await open(page);
      for (const rules of ['feixingqi', 'ludo']) {
        for (const players of [2, 3, 4]) {
          const what = `${rules}, ${players} players`;
          if (await page.isVisible('#view-game')) await page.click('#btn-new');
          // everyone a person at this screen: every seat's hangar in turn, each roll by a tap
          const seats = Object.fromEntries((players === 2 ? [2] : players === 3 ? [1, 2] : [1, 2, 3]).map((s) => [s, 'human']));
          await setupGame(page, { rules, players, pieces: 2, seats });
          const seen = new Set();
          for (let i = 0; i < 80 && seen.size < players; i++) {
            if (await waitHumanOrEnd(page)) break;
            const st = await state(page);
            const at = await dieAt(page);
            assert.equal(at.tag, 'BUTTON', 'the die is a button');
            assert.ok(!at.hidden && at.inBase, `${what}: the die in the hangar of seat ${st.turn}: ${JSON.stringify(at)}`);
            assert.ok(at.spotGap >= 0 && at.under === 0, `${what}: the die clear of the spots (${at.spotGap}) and planes (${at.under} under it)`);
            assert.equal(at.squares, 0, `${what}: the die on no square`);
            // (on a phone 飞行棋's die is as big as the gap between the grown parked planes: 22 px)
            assert.ok(at.side >= 21, `${what}: the die ${at.side} px`);
            if (st.phase === 'move') {
              // the hangar's planes take their taps: the die takes none while it cannot roll
              assert.ok(at.disabled && !at.takesTap, `${what}: the die lets a tap through while a plane is chosen`);
              await page.locator(`svg.board .piece.legal[data-seat="${st.turn}"][data-piece="${st.legal[0] + 1}"]`).dispatchEvent('click');
            } else {
              assert.ok(!at.disabled && at.takesTap && (at.label ?? '').length > 0, `${what}: the die rolls, named (${at.label})`);
              if (!seen.size) await shot(page, `die-${rules}-${players}-${name}.png`);
              seen.add(st.turn);
              // a real click (a tap) at the die, as a person does
              await page.click('#die');
            }
            await page.waitForFunction((v) => /** @type {any} */ (window).__fxq.current.st?.version !== v, st.version, { timeout: 15000 });
          }
          assert.equal(seen.size, players, `${what}: the die came to every seat's hangar`);
        }
      }
      assert.deepEqual(b.errors, []);
    } finally {
      await b.close();
    }
  });
}

test('the die on the board rolls from the keyboard: Enter and Space on it, once each', { timeout: 60000 }, async () => {
  const b = await launch(DESKTOP);
  try {
    const page = await b.page();
    await open(page);
    await setupGame(page, { rules: 'ludo', players: 2, pieces: 2, seats: { 2: 'human' } });
    for (const key of ['Enter', 'Space', 'Enter', 'Space']) {
      await waitHumanOrEnd(page);
      let st = await state(page);
      while (st.phase === 'move') {
        await page.keyboard.press(String(st.legal[0] + 1));
        await page.waitForFunction((v) => /** @type {any} */ (window).__fxq.current.st?.version !== v, st.version, { timeout: 15000 });
        await waitHumanOrEnd(page);
        st = await state(page);
      }
      const rolls = () => page.evaluate(() => /** @type {any} */ (window).__fxq.current.local.frames.filter((/** @type {any} */ f) => f.cause === 'roll').length);
      const before = await rolls();
      await page.focus('#die');
      await page.keyboard.press(key);
      await page.waitForFunction((v) => /** @type {any} */ (window).__fxq.current.st?.version !== v, st.version, { timeout: 15000 });
      await page.waitForTimeout(150);
      assert.equal(await rolls(), before + 1, `${key} on the die rolled once`);
    }
    // its name, in the other language at once (it said the roll in Chinese until the next one):
    // the roll being played, or, the die fresh for the next roll here, what a press does
    await page.waitForTimeout(500);
    const now = await state(page);
    const fresh = now.phase !== 'move';
    assert.match(await page.getAttribute('#die', 'aria-label') ?? '', fresh ? /^掷骰子$/ : new RegExp(`掷出 ${now.die}$`));
    await page.click('#btn-lang');
    assert.match(await page.getAttribute('#die', 'aria-label') ?? '', fresh ? /^Roll$/ : new RegExp(`rolled ${now.die}$`));
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});

test('a roll of mine with no move stays at my hangar, faded once, until the next seat rolls', { timeout: 90000 }, async () => {
  const b = await launch(DESKTOP);
  try {
    const page = await b.page();
    await open(page, { speed: 'mid' });
    await setupGame(page, { rules: 'feixingqi', players: 2, pieces: 2, seats: { 2: 'easy' } });
    // the computer paused while I roll: after a roll of mine with no move, the die is looked at
    // once everything has played out, before the computer rolls
    const paused = async (/** @type {boolean} */ on) => {
      if ((await page.getAttribute('#btn-pause', 'aria-pressed')) !== String(on)) await page.click('#btn-pause');
    };
    let seen = null;
    for (let i = 0; i < 80 && !seen; i++) {
      await paused(false);
      await waitHumanOrEnd(page);
      await paused(true);
      const st = await state(page);
      // (a tap on the die: Space would press the focused 暂停电脑)
      if (st.phase === 'move') await page.keyboard.press(String(st.legal[0] + 1)); else await page.click('#die');
      const after = await page.waitForFunction((v) => {
        const s = /** @type {any} */ (window).__fxq.current.st;
        return s.version !== v && s;
      }, st.version).then((h) => h.jsonValue());
      const skipped = (after.events || []).some((/** @type {any} */ e) => e.kind === 'skip' && e.seat === st.turn);
      if (st.phase === 'move' || !skipped || after.turn === st.turn) continue;
      const rolled = after.events.find((/** @type {any} */ e) => e.kind === 'rolled').die;
      await page.waitForTimeout(2500);
      seen = await page.evaluate(() => {
        const die = /** @type {HTMLButtonElement} */ (document.getElementById('die'));
        return { dieSeat: /** @type {HTMLElement} */ (document.getElementById('board')).dataset.dieSeat, label: die.getAttribute('aria-label'),
          opacity: Number(getComputedStyle(die).opacity) * Number(getComputedStyle(/** @type {Element} */ (die.querySelector('svg'))).opacity) };
      });
      assert.equal(seen.dieSeat, String(st.turn), 'the die stayed at my hangar (it went on to the computer’s)');
      assert.match(seen.label ?? '', new RegExp(`掷出 ${rolled}$`));
      assert.ok(seen.opacity >= 0.5, `my used roll faded once, not twice (${seen.opacity})`);
    }
    assert.ok(seen, 'a roll with no move came');
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});

test('friends at one screen: each opening roll is drawn and held before the next person gets the die', { timeout: 60000 }, async () => {
  const b = await launch(DESKTOP);
  try {
    const page = await b.page();
    await open(page, { speed: 'mid' });
    await setupGame(page, { rules: 'ludo', players: 2, pieces: 2, seats: { 2: 'human' }, opts: { firstPlayer: 'roll' } });
    // every face the die shows (its pips; 0 for the "?") and when
    await page.evaluate(() => {
      const el = /** @type {HTMLElement} */ (document.getElementById('die'));
      const w = /** @type {any} */ (window);
      w.__faces = /** @type {[number, number][]} */ ([]);
      new MutationObserver(() => {
        const f = el.querySelectorAll('circle').length;
        const last = w.__faces[w.__faces.length - 1];
        if (!last || last[0] !== f) w.__faces.push([f, performance.now()]);
      }).observe(el, { childList: true, subtree: true });
    });
    await waitHumanOrEnd(page);
    const st = await state(page);
    assert.equal(st.phase, 'opening');
    await page.keyboard.press(' ');
    // the next person's opening roll: the die has come to them, fresh
    await page.waitForFunction((v) => { const s = /** @type {any} */ (window).__fxq.current.st; return s.version !== v && s.phase === 'opening'; }, st.version, { timeout: 15000 });
    await page.waitForTimeout(1500);
    const { rolled, faces } = await page.evaluate(() => {
      const w = /** @type {any} */ (window);
      const f = w.__fxq.current.local.frames.flatMap((/** @type {any} */ x) => x.events || []).find((/** @type {any} */ e) => e.kind === 'openingRoll');
      /** @type {[number, number][]} */ const fs = w.__faces;
      return { rolled: f?.die, faces: fs.map(([d, at], i) => [d, (fs[i + 1]?.[1] ?? performance.now()) - at]) };
    });
    const held = faces.filter(([d, ms]) => d === rolled && ms >= 300);
    assert.ok(held.length > 0, `the opening roll ${rolled} held on the die: faces ${JSON.stringify(faces)}`);
    assert.equal(faces[faces.length - 1][0], 0, 'then the die is fresh for the next person');
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});

test('a held Enter on the die or 掷骰子 rolls once, though the next roll is theirs again', { timeout: 60000 }, async () => {
  const b = await launch(DESKTOP);
  try {
    const page = await b.page();
    await open(page);
    await setupGame(page, { rules: 'ludo', players: 2, pieces: 2, seats: { 2: 'human' } });
    const rolls = () => page.evaluate(() => /** @type {any} */ (window).__fxq.current.local.frames.filter((/** @type {any} */ f) => f.cause === 'roll').length);
    let tried = false;
    for (let i = 0; i < 40 && !tried; i++) {
      await waitHumanOrEnd(page);
      const st = await state(page);
      if (st.phase === 'move') {
        await page.keyboard.press(String(st.legal[0] + 1));
        await page.waitForFunction((v) => /** @type {any} */ (window).__fxq.current.st?.version !== v, st.version, { timeout: 15000 });
        continue;
      }
      const before = await rolls();
      await page.focus('#die');
      await page.keyboard.down('Enter');
      await page.waitForFunction((v) => /** @type {any} */ (window).__fxq.current.st?.version !== v, st.version, { timeout: 15000 });
      await waitHumanOrEnd(page);
      const next = await state(page);
      // held on: the key repeats (a keydown with repeat set) on the die, or on 掷骰子 where the
      // focus went when the die could not be pressed, rollable again
      const again = next.phase !== 'move' && await page.evaluate(() => ['die', 'btn-roll'].includes(document.activeElement?.id ?? '') && !(/** @type {HTMLButtonElement} */ (document.activeElement)).disabled);
      await page.keyboard.down('Enter');
      await page.waitForTimeout(600);
      await page.keyboard.up('Enter');
      if (!again) continue;
      tried = true;
      assert.equal(await rolls(), before + 1, 'the held key rolled once');
    }
    assert.ok(tried, 'a roll was followed by another, the key held on a roll button');
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});
