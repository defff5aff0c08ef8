// The die at 快 speed: every roll's value is drawn, and stays a moment, before the game goes on.
// (The tumble of random faces restarted at each new roll while the screen went on after 133 ms:
// most rolls at 快 were never drawn, a person's own roll with no move among them; the 6's
// colour came before the 6.) The choose prompt no longer says the roll: the die must.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, open, setupGame, state, waitHumanOrEnd } from './helpers.mjs';

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
