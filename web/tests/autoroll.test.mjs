// 没有选择时自动掷骰: with the option on, the person's roll is made for them, after the speed's
// pause and with a line in the log saying why, when the server says no face of it could give a
// choice (`rollDecides` false, from the position alone); a roll that can give a choice waits for
// the person, and so does every roll with the option off.
import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, open, setupGame, state, waitHumanOrEnd, DESKTOP } from './helpers.mjs';

/** The live state's `rollDecides`. @param {import('playwright-core').Page} page */
const decides = (page) => page.evaluate(() => /** @type {any} */ (window).__fxq.current.st.rollDecides);
/**
 * The live state's phase, version and `rollDecides`, read at once (an auto-roll between two
 * reads mixed one state's version with the next one's `rollDecides`).
 * @param {import('playwright-core').Page} page
 */
const look = (page) => page.evaluate(() => { const s = /** @type {any} */ (window).__fxq.current.st; return { phase: s.phase, turn: s.turn, toAct: s.toAct, legal: s.legal, version: s.version, decides: s.rollDecides }; });
/** The person's rolls so far in this game (the frames of cause `roll`: the computers' are `step`). @param {import('playwright-core').Page} page */
const rolls = (page) => page.evaluate(() => /** @type {any} */ (window).__fxq.current.local.frames.filter((/** @type {any} */ f) => f.cause === 'roll').length);
/** Whether the state is still `v` after `ms`. @param {import('playwright-core').Page} page */
async function stays(page, v, ms) {
  await page.waitForTimeout(ms);
  return (await state(page)).version === v;
}

test('auto-roll: on, a roll with no choice on any face is made by itself; one with a choice, or the option off, waits', { timeout: 180000 }, async () => {
  const b = await launch(DESKTOP);
  try {
    const page = await b.page();
    // 中: the computers' pause (650 ms) is the auto-roll's too, long enough for the test to see
    // each state before a roll is made for it
    await open(page, { speed: 'mid' });
    await setupGame(page, { rules: 'feixingqi', players: 2, pieces: 2, seats: { 2: 'easy' } });
    // off (the default): the first roll (both planes in the hangar, only a 6 takes off) waits
    assert.equal(await page.isChecked('#auto-roll'), false, 'off by default');
    await waitHumanOrEnd(page);
    let st = await state(page);
    assert.equal(st.phase, 'roll');
    assert.equal(await decides(page), false, 'no face gives a choice with every plane in the hangar');
    assert.ok(await stays(page, st.version, 1500), 'with the option off the roll waits');
    // the log keeps its last 120 lines: each auto-roll's line is counted as it comes
    await page.evaluate(() => {
      const w = /** @type {any} */ (window);
      w.__autoLines = 0;
      new MutationObserver((ms) => { for (const m of ms) for (const n of m.addedNodes) if ((n.textContent ?? '').startsWith('自动掷骰')) w.__autoLines++; })
        .observe(/** @type {Element} */ (document.getElementById('log')), { childList: true });
    });
    // on: that roll is made at once, and remembered for the next visit
    const rolledBefore = await rolls(page);
    await page.check('#auto-roll');
    assert.equal(await page.evaluate(() => localStorage.getItem('fxq.autoRoll')), 'true');
    await page.waitForFunction((v) => /** @type {any} */ (window).__fxq.current.st.version !== v, st.version, { timeout: 5000 });
    assert.match(await page.locator('#log').innerText(), /自动掷骰：这一掷无论几点都没有选择/);
    // on until a roll that can give a choice (a plane out, one in the hangar): that one waits;
    // the ones before it with no choice went by themselves
    let waited = false;
    for (let i = 0; i < 300 && !waited; i++) {
      if (await waitHumanOrEnd(page)) break;
      st = await look(page);
      // (an auto-roll may have gone by since: the state is the computer's)
      if (st.toAct !== 'human') continue;
      if (st.phase === 'move') {
        await page.locator(`svg.board .piece.legal[data-seat="${st.turn}"][data-piece="${st.legal[0] + 1}"]`).dispatchEvent('click');
        await page.waitForFunction((v) => /** @type {any} */ (window).__fxq.current.st.version !== v, st.version, { timeout: 15000 });
        continue;
      }
      if (st.decides) {
        assert.ok(await stays(page, st.version, 1500), 'a roll that can give a choice waits for the person');
        assert.equal(await page.isDisabled('#die'), false, 'and the die asks for it');
        waited = true;
        break;
      }
      // no choice on any face: it rolls by itself, after the pause
      await page.waitForFunction((v) => /** @type {any} */ (window).__fxq.current.st.version !== v, st.version, { timeout: 5000 });
    }
    assert.ok(waited, 'a roll with a choice came');
    const said = await page.evaluate(() => /** @type {any} */ (window).__autoLines);
    // every roll of the person's was made for them (the test rolled none)
    const auto = (await rolls(page)) - rolledBefore;
    assert.ok(auto >= 1);
    assert.equal(said, auto, 'each auto-roll says why in the log');
    // the option off again: nothing is rolled for the person (a new game's first roll waits)
    await page.uncheck('#auto-roll');
    await page.click('#btn-new');
    await setupGame(page, { rules: 'ludo', players: 2, pieces: 2, seats: { 2: 'easy' } });
    await waitHumanOrEnd(page);
    st = await state(page);
    assert.equal(await decides(page), false);
    assert.ok(await stays(page, st.version, 1500), 'off again, the roll waits');
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});

test('auto-roll: the opening roll too; never for a computer, paused at its roll; the English line', { timeout: 60000 }, async () => {
  const b = await launch(DESKTOP);
  try {
    const page = await b.page();
    // the option on, and the computers paused (read at the page's start)
    await page.addInitScript(() => { try { localStorage.setItem('fxq.autoRoll', 'true'); localStorage.setItem('fxq.paused', 'true'); } catch { /* none */ } });
    await open(page, { lang: 'en', speed: 'fast' });
    // the game opens with the person's opening roll, made by itself, then the computer's
    await setupGame(page, { rules: 'ludo', players: 2, pieces: 2, seats: { 2: 'easy' }, opts: { firstPlayer: 'roll' } });
    assert.equal(await page.isChecked('#auto-roll'), true, 'remembered');
    await page.waitForFunction(() => /** @type {any} */ (window).__fxq.current.local.frames.some((/** @type {any} */ f) => f.events.some((/** @type {any} */ e) => e.kind === 'openingRoll' && e.seat === 0)), null, { timeout: 5000 });
    for (let i = 0; i < 60; i++) {
      const st = await look(page);
      if (st.toAct === 'computer') break;
      if (st.phase === 'move') await page.locator(`svg.board .piece.legal[data-seat="${st.turn}"][data-piece="${st.legal[0] + 1}"]`).dispatchEvent('click');
      // (a roll that can give a choice is the person's to make; one read of the state: an
      // auto-roll between two reads mixed two states)
      else if (st.phase === 'roll' && st.decides) await page.click('#btn-roll', { timeout: 3000 }).catch(() => {});
      await page.waitForTimeout(400);
    }
    const st = await state(page);
    assert.equal(st.toAct, 'computer', 'the turn came to the computer');
    assert.ok(await stays(page, st.version, 1500), 'nothing rolled for the paused computer');
    assert.match(await page.locator('#log').innerText(), /Auto-roll: whatever this roll shows, there is no choice to make/);
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});
