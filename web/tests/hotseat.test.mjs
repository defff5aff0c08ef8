// Two people on one screen (同屏好友), with a reload in the middle of the game.
import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, open, setupGame, playThrough, shot, state, waitHumanOrEnd, DESKTOP } from './helpers.mjs';

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
    // the end screen's ranking names the two as the game screen did: 玩家 1, 玩家 2, no one 你
    const ranking = await page.locator('#end table').first().innerText();
    assert.match(ranking, /玩家 1/);
    assert.match(ranking, /玩家 2/);
    assert.doesNotMatch(ranking, /同屏好友|你/);
    // and so does the headline: the winner's seat and player (红方（玩家 1）获胜！)
    const winner = await page.evaluate(() => /** @type {any} */ (window).__fxq.current.st.over.ranking[0]);
    assert.match((await page.locator('#end-you').innerText()).trim(), new RegExp(`^\\S+（玩家 ${winner === 0 ? 1 : 2}）获胜！$`));
    // in the winner's own colour (it was the red of "you won" whoever won): Ludo's seat 0 red,
    // seat 2 yellow, as text dark enough on white
    assert.equal(await page.locator('#end-you').evaluate((e) => getComputedStyle(e).color), winner === 0 ? 'rgb(198, 40, 40)' : 'rgb(138, 103, 0)');
    // the confetti falls behind the words, never over them: drawn again (the fall starts again),
    // each piece crossing the small line or the headline is under the words at that point
    await page.evaluate(() => /** @type {any} */ (window).__fxq.rooms.d.refreshEnd());
    let crossings = 0;
    for (let i = 0; i < 30; i++) {
      const over = await page.evaluate(() => {
        const words = ['#end-title', '#end-you'].map((s) => /** @type {Element} */ (document.querySelector(s)).getBoundingClientRect());
        let n = 0, on = 0;
        for (const c of document.querySelectorAll('#end .confetti i')) {
          const r = c.getBoundingClientRect();
          for (const w of words) {
            const x = (Math.max(r.left, w.left) + Math.min(r.right, w.right)) / 2, y = (Math.max(r.top, w.top) + Math.min(r.bottom, w.bottom)) / 2;
            if (x <= Math.max(r.left, w.left) || y <= Math.max(r.top, w.top)) continue;
            n++;
            // pointer-events: none hides a piece from elementFromPoint: count it for this look only
            /** @type {HTMLElement} */ (c).style.pointerEvents = 'auto';
            if (document.elementFromPoint(x, y) === c) on++;
            /** @type {HTMLElement} */ (c).style.pointerEvents = '';
          }
        }
        return [n, on];
      });
      crossings += over[0];
      assert.equal(over[1], 0, 'a piece of confetti over the words');
      await page.waitForTimeout(60);
    }
    assert.ok(crossings > 0, 'the confetti crossed the words (the test looked while it fell)');
    await shot(page, 'hotseat-end.png');
    console.log(`hot-seat: ${log.actions} actions by two humans`);
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});

test('hot-seat: the die and the log wear the colour of who rolled; the next person gets the die fresh', { timeout: 60000 }, async () => {
  const b = await launch(DESKTOP);
  try {
    const page = await b.page();
    await open(page);
    await setupGame(page, { rules: 'ludo', players: 2, pieces: 2, seats: { 2: 'human' } });
    const look = () => page.evaluate(() => {
      const die = /** @type {HTMLElement} */ (document.getElementById('die'));
      return { turnColour: /** @type {HTMLElement} */ (document.getElementById('turnbar')).style.getPropertyValue('--turn'),
        dieColour: die.style.getPropertyValue('--die-c'), stale: die.classList.contains('stale'), label: die.getAttribute('aria-label'),
        opacity: getComputedStyle(die).opacity, dieSeat: /** @type {HTMLElement} */ (document.getElementById('board')).dataset.dieSeat };
    });
    await waitHumanOrEnd(page);
    const first = (await state(page)).turn;
    const firstColour = (await look()).turnColour;
    let seen = null;
    for (let i = 0; i < 200; i++) {
      await waitHumanOrEnd(page);
      const st = await state(page);
      if (st.turn !== first) break;
      const v = st.version;
      if (st.phase === 'move') await page.keyboard.press(String(st.legal[0] + 1)); else await page.keyboard.press('Space');
      await page.waitForFunction((v0) => /** @type {any} */ (window).__fxq.current.st?.version > v0, v, { timeout: 15000 });
      const now = await state(page);
      if (now.phase === 'move' && now.turn === first) seen = await look();
    }
    // while the roller chooses, the die is theirs and bright (when a 6 let them choose)
    if (seen) assert.deepEqual([seen.dieColour, seen.stale, seen.opacity], [firstColour, false, '1']);
    const after = await look();
    const st = await state(page);
    assert.notEqual(st.turn, first, 'the turn passed');
    assert.notEqual(after.turnColour, firstColour);
    // the next person here gets the die fresh at their hangar, asking for the roll (the last roll,
    // faded in the next seat's hangar, read as that seat's)
    assert.deepEqual([after.dieSeat, after.dieColour, after.label], [String(st.turn), '', '掷骰子']);
    // the log's lines wear the colour of the turn they tell: 轮到 … is the new seat's, the roll
    // before it the first seat's
    const bars = await page.locator('#log li').evaluateAll((lis) => lis.map((li) => /** @type {HTMLElement} */ (li).style.getPropertyValue('--c')));
    assert.equal(bars[0], after.turnColour);
    assert.ok(bars.includes(firstColour), `a line of the first seat's turn in ${JSON.stringify(bars)}`);
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});
