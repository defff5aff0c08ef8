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
