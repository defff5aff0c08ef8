// Two people on one screen (同屏好友), with a reload in the middle of the game.
import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, open, setupGame, playThrough, shot, state, DESKTOP } from './helpers.mjs';

test('hot-seat: two humans play a whole Ludo game, reloading mid-game', { timeout: 150000 }, async () => {
  const b = await launch(DESKTOP);
  try {
    const page = await b.page();
    await open(page);
    await setupGame(page, { rules: 'ludo', players: 2, pieces: 2, seats: { 2: 'human' } });
    const st0 = await state(page);
    assert.deepEqual(st0.seats.map((s) => s.controller), ['human', 'human']);
    const log = await playThrough(page, { reloadAfter: 25 });
    assert.ok(log.reloaded, 'reloaded and resumed');
    const st = await state(page);
    assert.equal(st.phase, 'over');
    await shot(page, 'hotseat-end.png');
    console.log(`hot-seat: ${log.actions} actions by two humans`);
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});
