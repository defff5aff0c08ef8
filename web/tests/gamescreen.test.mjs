// The game screen's quieter words: the choose prompt in one line, the dice commitment folded (its
// whole still there), no empty log box, no 暂停电脑 where no computer plays (the speed stays, as
// 动画速度), friends at one screen named 玩家 1, 玩家 2, the die's faces landing on the server's
// value, and the how-to line in a player's first game only (a room's game counts).
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
    assert.equal((await page.locator('#speed-row label[for=speed]').innerText()).trim(), '电脑速度');
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

test('game screen: friends at one screen have no computer-only controls and are 玩家 1, 玩家 2', { timeout: 60000 }, async () => {
  const b = await launch(DESKTOP);
  try {
    const page = await b.page();
    await open(page);
    // the set-up's first seat turns 玩家 1 in place: the select changed keeps its focus (the
    // form was written again for it)
    await page.waitForSelector('#setup-form');
    await page.check('input[name=players][value="2"]', { force: true });
    await page.focus('#seat-2');
    await page.evaluate(() => { /** @type {any} */ (document.getElementById('seat-2')).__mark = 1; });
    await page.selectOption('#seat-2', 'human');
    assert.equal((await page.locator('#seat-0-who').innerText()).trim(), '玩家 1');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'seat-2', 'focus on the select');
    assert.equal(await page.evaluate(() => /** @type {any} */ (document.getElementById('seat-2')).__mark), 1, 'the same select, not drawn again');
    await page.selectOption('#seat-2', 'easy');
    assert.equal((await page.locator('#seat-0-who').innerText()).trim(), '你');
    await setupGame(page, { players: 2, seats: { 2: 'human' } });
    await waitHumanOrEnd(page);
    // the speed sets every animation's: it stays, as 动画速度; 暂停电脑 has nothing to pause
    assert.ok(await page.isVisible('#speed'), 'the speed without computers too');
    assert.equal((await page.locator('#speed-row label[for=speed]').innerText()).trim(), '动画速度');
    assert.ok(!(await page.isVisible('#btn-pause')), 'no 暂停电脑 without computers');
    await page.click('#btn-lang');
    assert.equal((await page.locator('#speed-row label[for=speed]').innerText()).trim(), 'Animation speed');
    await page.click('#btn-lang');
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

test('game screen: the how-to line in the first game only, a room\'s game counting as one', { timeout: 120000 }, async () => {
  const b = await launch(DESKTOP);
  try {
    const page = await b.page();
    await open(page);
    await page.waitForSelector('#setup-form');
    // a room with a computer: this player's first game (only local games counted, and every
    // room game showed the how-to again)
    await page.click('#tab-online');
    await page.waitForSelector('#online-form');
    await page.fill('#nick', '房客');
    await page.dispatchEvent('#nick', 'change');
    await page.check('input[name=players][value="2"]', { force: true });
    await page.selectOption('#slot-1', 'easy');
    await page.click('#btn-create');
    await page.waitForSelector('#view-room:not([hidden]) #room-code');
    await page.click('#btn-room-start');
    await page.waitForSelector('#view-game:not([hidden]) svg.board');
    assert.ok(await untilChoice(page), 'a choice came in the room');
    assert.ok(await page.isVisible('#turn-help'), 'the how-to in the first game, a room\'s');
    // a reload is the same game: the how-to still there
    await page.reload();
    await page.waitForFunction(() => { const st = /** @type {any} */ (window).__fxq.current.st; return st?.room && st.phase === 'move'; }, null, { timeout: 15000 });
    assert.ok(await untilChoice(page), 'the choice again');
    assert.ok(await page.isVisible('#turn-help'), 'the same game after a reload');
    // the next game, a local one: the how-to has been seen
    page.once('dialog', (d) => d.accept());
    await page.click('#btn-new');
    await page.waitForSelector('#tab-local');
    await page.click('#tab-local');
    await setupGame(page, { players: 2, seats: { 2: 'easy' }, opts: { takeoff: '56' } });
    assert.ok(await untilChoice(page), 'a choice came in the local game');
    assert.ok(!(await page.isVisible('#turn-help')), 'no how-to in a second game');
    assert.ok((await page.locator('#turn-msg').getAttribute('title') ?? '').length > 0, 'the how-to in the prompt\'s title still');
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});
