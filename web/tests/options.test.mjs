// Every option of RULES.md §7 reaches the server from the set-up screen: takeoff on 5 or 6, the
// triple-six penalty, six stops on a stack, team play, 2 pieces, first player by roll, room scoring.
import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, open, setupGame, playThrough, shot, DESKTOP } from './helpers.mjs';

test('options: team play with a same-screen partner, room points, opening rolls, 5-or-6 takeoff', { timeout: 150000 }, async () => {
  const b = await launch(DESKTOP);
  try {
    const page = await b.page();
    await open(page);
    await page.waitForSelector('#setup-form');
    await page.check('input[name=scoring][value=room]', { force: true });
    await page.fill('input[name=room]', '1000');
    await page.dispatchEvent('input[name=room]', 'change');
    // 飞行棋's own options survive a visit to Ludo's form (they were saved as off from it)
    await page.check('input[name=tripleSix]', { force: true });
    await page.check('input[name=sixStops]', { force: true });
    await page.check('input[name=rules][value=ludo]', { force: true });
    await page.check('input[name=players][value="2"]', { force: true });
    await page.check('input[name=rules][value=feixingqi]', { force: true });
    await page.check('input[name=players][value="4"]', { force: true });
    assert.ok(await page.isChecked('input[name=tripleSix]') && await page.isChecked('input[name=sixStops]'), 'the options are still on');
    await setupGame(page, {
      rules: 'feixingqi', players: 4, pieces: 2, seats: { 1: 'easy', 2: 'human', 3: 'easy' },
      opts: { takeoff: '56', tripleSix: true, sixStops: true, team: true, firstPlayer: 'roll' },
    });
    const opts = await page.evaluate(() => /** @type {any} */ (window).__fxq.current.st.options);
    assert.deepEqual(opts.takeoff, [5, 6]);
    assert.equal(opts.tripleSixPenalty, true);
    assert.equal(opts.sixStopsOnStack, true);
    assert.equal(opts.team, true);
    assert.equal(opts.pieces, 2);
    assert.equal(opts.firstPlayer, 'roll');
    assert.deepEqual(opts.scoring, { room: 1000 });
    // the opening roll says what it is for (it read like any roll)
    await page.waitForFunction(() => (document.getElementById('turn-msg')?.textContent ?? '').includes('掷骰决定谁先走'), null, { timeout: 15000 });
    await playThrough(page, {});
    await page.waitForSelector('#end[open]');
    const head = await page.locator('#end .rank thead').innerText();
    assert.match(head, /得分/);
    // The title names the winning team, and every row the seat's partner (RULES.md §9).
    const first = await page.evaluate(() => /** @type {any} */ (window).__fxq.current.st.over.ranking[0]);
    const pair = [['红方', '蓝方'], ['黄方', '绿方']][first % 2];
    const [a, p] = first < 2 ? pair : [pair[1], pair[0]];
    assert.equal(await page.locator('#end-title').innerText(), `游戏结束 — ${a}和${p}一队获胜`);
    const partners = await page.locator('#end .rank tbody td .partner').allInnerTexts();
    assert.equal(partners.length, 4);
    assert.equal(partners[0], `队友 ${p}`);
    // no place is told when a seat finishes before its partner (a losing team's first finisher
    // was told 第 1 名 and ranked 3rd): the first to finish waits for the partner
    const told = (await page.locator('#log li').allInnerTexts()).filter((l) => l.includes('全部到达'));
    assert.ok(told.length > 0 && told.every((l) => !l.includes('第 1 名')), told.join(' / '));
    const scores = await page.evaluate(() => /** @type {any} */ (window).__fxq.current.st.over.scores);
    assert.equal(scores.reduce((a, s) => a + s.score, 0), 0, 'room points are zero-sum');
    const kinds = await page.evaluate(() => /** @type {any} */ (window).__fxq.current.local.frames.flatMap((f) => f.events.map((e) => e.kind)));
    assert.ok(kinds.includes('openingRoll') && kinds.includes('starts'), 'opening rolls played');
    await shot(page, 'end-team-scoring.png');
    // The replay link opened afresh (no game on the game screen) says each skip by the record's
    // own takeoff rolls: 5 or 6 here (it used to read the game screen's options: 6 only).
    const gameId = await page.evaluate(() => /** @type {any} */ (window).__fxq.current.st.gameId);
    const link = await b.context.newPage();
    await open(link, { hash: `#record=g:${gameId}` });
    await link.waitForSelector('#view-viewer:not([hidden]) svg.board');
    await link.waitForFunction(() => Number(document.getElementById('v-range')?.getAttribute('max')) > 0);
    const k = await link.evaluate(() => /** @type {any} */ (window).__fxq.viewer.frames.findIndex((/** @type {any} */ f) => (f.events || []).some((/** @type {any} */ e) => e.kind === 'skip' && e.reason === 'need_takeoff_roll')));
    assert.ok(k >= 0, 'a skip for want of a takeoff roll');
    await link.locator('#v-range').fill(String(k + 1));
    const said = await link.locator('#v-log').innerText();
    assert.match(said, /需要掷出 5 或 6 才能起飞/, said);
    // The triple-six penalty is told once, as a penalty (its skip event said 无棋可走 too).
    const penalty = await link.evaluate(() => {
      const lines = /** @type {string[]} */ ([]);
      /** @type {any} */ (window).__fxq.logFrames([{ events: [{ kind: 'penalty', seat: 0 }, { kind: 'skip', seat: 0, reason: 'triple_six_penalty', zh: '连续三个 6', en: 'three 6s' }] }],
        'feixingqi', { log: (/** @type {string} */ text) => lines.push(text), takeoff: [6] });
      return lines;
    });
    assert.deepEqual(penalty, ['红方 连续三个 6，全部返回停机坪']);
    // 返回 leaves the replay for the set-up (this page has no game); a link to no game says so
    // and goes back too, instead of an empty viewer.
    await link.click('#v-back');
    await link.waitForSelector('#view-setup:not([hidden])');
    await link.goto(link.url().replace(/#.*/, '#record=g:doesnotexist'));
    await link.waitForSelector('#toast:text-matches("找不到这盘棋")');
    await link.waitForSelector('#view-setup:not([hidden])');
    // 暂停电脑 holds across a reload (the computers went on after one), and its button says 继续
    await link.evaluate(() => /** @type {HTMLButtonElement} */ (document.getElementById('btn-pause')).click());
    await link.reload();
    await link.waitForSelector('#view-setup:not([hidden])');
    const paused = await link.evaluate(() => ({ on: /** @type {any} */ (window).__fxq.current.paused, text: document.getElementById('btn-pause')?.textContent, want: /** @type {any} */ (window).__fxq.t('resumeAI') }));
    assert.ok(paused.on && paused.text === paused.want, JSON.stringify(paused));
    await link.evaluate(() => /** @type {HTMLButtonElement} */ (document.getElementById('btn-pause')).click());
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});

test('options: the set-up’s ⓘ links open the guide’s section on them, in the page’s language', { timeout: 60000 }, async () => {
  const b = await launch(DESKTOP);
  try {
    const page = await b.page();
    const seen = [];
    for (const lang of ['zh', 'en']) {
      for (const rules of ['feixingqi', 'ludo']) {
        await open(page, { lang });
        await page.waitForSelector('#setup-form');
        await page.check(`input[name=lang][value=${lang}]`, { force: true });
        await page.check(`input[name=rules][value=${rules}]`, { force: true });
        // the page's heading is the game's name once (the tagline repeated it to a screen reader)
        if (rules === 'feixingqi') assert.equal(await page.locator('h1').ariaSnapshot(), `- heading "${lang === 'zh' ? '飞行棋' : 'Aeroplane Chess'}" [level=1]`);
        const links = await page.locator('#setup-form .card h2 a.help').evaluateAll((as) => as.map((a) => /** @type {HTMLAnchorElement} */ (a).getAttribute('href')));
        assert.equal(links.length, 2, `${lang} ${rules}: ${links}`);
        for (const href of links) {
          assert.match(href ?? '', new RegExp(`^guides/${lang}\\.html#`));
          seen.push(href);
        }
        await page.click('#setup-form .card h2 a.help >> nth=1');
        await page.waitForURL(/guides\//);
        const id = new URL(page.url()).hash.slice(1);
        assert.ok(await page.locator(`[id="${id}"]`).count() === 1, `the guide has #${id}`);
        for (const href of links) {
          const target = (href ?? '').split('#')[1];
          assert.equal(await page.locator(`[id="${target}"]`).count(), 1, `${href}: no such section`);
        }
        await page.click('.top a[href="../index.html"]');
        await page.waitForSelector('#setup-form');
      }
    }
    assert.ok(seen.includes('guides/zh.html#options') && seen.includes('guides/en.html#ludo-options'), seen.join(' '));
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});

test('options: a room stake the field refuses keeps the one remembered', { timeout: 60000 }, async () => {
  const b = await launch();
  try {
    const page = await b.page();
    await open(page);
    await page.waitForSelector('#setup-form');
    await page.check('input[name=scoring][value=room]', { force: true });
    const stakeAfter = async (/** @type {string} */ typed) => {
      await page.fill('input[name=room]', typed);
      await page.dispatchEvent('input[name=room]', 'change');
      return page.evaluate(() => JSON.parse(localStorage.getItem('fxq.setup') || '{}').room);
    };
    assert.equal(await stakeAfter('777'), 777);
    // 0 was saved as 1, and a blank field then started a game all but unscored
    assert.equal(await stakeAfter('0'), 777);
    assert.equal(await stakeAfter(''), 777);
    assert.equal(await stakeAfter('2.5'), 777);
    assert.equal(await stakeAfter('99999999999'), 777);
    assert.equal(await stakeAfter('1000000'), 1000000);
  } finally { await b.close(); }
});
