// 道具模式 in real games (docs/PROTOCOL.md "Items"): the set-up option (飞行棋 only, local and online),
// a local game of 飞行棋 with items against a computer where the human picks items up and uses them by
// click and by key (with the targeting step, Escape cancelling it), item events animated on the
// board and told in the log, the Master hint before the roll marking an item; then an online room
// with items whose game shows every seat's item bar.
import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, open, setupGame, shot, DESKTOP } from './helpers.mjs';

/** The parts of the client's state the test steers by. */
const snap = (page) => page.evaluate(() => {
  const w = /** @type {any} */ (window).__fxq;
  const st = w.current.st;
  if (!st) return null;
  const squares = (st.items?.board || []).map((b) => b.square);
  // a legal move that ends on an item: where each choice lands is in the state (docs/PROTOCOL.md §3)
  const hit = st.phase === 'move' ? (st.choices || []).find((c) => squares.includes(c.square)) : null;
  const toItem = hit ? hit.piece : -1;
  return {
    version: st.version, phase: st.phase, turn: st.turn, toAct: st.toAct, legal: st.legal, cause: st.cause,
    items: st.items, toItem, over: /** @type {HTMLDialogElement} */ (document.getElementById('end')).open,
    targeting: w.current.targeting,
  };
});

/** Waits for a state newer than `v` (or the end dialog). */
const nextState = (page, v) => page.waitForFunction((v0) => {
  const w = /** @type {any} */ (window).__fxq;
  return w.current.st?.version !== v0 || /** @type {HTMLDialogElement} */ (document.getElementById('end')).open;
}, v, { timeout: 20000, polling: 30 });

/**
 * Activates an item of the bar of the seat to act (`activate` clicks its slot or presses its key).
 * False when the screen says there is no plane to aim at (护盾, 导弹): nothing was sent and no
 * targeting step opened, so no answer will come.
 */
async function activateItem(page, activate) {
  await page.evaluate(() => { document.getElementById('toast').textContent = ''; });
  await activate();
  if (!/没有可以选择的飞机/.test(await page.locator('#toast').innerText())) return true;
  assert.equal((await snap(page)).targeting, null, 'no targeting step without a target');
  return false;
}

/** The `itemUsed` event of `seat` in the frames after version `v0` (computers may have played on since), or null. */
const usedSince = (page, v0, seat) => page.evaluate(([v, s]) => /** @type {any} */ (window).__fxq.current.local?.frames
  .filter((f) => f.version > v).flatMap((f) => f.events).find((e) => e.kind === 'itemUsed' && e.seat === s) ?? null, [v0, seat]);

/** Waits until the human may act (roll enabled, or legal pieces shown) or the end dialog is open. */
const humanOrEnd = (page) => page.waitForFunction(() => {
  const w = /** @type {any} */ (window).__fxq;
  if (/** @type {HTMLDialogElement} */ (document.getElementById('end')).open) return true;
  const st = w.current.st;
  if (!st || st.toAct !== 'human') return false;
  if (st.phase === 'move') return document.querySelectorAll('svg.board .piece.legal').length > 0;
  return !/** @type {HTMLButtonElement} */ (document.getElementById('btn-roll')).disabled;
}, null, { timeout: 30000, polling: 30 }).catch(async (e) => {
  const why = await page.evaluate(() => {
    const w = /** @type {any} */ (window).__fxq;
    const st = w.current.st;
    return JSON.stringify({ view: w.current.view, phase: st?.phase, turn: st?.turn, toAct: st?.toAct, cause: st?.cause, version: st?.version,
      items: st?.items, targeting: w.current.targeting, roll: /** @type {HTMLButtonElement} */ (document.getElementById('btn-roll')).disabled,
      legal: st?.legal, shown: document.querySelectorAll('svg.board .piece.legal').length, toast: document.getElementById('toast')?.textContent });
  });
  throw new Error(`${e.message}: ${why}`);
});

