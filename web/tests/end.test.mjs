// The end screen's first screen: the player's own result is the headline, 再来一局 the primary
// button (after a finish that is not a fast-forward), both in sight without scrolling; the
// figures (histograms, χ², 骰运, grades) still there, under 详细统计.
import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, open, setupGame, playThrough, shot, DESKTOP, PHONE } from './helpers.mjs';

for (const [lang, vp, name] of [['zh', DESKTOP, 'desk'], ['en', PHONE, 'phone']]) {
  test(`end screen (${lang}, ${name}): your place is the headline, 再来一局 the primary button`, { timeout: 150000 }, async () => {
    const b = await launch(vp);
    try {
      const page = await b.page();
      await open(page, { lang });
      // one human against one computer: the game ends when either finishes (no fast-forward)
      await setupGame(page, { rules: 'ludo', players: 2, pieces: 2, seats: { 2: 'easy' } });
      await playThrough(page);
      await page.waitForSelector('#end[open]');
      await page.waitForTimeout(400);
      const place = await page.evaluate(() => /** @type {any} */ (window).__fxq.current.st.over.ranking.indexOf(0) + 1);
      const head = (await page.locator('#end .you-place').innerText()).trim();
      const want = lang === 'zh' ? (place === 1 ? '你赢了！' : `你获得第 ${place} 名`) : (place === 1 ? 'You won!' : `You finished ${['1st', '2nd'][place - 1]}`);
      assert.equal(head, want);
      // the headline is the biggest text of the dialog, and the winner is still named (#end-title)
      const [hs, ts] = await page.evaluate(() => ['#end .you-place', '#end-title'].map((s) => parseFloat(getComputedStyle(/** @type {Element} */ (document.querySelector(s))).fontSize)));
      assert.ok(hs > ts * 1.4, `headline ${hs}px, title ${ts}px`);
      assert.match(await page.locator('#end-title').innerText(), lang === 'zh' ? /^游戏结束 — / : /^Game over — /);
      // the dialog is named by the headline first
      assert.equal(await page.locator('#end').getAttribute('aria-labelledby'), 'end-you end-title');
      // 再来一局 is the one primary button, first, focused, and no 继续观看 after a normal finish
      assert.equal(await page.locator('#end-watch').count(), 0);
      assert.deepEqual(await page.locator('#end .end-actions .primary').evaluateAll((els) => els.map((e) => e.id)), ['end-again']);
      assert.equal(await page.locator('#end .end-actions > *').first().getAttribute('id'), 'end-again');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'end-again');
      // result, ranking and every button in sight without scrolling
      for (const sel of ['#end .you-place', '#end .rank', '#end-again', '#end-replay', '#end-download', '#end-verify', '#end-close']) {
        const box = await page.locator(sel).boundingBox();
        assert.ok(box && box.y >= 0 && box.y + box.height <= vp.height, `${sel} at ${box?.y}+${box?.height}`);
      }
      const scrolled = await page.evaluate(() => /** @type {HTMLElement} */ (document.getElementById('end-in')).scrollTop);
      assert.equal(scrolled, 0);
      // the viewer's row is marked in the ranking
      assert.equal(await page.locator('#end .rank tr.me').count(), 1);
      // every figure is still there: a histogram, χ² p and 骰运 per seat, under a labelled 详细统计
      assert.equal(await page.locator('#end .end-details .hist figure').count(), 2);
      assert.equal(await page.locator('#end .end-details .hist .luck .p').count(), 2);
      assert.equal(await page.locator('#end .end-details .hist .luck .win-luck').count(), 2);
      assert.match(await page.locator('#end .end-details > summary').innerText(), lang === 'zh' ? /^详细统计/ : /^Details/);
      await shot(page, `end-headline-${lang}-${name}.png`);
      if (!(await page.locator('#end-details').evaluate((d) => /** @type {HTMLDetailsElement} */ (d).open))) await page.click('#end-details > summary');
      await page.locator('#end .end-details .hist').scrollIntoViewIfNeeded();
      await shot(page, `end-details-${lang}-${name}.png`);
      // keyboard focus on 详细统计 stays there as the screen is written again (another language):
      // it fell to the page
      await page.focus('#end-details > summary');
      const was = await page.evaluate(() => document.documentElement.lang);
      await page.evaluate(() => /** @type {HTMLElement} */ (document.getElementById('btn-lang')).click());
      await page.waitForFunction((l) => document.documentElement.lang !== l, was);
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'end-details-summary', 'focus kept on 详细统计');
      await page.evaluate(() => /** @type {HTMLElement} */ (document.getElementById('btn-lang')).click());
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'end-details-summary', 'and back');
      // so does focus on a 复盘 button far down, and the list is not scrolled back to the top (a
      // room's update moved focus to 关闭 and scrolled the dialog up)
      if (await page.locator('#end button.review').count()) {
        const review = page.locator('#end button.review').last();
        await review.focus();
        const id = await review.getAttribute('id');
        const top = await page.evaluate(() => /** @type {HTMLElement} */ (document.getElementById('end-in')).scrollTop);
        // drawn again as a room's update draws it
        await page.evaluate(() => /** @type {any} */ (window).__fxq.rooms.d.refreshEnd());
        assert.equal(await page.evaluate(() => document.activeElement?.id), id, 'focus kept on 复盘');
        const after = await page.evaluate(() => /** @type {HTMLElement} */ (document.getElementById('end-in')).scrollTop);
        assert.ok(top > 0 && Math.abs(after - top) <= 2, `scrolled ${top} → ${after}`);
      }
      // Esc closes it
      await page.keyboard.press('Escape');
      await page.waitForFunction(() => !(/** @type {HTMLDialogElement} */ (document.getElementById('end')).open));
      assert.deepEqual(b.errors, []);
    } finally {
      await b.close();
    }
  });
}
