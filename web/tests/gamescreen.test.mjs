// The game screen's quieter words: the choose prompt in one line, the dice commitment folded (its
// whole still there), no empty log box, no computer speed where no computer plays, friends at one
// screen named 玩家 1, 玩家 2, and the die's faces landing on the server's value.
import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, open, setupGame, shot, state, waitHumanOrEnd, DESKTOP } from './helpers.mjs';

/** Rolls (as the person at this screen) until a choice of planes is asked for; false if the game ended first. */
async function untilChoice(page) {
  for (let i = 0; i < 300; i++) {
    if (await waitHumanOrEnd(page)) return false;
    const st = await state(page);
    if (st.phase === 'move') return true;
    await page.click('#btn-roll');
    await page.waitForFunction((v) => /** @type {any} */ (window).__fxq.current.st.version !== v, st.version, { timeout: 15000 });
  }
  return false;
}

/** How many lines an element's text takes. @param {import('playwright-core').Page} page @param {string} sel */
const lines = (page, sel) => page.evaluate((s) => {
  const el = /** @type {HTMLElement} */ (document.querySelector(s));
  const lh = parseFloat(getComputedStyle(el).lineHeight) || parseFloat(getComputedStyle(el).fontSize) * 1.5;
  return Math.round(el.getBoundingClientRect().height / lh);
}, sel);

test('game screen: one-line choose prompt, folded commitment, the die lands on the roll', { timeout: 120000 }, async () => {
  const b = await launch(DESKTOP);
  try {
    const page = await b.page();
    await open(page, { speed: 'mid' });
    await setupGame(page, { players: 2, seats: { 2: 'easy' }, opts: { takeoff: '56' } });
    // with a computer: its speed and pause are there; the log shows once it has a line
    assert.ok(await page.isVisible('#speed-row'), 'computer speed with a computer');
    const commitment = await page.evaluate(() => /** @type {any} */ (window).__fxq.current.st.dice.commitment);
    assert.match(await page.locator('#commit summary').innerText(), new RegExp(commitment.slice(0, 8)));
    assert.ok(!(await page.locator('#commit summary').innerText()).includes(commitment), 'folded');
    assert.equal(await page.locator('#commit summary').getAttribute('title'), commitment, 'the whole in its title');
    assert.ok((await page.locator('#commit').textContent()).includes(commitment), 'the whole, exact, in the page');
    assert.ok(await untilChoice(page), 'a choice came');
    const st = await state(page);
    assert.equal((await page.locator('#turn-msg').innerText()).trim(), '选择要走的飞机');
    assert.equal(await lines(page, '#turn-msg'), 1, 'the prompt in one line');
    assert.ok(await page.isVisible('#turn-help'), 'the how-to in the first game');
    assert.match(await page.locator('#turn-msg').getAttribute('title') ?? '', /数字键/);
    // the die landed on the server's value (its tumble is over by now), and says only that
    await page.waitForTimeout(700);
    assert.equal(await page.locator('#die circle').count(), st.die, 'the die shows the roll');
    assert.match(await page.locator('#die').getAttribute('aria-label') ?? '', new RegExp(`${st.die}`));
    await shot(page, 'gamescreen-choose-zh.png');
    await page.click('#btn-lang');
    assert.equal((await page.locator('#turn-msg').innerText()).trim(), 'Choose a plane to move');
    assert.equal(await lines(page, '#turn-msg'), 1, 'one line in English too');
    await shot(page, 'gamescreen-choose-en.png');
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});

test('game screen: friends at one screen have no computer speed and are 玩家 1, 玩家 2', { timeout: 60000 }, async () => {
  const b = await launch(DESKTOP);
  try {
    const page = await b.page();
    await open(page);
    await setupGame(page, { players: 2, seats: { 2: 'human' } });
    await waitHumanOrEnd(page);
    assert.ok(!(await page.isVisible('#speed-row')), 'no 电脑速度 without computers');
    assert.ok(!(await page.isVisible('#btn-pause')), 'no 暂停电脑 without computers');
    assert.ok(!(await page.isVisible('#log')), 'no empty log box');
    const players = await page.locator('#players').innerText();
    assert.match(players, /玩家 1/);
    assert.match(players, /玩家 2/);
    assert.doesNotMatch(players, /同屏好友/);
    await page.click('#btn-roll');
    await page.waitForSelector('#log li');
    assert.ok(await page.isVisible('#log'), 'the log once it has a line');
    await shot(page, 'gamescreen-hotseat.png');
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});