test('item mode: set-up option, a local 飞行棋 game using items by click and by key, the item hint, an online room', { timeout: 360000 }, async () => {
  const b = await launch(DESKTOP);
  try {
    const page = await b.page();
    await open(page);
    await page.waitForSelector('#setup-form');
    // every item string exists in both languages
    const missing = await page.evaluate(async () => {
      const { ALL } = await import('./js/i18n.js');
      const keys = (l) => Object.keys(ALL[l]).filter((k) => /^(item|ev[A-Z]|keysHelpItems)/.test(k));
      const zh = keys('zh'), en = keys('en');
      return { n: zh.length, zhOnly: zh.filter((k) => !en.includes(k)), enOnly: en.filter((k) => !zh.includes(k)) };
    });
    assert.ok(missing.n > 30, 'item strings found');
    assert.deepEqual([missing.zhOnly, missing.enOnly], [[], []]);
    // the option is 飞行棋's only
    await page.check('input[name=rules][value=ludo]', { force: true });
    assert.equal(await page.locator('input[name=items]').count(), 0, 'no item mode for Ludo');
    await page.check('input[name=rules][value=feixingqi]', { force: true });
    assert.equal(await page.locator('input[name=items]').count(), 1);
    assert.match(await page.locator('input[name=items]').locator('..').innerText(), /道具模式/);

    await setupGame(page, { rules: 'feixingqi', players: 2, pieces: 4, seats: { 2: 'easy' }, opts: { items: true, takeoff: '56' } });
    await page.waitForFunction(() => /** @type {any} */ (window).__fxq.current.st?.items, null, { timeout: 10000 });
    const opts = await page.evaluate(() => /** @type {any} */ (window).__fxq.current.st.options);
    assert.equal(opts.items, true, '"items": true reached the server');
    assert.equal(await page.locator('#items-panel .seat-bar').count(), 2, 'a bar per seat');
    assert.equal(await page.locator('#items-panel .item-bar').count(), 2);
    // record what the board animates, and the item glyphs flying over it
    const hook = () => page.evaluate(() => {
      const w = /** @type {any} */ (window);
      w.__kinds ||= [];
      w.__flown ||= 0;
      const board = w.__fxq.current.board;
      if (w.__hooked === board) return;
      w.__hooked = board;
      const orig = board.animate;
      board.animate = (events, cb) => { for (const e of events) w.__kinds.push(e.kind + (e.seat === 0 ? ':0' : '')); return orig(events, cb); };
      new MutationObserver((ms) => {
        for (const m of ms) for (const n of m.addedNodes) if (n instanceof SVGGElement && /scale\(/.test(n.getAttribute('transform') || '')) w.__flown++;
      }).observe(board.svg.querySelector('g.over'), { childList: true });
    });

    await hook();

    // a refusal is told in words: a use of an item the bar does not hold (the UI never offers it)
    await humanOrEnd(page);
    const v0 = (await snap(page)).version;
    await page.evaluate(() => /** @type {any} */ (window).__fxq.sendItem({ item: 'missile', seat: 2, piece: 0 }));
    await page.waitForFunction(() => /道具栏里没有这个道具/.test(document.getElementById('toast')?.textContent || ''), null, { timeout: 5000 });
    await humanOrEnd(page);
    assert.equal((await snap(page)).version, v0, 'a refused use changes nothing');

    // Items appear at random squares and the human must land on one to hold it: play games (taking
    // walks that end on an item) until an item was used by click and one by key. A game gives the
    // human an item or two, and some games none, so the bound is a number of games (on a loaded
    // machine 40 s of play were once too few), with a time limit well inside the test's.
    const t0 = Date.now();
    const used = { click: null, key: null };
    let cancelled = false, hinted = null, hintTries = 0, actions = 0, picked = 0, games = 1;
    // The log keeps its last 120 lines and a new game starts it again, so its words are looked
    // for while the games are played, not only in the last one's tail.
    const logSaw = { picked: false, appeared: false };
    const readLog = async () => {
      if (logSaw.picked && logSaw.appeared) return;
      const text = await page.locator('#log').innerText();
      logSaw.picked ||= /拾取了/.test(text);
      logSaw.appeared ||= /出现了/.test(text);
    };
    while (Date.now() - t0 < 150000) {
      await humanOrEnd(page);
      await readLog();
      const st = await snap(page);
      if (st.over) {
        if (used.click && used.key || games === 10) break;
        games++;
        await page.click('#end-again');
        await setupGame(page, { rules: 'feixingqi', players: 2, pieces: 4, seats: { 2: 'easy' }, opts: { items: true, takeoff: '56' } });
        await page.waitForFunction(() => /** @type {any} */ (window).__fxq.current.st?.items, null, { timeout: 10000 });
        await hook();
        continue;
      }
      if (used.click && used.key && actions > 20) break;
      const bar = st.items.bars[st.turn] || [];
      if (st.phase === 'roll' && bar.length && !st.items.usedThisRoll) {
        // the Master's advice before the roll: it marks the item it would use (the engine decides if any)
        if (!hinted && hintTries < 4) {
          hintTries++;
          await page.keyboard.press('h');
          const got = await page.waitForFunction(() => !document.getElementById('hint-panel')?.hidden
            || /不必用道具/.test(document.getElementById('toast')?.textContent || ''), null, { timeout: 8000 }).then(() => true, () => false);
          if (got && await page.locator('#hint-panel .hint-item').count()) {
            hinted = {
              text: await page.locator('#hint-panel .hint-item').innerText(),
              marked: await page.locator(`#items-panel .seat-bar[data-seat="${st.turn}"] .item-slot.hinted`).count(),
            };
            await shot(page, 'items-hint.png');
          }
        }
        const how = used.click ? (used.key ? null : 'key') : 'click';
        let done = false;
        // the first item of the bar that can be used now (护盾 and 导弹 need a plane to aim at)
        for (let i = 0; how && i < bar.length && !done; i++) {
          const item = bar[i];
          const slot = `#items-panel .seat-bar[data-seat="${st.turn}"] .item-slot >> nth=${i}`;
          const activate = () => (how === 'click' ? page.click(slot) : page.keyboard.press(String(i + 1)));
          if (!await activateItem(page, activate)) continue;
          let tg = (await snap(page)).targeting;
          if (tg && !cancelled) {
            // Space is no roll while the target is awaited (it closed the step and rolled)
            await page.evaluate(() => /** @type {HTMLElement|null} */ (document.activeElement)?.blur());
            await page.keyboard.press(' ');
            const spaced = await snap(page);
            assert.deepEqual([spaced.version, spaced.targeting?.item], [st.version, tg.item], 'Space keeps the targeting step');
            // Escape leaves the targeting step and the item stays in the bar
            await page.keyboard.press('Escape');
            const after = await snap(page);
            assert.equal(after.targeting, null, 'Escape cancels');
            assert.equal(after.version, st.version);
            assert.equal(await page.locator(slot).isDisabled(), false);
            cancelled = true;
            await activate();
            tg = (await snap(page)).targeting;
          }
          if (tg) {
            // the roll waits for the target (Tab past the targets, then Enter, rolled and dropped
            // the item)
            assert.equal(await page.locator('#btn-roll').isDisabled(), true, 'the roll waits for the target');
            await shot(page, `items-target-${tg.item}.png`);
            if (tg.item === 'remoteDie') {
              if (how === 'click') await page.click('#item-target [data-die="6"]'); else await page.keyboard.press('6');
            } else if (how === 'click') {
              const [s, k] = tg.targets[0];
              await page.locator(`svg.board .piece.target[data-seat="${s}"][data-piece="${k + 1}"]`).dispatchEvent('click');
            } else if (tg.item === 'shield') {
              await page.keyboard.press(String(tg.targets[0][1] + 1));
            } else {
              await page.keyboard.press('ArrowRight');
              await page.keyboard.press('Enter');
            }
          }
          await nextState(page, st.version);
          const ev = await usedSince(page, st.version, 0);
          assert.ok(ev, `useItem answered with an itemUsed event (${item}, ${how})`);
          assert.equal(ev.use.item, item);
          used[how] = { item, use: ev.use };
          const said = { sixDie: '用 6数骰', booster: '用动力装置', remoteDie: '用遥控骰子', shield: '加护盾', missile: '用导弹' }[item];
          assert.ok((await page.locator('#log').innerText()).includes(said), `the use is in the log: ${said}`);
          done = true;
        }
        if (done) { actions++; continue; }
      }
      if (st.phase === 'move') {
        const k = st.toItem >= 0 ? st.toItem : st.legal[0];
        await page.locator(`svg.board .piece.legal[data-seat="${st.turn}"][data-piece="${k + 1}"]`).dispatchEvent('click');
      } else {
        await page.click('#btn-roll');
      }
      await nextState(page, st.version);
      actions++;
    }
    const kinds = await page.evaluate(() => /** @type {any} */ (window).__kinds.map((k) => k.replace(':0', '')));
    picked = await page.evaluate(() => /** @type {any} */ (window).__kinds.filter((k) => k === 'itemPicked:0').length);
    const flown = await page.evaluate(() => /** @type {any} */ (window).__flown);
    await readLog();
    console.log(`item games: ${games}, ${actions} human actions in ${((Date.now() - t0) / 1000).toFixed(1)} s; uses ${JSON.stringify(used)}; `
      + `picked by the human ${picked}; item glyphs flown ${flown}; hint ${JSON.stringify(hinted)} after ${hintTries} tries; `
      + `item events ${JSON.stringify([...new Set(kinds.filter((k) => /item|weather|shield|missile|round/i.test(k)))])}`);
    await shot(page, 'items-game.png');
    assert.ok(used.click, 'an item used by click');
    assert.ok(used.key, 'an item used by key');
    assert.ok(cancelled || ['sixDie', 'booster'].includes(used.click.item) && ['sixDie', 'booster'].includes(used.key.item), 'a targeting step was cancelled with Escape');
    assert.ok(kinds.includes('itemUsed') && kinds.includes('itemPicked') && kinds.includes('itemAppeared'), 'item events animated');
    assert.ok(flown >= 2, 'the used items flew over the board');
    assert.ok(logSaw.picked, 'a pick-up is in the log (拾取了)');
    assert.ok(logSaw.appeared, 'an item appearing is in the log (出现了)');
    if (hinted) assert.ok(hinted.marked >= 1, 'the hinted item is marked in the bar');

    // the game in English: the bar's words follow the language
    if (await page.locator('#end[open]').count()) await page.click('#end-close');
    await page.click('#btn-lang');
    assert.match(await page.locator('#items-panel').innerText(), /Item bars/);
    await page.click('#btn-lang');
    // the replay of an item game shows the bars, the round and the weather beside the board, as
    // the game screen does (it showed the icons only). The game's own replay: while it runs its
    // seed is secret, so the server cannot replay the items, and the page plays the states it saw.
    await page.evaluate(() => { const w = /** @type {any} */ (window).__fxq; w.openViewerFor({ gameId: w.current.st.gameId, local: w.current.local }); });
    await page.waitForSelector('#view-viewer:not([hidden]) svg.board');
    await page.waitForFunction(() => Number(document.getElementById('v-range')?.getAttribute('max')) > 0);
    await page.click('#v-last');
    await page.waitForSelector('#v-items:not([hidden]) .seat-bar');
    assert.match(await page.locator('#v-items').innerText(), /道具栏[\s\S]*第 \d+ 轮/);
    assert.equal(await page.locator('#v-items .item-slot:not([disabled])').count(), 0, 'the replay\'s bars are to look at');
    await page.click('#v-back');
    await page.waitForSelector('#view-game:not([hidden])');

    // --- an online room with items: the option reaches the lobby and the game shows every seat's bar
    const newRoom = async () => {
      await page.click('#btn-new');
      await page.click('#tab-online');
      await page.waitForSelector('#online-form');
      await page.fill('#nick', '道具');
      await page.dispatchEvent('#nick', 'change');
      await page.check('input[name=players][value="2"]', { force: true });
      await page.selectOption('#slot-1', 'easy');
      assert.ok(await page.isChecked('input[name=items]'), 'the remembered set-up keeps item mode');
      await page.click('#btn-create');
      await page.waitForSelector('#view-room:not([hidden]) #room-code');
      assert.match(await page.locator('#view-room').innerText(), /道具模式/);
      await page.click('#btn-room-start');
      await page.waitForSelector('#view-game:not([hidden]) #items-panel:not([hidden]) .seat-bar');
      const roomSt = await page.evaluate(() => { const s = /** @type {any} */ (window).__fxq.current.st; return { items: !!s.items, opt: s.options.items, room: !!s.room }; });
      assert.deepEqual(roomSt, { items: true, opt: true, room: true });
      assert.equal(await page.locator('#items-panel .seat-bar').count(), 2);
    };
    // play the room game by clicking; once this seat holds an item before its roll, use it (useItem
    // is a seat action in rooms); the computer's bar is seen but never usable here
    // (a game may end before this seat ever holds an item: then a new room, up to three)
    const r0 = Date.now();
    let roomUse = null, otherBarUsable = 0, mine = -1, roomActs = 0, rooms = 0;
    while (!roomUse && Date.now() - r0 < 150000) {
      const ended = await page.locator('#end[open]').count() > 0;
      if (!rooms || ended) {
        if (rooms === 3) break;
        if (ended) await page.click('#end-close');
        await newRoom();
        rooms++;
      }
      const step = await page.evaluate(() => {
        const w = /** @type {any} */ (window).__fxq;
        const st = w.current.st;
        const my = w.rooms.mySeats();
        if (/** @type {HTMLDialogElement} */ (document.getElementById('end')).open) return { over: true };
        const other = [...document.querySelectorAll('#items-panel .seat-bar')].filter((r) => !my.includes(Number(/** @type {HTMLElement} */ (r).dataset.seat)))
          .reduce((n, r) => n + r.querySelectorAll('.item-slot:not(:disabled)').length, 0);
        const go = st && st.phase !== 'over' && my.includes(st.turn)
          && (st.phase === 'move' ? document.querySelectorAll('svg.board .piece.legal').length > 0 : !/** @type {HTMLButtonElement} */ (document.getElementById('btn-roll')).disabled);
        return { go, other, mine: my[0] };
      });
      otherBarUsable += step.other || 0;
      if (step.over) continue;
      if (!step.go) { await page.waitForTimeout(40); continue; }
      mine = step.mine;
      const st = await snap(page);
      const bar = st.items.bars[st.turn] || [];
      // the first item of the bar that can be used now: 护盾 and 导弹 with no plane to aim at send
      // nothing (the screen says so), and waiting for an answer then only saw the room's turn timer
      for (let i = 0; st.phase === 'roll' && !st.items.usedThisRoll && i < bar.length && !roomUse; i++) {
        if (!await activateItem(page, () => page.click(`#items-panel .seat-bar[data-seat="${st.turn}"] .item-slot >> nth=${i}`))) continue;
        const tg = (await snap(page)).targeting;
        if (tg?.item === 'remoteDie') await page.click('#item-target [data-die="5"]');
        else if (tg) await page.locator(`svg.board .piece.target[data-seat="${tg.targets[0][0]}"][data-piece="${tg.targets[0][1] + 1}"]`).dispatchEvent('click');
        await nextState(page, st.version);
        roomUse = await usedSince(page, st.version, st.turn);
        assert.ok(roomUse, `the room answered useItem with itemUsed (${bar[i]})`);
        assert.equal(roomUse.use.item, bar[i]);
      }
      if (roomUse) break;
      if (st.phase === 'move') {
        const k = st.toItem >= 0 ? st.toItem : st.legal[0];
        await page.locator(`svg.board .piece.legal[data-seat="${st.turn}"][data-piece="${k + 1}"]`).dispatchEvent('click');
      } else await page.click('#btn-roll');
      await nextState(page, st.version).catch(() => {});
      roomActs++;
    }
    console.log(`room: seat ${mine}, ${rooms} room(s), ${roomActs} actions, item used ${JSON.stringify(roomUse)} in ${((Date.now() - r0) / 1000).toFixed(1)} s`);
    assert.ok(roomUse, 'this seat used an item in a room game');
    assert.equal(otherBarUsable, 0, 'the computer seat’s bar is never usable from this screen');
    await shot(page, 'items-room.png');
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});
