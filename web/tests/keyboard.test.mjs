// A whole game by keyboard only: Tab/Enter on the set-up screen, Space to roll, number keys and
// arrows + Enter to choose, H for the hint, U for undo. The live region announces rolls and moves.
import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, open, playThrough, shot, state, DESKTOP } from './helpers.mjs';

test('keyboard only: a whole 飞行棋 game against a computer', { timeout: 150000 }, async () => {
  const b = await launch(DESKTOP);
  try {
    const page = await b.page();
    await open(page);
    await page.waitForSelector('#setup-form');
    // choose 2 players and 2 pieces with the keyboard: focus the radio group, arrows move the choice
    await page.focus('input[name=players][value="4"]');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => /** @type {HTMLInputElement} */ (document.querySelector('input[name=players][value="2"]'))?.checked);
    await page.focus('input[name=pieces][value="4"]');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => /** @type {HTMLInputElement} */ (document.querySelector('input[name=pieces][value="2"]'))?.checked);
    await page.focus('#btn-start');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#view-game:not([hidden]) svg.board');
    const announced = [];
    await page.exposeFunction('__live', (s) => announced.push(s));
    // every text set, even two in one frame (the region reads only the last of them)
    await page.evaluate(() => new MutationObserver((records) => records.forEach((r) => r.addedNodes.forEach((n) => /** @type {any} */ (window).__live(n.textContent || ''))))
      .observe(/** @type {HTMLElement} */ (document.getElementById('live')), { childList: true, characterData: true, subtree: true }));
    const log = await playThrough(page, { keyboard: true, hint: true, undo: true });
    const st = await state(page);
    assert.equal(st.phase, 'over');
    // hint and undo need a human choice (and a later human roll): the dice decide whether there is one
    if (log.choices >= 2) assert.ok(log.hinted && log.undone, JSON.stringify(log));
    else console.log(`keyboard: only ${log.choices} choices this game; hint/undo not exercised`);
    const text = announced.join('\n');
    assert.match(text, /掷出 \d/, 'rolls are announced');
    assert.match(text, /号/, 'moves are announced');
    // every roll is told (only the last six lines of a state were, so a busy turn lost its
    // roll), each announcement once as sentences, and the end names the winner
    const rolls = await page.evaluate(() => /** @type {any} */ (window).__fxq.current.local.frames.flatMap((/** @type {any} */ f) => f.events).filter((/** @type {any} */ e) => e.kind === 'rolled').length);
    assert.ok((text.match(/掷出 \d/g) || []).length >= rolls, `${(text.match(/掷出 \d/g) || []).length} rolls told of ${rolls}`);
    const last = announced.filter(Boolean).at(-1) ?? '';
    assert.match(last, /游戏结束 — .+方 第 1 名/);
    assert.doesNotMatch(last, /游戏结束。 游戏结束/);
    await shot(page, 'keyboard-end.png');
    console.log(`keyboard: ${log.actions} actions; ${announced.length} announcements, e.g. ${JSON.stringify(announced.slice(2, 4))}`);
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});
