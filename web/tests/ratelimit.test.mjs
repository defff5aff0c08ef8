// The server drops messages above its rate (docs/PROTOCOL.md: 20 a second, bursts of 40). When
// computers stepping at full speed had used the budget, a player's own roll was dropped with them
// and Space or the roll button did nothing (a keyboard-only test caught it on a quiet machine).
// The page now sends a dropped action again once the budget has refilled, if the game is still
// where it was.
import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, open, setupGame, waitHumanOrEnd, state, DESKTOP } from './helpers.mjs';

test('a roll refused by the rate limit is sent again, not lost', { timeout: 60000 }, async () => {
  const b = await launch(DESKTOP);
  try {
    const page = await b.page();
    await open(page);
    await setupGame(page, { rules: 'ludo', players: 2, pieces: 2 });
    assert.equal(await waitHumanOrEnd(page), false);
    const st = await state(page);
    assert.ok(st.phase === 'roll' || st.phase === 'opening', JSON.stringify(st));
    // Use up the connection's budget and roll in the same tick: the roll is the 46th message.
    const refused = await page.evaluate(() => {
      const w = /** @type {any} */ (window);
      const codes = [];
      for (let i = 0; i < 45; i++) w.__fxq.net.request({ type: 'sync' }).catch((e) => codes.push(e.code));
      /** @type {HTMLButtonElement} */ (document.getElementById('btn-roll')).click();
      return new Promise((r) => setTimeout(() => r(codes), 300));
    });
    assert.ok(refused.includes('rate_limited'), `the budget was used up: ${JSON.stringify(refused)}`);
    // the roll still happens (sent again after the budget refilled)
    await page.waitForFunction((v) => /** @type {any} */ (window).__fxq.current.st?.version !== v, st.version, { timeout: 5000 });
    const after = await page.evaluate(() => /** @type {any} */ (window).__fxq.current.st.events.some((e) => e.kind === 'rolled' || e.kind === 'openingRoll'));
    assert.ok(after, 'the new state is the roll');
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});
