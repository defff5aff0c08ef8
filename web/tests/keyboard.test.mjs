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
    // focus lands on the roll (it fell to the page: a keyboard or screen-reader player began
    // again from the top after every action)
    await page.waitForFunction(() => document.activeElement?.id === 'btn-roll', null, { timeout: 15000 });
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
    // roll) but those of the end's fast-forward (its result is told at once), each once — the
    // choice prompt says the roll, which was said twice before it — and the end names the winner
    const rolls = await page.evaluate(() => /** @type {any} */ (window).__fxq.current.local.frames.filter((/** @type {any} */ f) => f.cause !== 'fastForward').flatMap((/** @type {any} */ f) => f.events).filter((/** @type {any} */ e) => e.kind === 'rolled').length);
    assert.ok((text.match(/掷出 \d/g) || []).length >= rolls, `${(text.match(/掷出 \d/g) || []).length} rolls told of ${rolls}`);
    assert.doesNotMatch(text, /掷出 (\d)。 \S+ 掷出 \1，请选择/, 'the roll is not said twice');
    // the computer's plies are told shorter: no reason for its skips, no 正在思考, no 自动走棋
    const wordy = announced.filter((x) => /蓝方 无棋可走：|蓝方 正在思考|蓝方 只有一种走法/.test(x));
    assert.deepEqual(wordy, []);
    assert.match(text, /蓝方 掷出 \d/, 'the computer’s rolls are told');
    const last = announced.filter(Boolean).at(-1) ?? '';
    assert.match(last, /游戏结束 — .+方 第 1 名/);
    assert.doesNotMatch(last, /游戏结束。 游戏结束/);
    await shot(page, 'keyboard-end.png');
    // a piece's name says which others are within six squares, and how far: each colour counts
    // its squares from its own start (red's 第 14 格 is blue's 第 40 格 in 飞行棋), so the number
    // alone told a blind player nothing of what was near
    const near = await page.evaluate(() => {
      const f = /** @type {any} */ (window).__fxq;
      const all = [{ seat: 0, piece: 0, p: 14 }, { seat: 2, piece: 0, p: 40 - 2 }, { seat: 2, piece: 1, p: 40 + 3 }, { seat: 1, piece: 0, p: -1 }];
      return f.pieceLabel('feixingqi', 0, 0, 14, all);
    });
    assert.match(near, /红方 圆 1 号，第 14 格；附近：前方 3 格有蓝方 2 号；后方 2 格有蓝方 1 号$/, near);
    // the end screen closed by Esc gives focus to 查看结果 (it went to the page)
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => document.activeElement?.id === 'btn-result', null, { timeout: 5000 });
    console.log(`keyboard: ${log.actions} actions; ${announced.length} announcements, e.g. ${JSON.stringify(announced.slice(2, 4))}`);
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});
