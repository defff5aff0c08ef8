// Online rooms (PROTOCOL.md §7) between two "devices" (two browser profiles) and a spectator (a
// third): A creates a 2-player Ludo room, B opens the share link, gives a nickname and gets ready, A
// starts; both play by clicking; B leaves mid-game (托管) and comes back to take the seat back;
// quick chat; the spectator sees the board without controls; the end screen on every device with
// the points moved, the revealed seed and the verify link; then the profile and the leaderboard.
import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, open, shot, URL_BASE, DESKTOP, PHONE } from './helpers.mjs';

/** The room state this page has, for the assertions. */
const roomOf = (page) => page.evaluate(() => {
  const w = /** @type {any} */ (window).__fxq;
  const st = w.current.st;
  return {
    view: w.current.view, mine: w.rooms.mySeats(), spectator: w.rooms.isSpectator(),
    room: w.rooms.room && { code: w.rooms.room.code, status: w.rooms.room.status, seed: w.rooms.room.seed, slots: w.rooms.room.slots },
    st: st && { version: st.version, phase: st.phase, turn: st.turn, cause: st.cause, room: st.room, over: !!st.over, gameId: st.gameId },
  };
});

/**
 * One action for this device if its seat is to act: roll (the roll button) or move (the first
 * highlighted piece). Returns the version acted on, 'over' once the end dialog is open, or null.
 */
const actOnce = (page) => page.evaluate(() => {
  const w = /** @type {any} */ (window).__fxq;
  if (/** @type {HTMLDialogElement} */ (document.getElementById('end')).open) return 'over';
  const st = w.current.st;
  if (w.current.view !== 'game' || !st?.room || st.phase === 'over' || !w.rooms.mySeats().includes(st.turn)) return null;
  if (st.phase === 'move') {
    const p = document.querySelector(`svg.board .piece.legal[data-seat="${st.turn}"]`);
    if (!p) return null;
    p.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    return st.version;
  }
  const b = /** @type {HTMLButtonElement} */ (document.getElementById('btn-roll'));
  if (b.disabled || b.offsetParent === null) return null;
  b.click();
  return st.version;
});

async function nickAndTab(page, nick) {
  await page.click('#tab-online');
  await page.waitForSelector('#online-form');
  await page.fill('#nick', nick);
  await page.dispatchEvent('#nick', 'change');
}

test('online room: two devices play a Ludo game, 托管 and take back, chat, a spectator, the end and the leaderboard', { timeout: 180000 }, async () => {
  const A = await launch(DESKTOP);
  const B = await launch(PHONE);
  const C = await launch(DESKTOP);
  try {
    // --- A creates the room: Ludo, 2 players, 2 pieces, 50 per piece, the default 15 s timer
    const a = await A.page();
    await open(a);
    await a.waitForSelector('#setup-form');
    await nickAndTab(a, '甲方');
    await a.check('input[name=rules][value=ludo]', { force: true });
    await a.check('input[name=players][value="2"]', { force: true });
    await a.check('input[name=pieces][value="2"]', { force: true });
    await a.check('input[name=scoring][value=perPiece50]', { force: true });
    assert.ok(await a.isChecked('input[name=timer][value="15000"]'), '15 s is the default turn timer');
    await a.click('#btn-create');
    await a.waitForSelector('#view-room:not([hidden]) #room-code');
    const code = (await a.locator('#room-code').innerText()).trim();
    assert.match(code, /^[A-Z2-9]{6}$/);
    // what a screen reader hears in A's lobby (joins and ready went unsaid)
    await a.evaluate(() => {
      const w = /** @type {any} */ (window);
      const live = /** @type {HTMLElement} */ (document.getElementById('live'));
      w.__said = [];
      new MutationObserver(() => w.__said.push(live.textContent)).observe(live, { childList: true, characterData: true, subtree: true });
    });
    const link = await a.locator('#share-link').inputValue();
    assert.ok(link.endsWith(`#room=${code}`), link);
    const commitment = (await a.locator('#room-commitment').textContent()).trim();
    assert.match(commitment, /^[0-9a-f]{64}$/);
    const seedA = await a.locator('#my-seed').inputValue();
    assert.match(seedA, /^[A-Za-z0-9_-]{22}$/, 'a client seed made in the browser');
    // B has not come yet: start is disabled with the reason
    assert.ok(await a.locator('#btn-room-start').isDisabled());
    assert.match(await a.locator('#start-why').innerText(), /空位/);
    // The room's options in words, a Ludo room's scoring per piece (每子: the word of both games).
    const summary = await a.locator('#view-room .code-card p.muted').first().innerText();
    assert.match(summary, /Ludo.*2 人.*计分: 每子 50 分/, summary);
    await shot(a, 'room-lobby-host.png');

    // --- B opens the share link in English, gives a nickname, joins and gets ready
    const b = await B.page();
    await open(b, { lang: 'en', hash: `#room=${code}` });
    await b.waitForSelector('#online-form #join-code');
    assert.equal(await b.locator('#join-code').inputValue(), code, 'the share link fills in the code');
    // the English online form fits the phone (it was 409 px wide on a 390 px screen)
    assert.equal(await b.evaluate(() => document.documentElement.scrollWidth), PHONE.width, 'no sideways scroll');
    // In English, Latin punctuation is set in a Latin font, not full width by a CJK one.
    const apostrophe = await b.evaluate(() => {
      const width = (/** @type {string} */ text) => {
        const span = document.createElement('span');
        span.textContent = text;
        document.body.append(span);
        const w = span.getBoundingClientRect().width;
        span.remove();
        return w;
      };
      return width('’') / width('M');
    });
    assert.ok(apostrophe < 0.6, `’ is ${apostrophe.toFixed(2)} of an M wide`);
    // a nickname with markup in it is text everywhere it is shown
    await b.fill('#nick', 'Bob<u>x</u>');
    // A's keyboard focus on 骰子验证 stays there as the lobby is written again for B's coming (it
    // fell to the page)
    await a.focus('#dice-verify > summary');
    await b.click('#btn-join');
    await b.waitForSelector('#view-room:not([hidden]) #btn-ready');
    await a.waitForFunction(() => /Bob/.test(document.getElementById('slots')?.textContent ?? ''), null, { timeout: 10000 });
    assert.equal(await a.evaluate(() => document.activeElement?.id), 'dice-verify-summary', 'focus kept on 骰子验证');
    // B leaves the lobby and joins again in the same tab: its client seed is sent again (the
    // new slot's was empty, and 'Ready' was refused for it)
    await b.click('#btn-leave-room');
    await b.waitForSelector('#online-form #join-code');
    await b.fill('#join-code', code);
    await b.click('#btn-join');
    await b.waitForSelector('#view-room:not([hidden]) #btn-ready');
    await a.waitForFunction(() => /** @type {any} */ (window).__fxq.rooms.room?.slots[1]?.clientSeed?.length > 0, null, { timeout: 10000 });
    await b.waitForFunction(() => /** @type {any} */ (window).__fxq.rooms.mySlot()?.clientSeed?.length > 0, null, { timeout: 10000 });
    assert.notEqual(await b.locator('#my-seed').inputValue(), '', 'the seed field shows the seed');
    assert.equal((await b.locator('#room-commitment').textContent()).trim(), commitment, 'both see the same commitment');
    // the seeds are folded under 骰子验证, present and editable there (each seat's too)
    assert.equal(await b.isVisible('#my-seed'), false, 'the seed field is folded');
    await b.click('#dice-verify summary');
    // B edits the seed before getting ready; everyone sees it
    await b.fill('#my-seed', 'bobs-own-seed_42');
    await b.dispatchEvent('#my-seed', 'change');
    await a.waitForFunction(() => /** @type {any} */ (window).__fxq.rooms.room?.slots.some((s) => s.clientSeed === 'bobs-own-seed_42'), null, { timeout: 10000 });
    await a.waitForFunction(() => (document.getElementById('seat-seeds')?.textContent ?? '').includes('bobs-own-seed_42'), null, { timeout: 10000 });
    assert.equal(await a.isVisible('#seat-seeds'), false, 'every seat\'s seed is there, folded');
    assert.equal(await b.isVisible('#my-seed'), true, 'opened, it stays open as the lobby is written again');
    await a.waitForSelector('#start-why:text-matches("Bob")');
    await b.click('#btn-ready');
    await a.waitForFunction(() => !/** @type {HTMLButtonElement} */ (document.getElementById('btn-room-start'))?.disabled, null, { timeout: 10000 });
    await a.waitForFunction(() => /** @type {any} */ (window).__said.some((/** @type {string} */ x) => /人齐了/.test(x)), null, { timeout: 5000 });
    const heard = await a.evaluate(() => /** @type {any} */ (window).__said.join(' | '));
    assert.match(heard, /Bob<u>x<\/u> 进入了房间/);
    assert.match(heard, /Bob<u>x<\/u> 离开了房间/);
    assert.match(heard, /Bob<u>x<\/u> 已准备/);
    await shot(b, 'room-lobby-guest-phone.png');
    const slotsText = await a.locator('#slots').innerText();
    assert.match(slotsText, /甲方/);
    // the lobby is written again in the other language at once (it waited for the next message)
    await a.click('#btn-lang');
    assert.match(await a.locator('#view-room').innerText(), /Room code/);
    await a.click('#btn-lang');
    assert.match(await a.locator('#view-room').innerText(), /房间号/);
    assert.match(slotsText, /Bob/);

    // --- A starts; both devices show the board with the names per seat
    await a.click('#btn-room-start');
    for (const p of [a, b]) await p.waitForSelector('#view-game:not([hidden]) svg.board', { timeout: 15000 });
    await a.waitForFunction(() => /** @type {any} */ (window).__fxq.current.st?.room, null, { timeout: 15000 });
    const ra = await roomOf(a);
    const rb = await roomOf(b);
    assert.equal(ra.mine.length, 1);
    assert.equal(rb.mine.length, 1);
    assert.notEqual(ra.mine[0], rb.mine[0], 'the two people hold different seats');
    assert.equal(await a.locator('#btn-hint').isVisible(), false, 'no hint in rooms');
    assert.equal(await a.locator('#btn-undo').isVisible(), false, 'no undo in rooms');
    // (attached: a seat's tag gives way while the die is in its hangar)
    await a.waitForSelector('#board .seat-tag:has-text("Bob")', { state: 'attached' });
    for (const p of [a, b]) {
      assert.match(await p.locator('#players').innerText(), /Bob<u>x<\/u>/, 'the player list shows the nickname as text');
      assert.equal(await p.locator('#players u, #slots u, #board .seat-tag u, #end u').count(), 0, 'no markup from a nickname');
    }
    await b.waitForSelector('#board .seat-tag:has-text("甲方")', { state: 'attached' });

    // --- C watches through the same link: the same board, no controls
    const c = await C.page();
    await open(c, { hash: `#room=${code}` });
    await c.waitForSelector('#online-form #nick');
    await c.fill('#nick', '观众丙');
    await c.click('#btn-watch');
    await c.waitForSelector('#view-game:not([hidden]) svg.board', { timeout: 15000 });
    await c.waitForFunction(() => /** @type {any} */ (window).__fxq.current.st?.room, null, { timeout: 15000 });
    const rc = await roomOf(c);
    assert.ok(rc.spectator, 'C is a spectator');
    assert.equal(await c.locator('#btn-roll').isVisible(), false, 'a spectator has no roll button');
    assert.equal(await c.locator('#chat-game').count(), 0, 'a spectator has no chat buttons');
    await a.waitForFunction(() => /** @type {any} */ (window).__fxq.rooms.room?.spectators >= 1, null, { timeout: 10000 });

    // --- quick chat: A says 你好！, B (in English) sees "Hi!" next to A's seat
    await a.click('#chat-game summary');
    // a Ludo room's phrases speak of captures (吃), not of 飞行棋's 撞
    assert.equal(await a.locator('#chat-game button[data-phrase="4"]').innerText(), '别吃我！');
    await a.click('#chat-game button[data-phrase="0"]');
    await b.waitForSelector('#board .chat-bubble:text-is("Hi!")', { timeout: 10000 });
    await c.waitForSelector('#board .chat-bubble:text-is("你好！")', { timeout: 10000 });
    // Esc closes the quick chat, focus back on its summary (it stayed open)
    await a.focus('#chat-game button[data-phrase="1"]');
    await a.keyboard.press('Escape');
    assert.deepEqual(await a.evaluate(() => [/** @type {HTMLDetailsElement} */ (document.getElementById('chat-game')).open, document.activeElement?.tagName]), [false, 'SUMMARY']);

    // --- B's connection drops: the page reconnects by itself, logs in with its token and re-joins
    const vB = (await roomOf(b)).st.version;
    await b.evaluate(() => /** @type {any} */ (window).__fxq.net.ws.close());
    await b.waitForFunction(() => { const n = /** @type {any} */ (window).__fxq.net; return n.loggedIn && n.ws?.readyState === 1 && n.room; }, null, { timeout: 15000 });
    await b.waitForFunction((v) => /** @type {any} */ (window).__fxq.current.st?.version >= v, vB, { timeout: 15000 });
    assert.deepEqual((await roomOf(b)).mine, rb.mine, 'B holds the same seat after reconnecting');
    // the log, rebuilt on the re-join, keeps the chat line between the plies; so does a reload
    // of the page (a room's log came back empty)
    assert.match(await b.locator('#log').innerText(), /甲方：Hi!/);
    const before = await b.locator('#log li').allInnerTexts();
    await b.reload();
    await b.waitForSelector('#view-game:not([hidden]) svg.board', { timeout: 15000 });
    await b.waitForFunction(() => /** @type {any} */ (window).__fxq.current.st?.room, null, { timeout: 15000 });
    await b.waitForFunction((n) => document.querySelectorAll('#log li').length >= n, Math.min(before.length, 30), { timeout: 10000 });
    assert.deepEqual((await b.locator('#log li').allInnerTexts()).slice(0, 30), before.slice(0, 30), 'B\'s log after a reload');

    // --- play by clicking on both devices; B leaves (托管) after a few actions and comes back
    let timerSeen = false, autoSeen = false, tookBack = false, actions = 0;
    const t0 = Date.now();
    while (Date.now() - t0 < 120000) {
      const ends = await Promise.all([a, b].map((p) => p.evaluate(() => /** @type {HTMLDialogElement} */ (document.getElementById('end')).open)));
      if (ends[0] && ends[1]) break;
      if (!timerSeen && await a.locator('#turn-timer').isVisible()) {
        const secs = Number(await a.locator('#turn-timer b').innerText());
        assert.ok(secs >= 1 && secs <= 15, `timer shows ${secs}`);
        timerSeen = true;
      }
      if (actions >= 6 && !autoSeen) {
        // B leaves: its seat goes into 托管 at once; A sees the badge
        b.once('dialog', (d) => d.accept());
        await b.click('#btn-room-leave');
        await b.waitForSelector('#online-form #btn-back-room', { timeout: 10000 });
        await a.waitForSelector('#board .seat-tag .tag.auto', { timeout: 10000, state: 'attached' });
        // a long name gives way: the 托管 badge shows whole inside its tag (it was cut off)
        const cut = await a.evaluate(() => {
          const badge = /** @type {HTMLElement} */ (document.querySelector('#board .seat-tag .tag.auto'));
          const r = badge.getBoundingClientRect(), q = /** @type {HTMLElement} */ (badge.closest('.seat-tag')).getBoundingClientRect();
          return r.right > q.right + 0.5 || r.width < 8 ? `${r.left}–${r.right} in ${q.left}–${q.right}` : '';
        });
        assert.equal(cut, '', 'the 托管 badge is cut off');
        await shot(a, 'room-auto.png');
        autoSeen = true;
        // B comes back (another tab or a reload would do the same) and takes the seat back
        await b.click('#btn-back-room');
        await b.waitForSelector('#view-game:not([hidden]) svg.board', { timeout: 15000 });
        const back = await b.waitForSelector('#btn-take-back', { timeout: 15000 }).catch(() => null);
        if (back) {
          // while the server plays B's seat in 托管 (A playing on), B's screen does not call
          // it B's turn
          await b.evaluate(() => {
            const el = /** @type {HTMLElement} */ (document.getElementById('banner'));
            const seen = /** @type {any} */ (window).__banners = /** @type {string[]} */ ([]);
            new MutationObserver(() => { if (el.classList.contains('show')) seen.push(el.textContent || ''); })
              .observe(el, { attributes: true, childList: true, characterData: true, subtree: true });
          });
          for (let i = 0, t1 = Date.now(); i < 4 && Date.now() - t1 < 20000;) {
            const v = await actOnce(a);
            if (typeof v === 'number') {
              i++;
              await a.waitForFunction((v0) => /** @type {any} */ (window).__fxq.current.st?.version !== v0 || /** @type {HTMLDialogElement} */ (document.getElementById('end')).open, v, { timeout: 15000 });
            } else if (v === 'over') break;
            else await a.waitForTimeout(200);
          }
          const banners = await b.evaluate(() => /** @type {any} */ (window).__banners);
          const yourTurn = await b.evaluate(() => /** @type {any} */ (window).__fxq.t('yourTurnBanner'));
          assert.ok(!banners.includes(yourTurn), `banners in 托管: ${banners}`);
        }
        if (back && await b.locator('#btn-take-back').isVisible()) {
          await b.click('#btn-take-back');
          await a.waitForFunction(() => !/** @type {any} */ (window).__fxq.rooms.room?.slots.some((s) => s.auto), null, { timeout: 10000 });
          await a.waitForSelector('#board .seat-tag .tag.auto', { state: 'detached', timeout: 10000 });
          tookBack = true;
        } else {
          console.log('rooms: the game ended while B was away');
        }
        actions++;
        continue;
      }
      let acted = false;
      for (const p of [a, b]) {
        const v = await actOnce(p);
        if (typeof v === 'number') {
          acted = true;
          actions++;
          await p.waitForFunction((v0) => /** @type {any} */ (window).__fxq.current.st?.version !== v0 || /** @type {HTMLDialogElement} */ (document.getElementById('end')).open, v, { timeout: 15000 });
        }
      }
      if (!acted) await a.waitForTimeout(40);
    }
    console.log(`rooms: ${actions} actions by two people in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    assert.ok(timerSeen, 'the turn timer was shown');
    assert.ok(autoSeen, 'the 托管 badge was shown');
    if (tookBack) console.log('rooms: B took the seat back from 托管');

    // --- the end on every device: ranking, points moved, the revealed seed, the verify link
    for (const p of [a, b, c]) await p.waitForSelector('#end[open]', { timeout: 30000 });
    await a.waitForSelector('#end-seed', { timeout: 10000 });
    const seed = (await a.locator('#end-seed').innerText()).trim();
    assert.match(seed, /^[0-9a-f]+$/);
    const final = await roomOf(a);
    assert.equal(final.room.status, 'over');
    assert.equal(final.room.seed, seed);
    const href = await a.locator('#end-verify').getAttribute('href');
    assert.equal(href, `verify.html#game=${encodeURIComponent(final.st.gameId)}`);
    await a.waitForFunction(() => !document.querySelector('#end-points .muted'), null, { timeout: 10000 });
    const points = await a.locator('#end-points').innerText();
    assert.match(points, /甲方/);
    assert.match(points, /Bob/);
    assert.match(await a.locator('#end .rank tbody').innerText(), /Bob/, 'the ranking names the people');
    await shot(a, 'room-end.png');
    await shot(b, 'room-end-phone.png');
    // so does the end screen (its ranking pushed it to 440 px, the score column cut off)
    const endWide = await b.evaluate(() => { const e = /** @type {HTMLElement} */ (document.getElementById('end-in')); return e.scrollWidth - e.clientWidth; });
    assert.equal(endWide, 0, 'the end screen fits the phone');
    await shot(c, 'room-end-spectator.png');

    // --- the record's seed is the revealed one, and the profile / leaderboard count the game
    const rec = await (await fetch(new URL(`api/games/${final.st.gameId}/record`, URL_BASE))).json();
    assert.ok(rec.dice.seed, 'the record reveals the seed');
    // 再来一局 in the room is the host's (A is here): B's end screen has only 离开房间
    assert.equal(await b.locator('#end-again').count(), 0);
    assert.equal(await b.locator('#end-leave').count(), 1);
    // on every device focus is on a button of the end screen, not on its scroll box (Enter did
    // nothing there): the host's first step, the guest's and the spectator's 关闭
    for (const p of [a, b, c]) {
      const on = await p.evaluate(() => document.activeElement?.tagName + '#' + document.activeElement?.id);
      assert.match(on, /^(BUTTON)#end-/, 'focus on the end screen');
    }
    assert.equal(await b.evaluate(() => document.activeElement?.id), 'end-close');
    await a.click('#end-leave');
    await a.waitForSelector('#online-form');
    // 离开房间 tells the server (it only let the room go in the browser: the host stayed
    // connected, and nobody else could start the next game); B's open end screen then offers
    // 再来一局 itself
    const left = await (await fetch(new URL(`api/rooms/${code}`, URL_BASE))).json();
    assert.equal(left.slots.find((/** @type {any} */ x) => x.nickname === '甲方')?.connected, false, JSON.stringify(left.slots));
    await b.waitForSelector('#end[open] #end-again', { timeout: 10000 });
    await a.click('#btn-profile');
    await a.waitForSelector('#view-profile:not([hidden]) .stats-row');
    await a.waitForSelector('#board-card table');
    const prof = await a.locator('#profile-card').innerText();
    assert.match(prof, /甲方/);
    const lb = await a.locator('#board-card').innerText();
    assert.match(lb, /甲方/);
    assert.match(lb, /Bob/);
    await a.waitForSelector(`#profile-card a[href="#record=g:${final.st.gameId}"]`);
    await shot(a, 'room-profile.png');

    for (const x of [A, B, C]) assert.deepEqual(x.errors, []);
  } finally {
    await Promise.all([A.close(), B.close(), C.close()]);
  }
});

// One person against a computer in a scored 飞行棋 room: the buttons a quick finger presses twice,
// 新游戏 asking before it hands the seat to 托管, 再来一局 back to the room's lobby, and the points on
// the online tab after the game.
test('online room: double clicks make one room and one start; 新游戏 asks; 再来一局 in the room; the points shown stay current', { timeout: 180000 }, async () => {
  const A = await launch(DESKTOP);
  try {
    const a = await A.page();
    /** @type {string[]} */
    const sent = [];
    a.on('websocket', (ws) => ws.on('framesent', (f) => { const m = /"type":"(\w+)"/.exec(String(f.payload)); if (m) sent.push(m[1]); }));
    await open(a);
    await a.waitForSelector('#setup-form');
    await nickAndTab(a, '连点');
    await a.check('input[name=rules][value=feixingqi]', { force: true });
    await a.check('input[name=players][value="2"]', { force: true });
    await a.check('input[name=pieces][value="2"]', { force: true });
    await a.check('input[name=scoring][value=perPiece50]', { force: true });
    await a.selectOption('#slot-1', 'easy');
    const before = await a.evaluate(() => /** @type {any} */ (window).__fxq.rooms.me?.points ?? null);
    // a double click on 创建房间 made two rooms, on 开始对局 a second start whose error showed
    await a.dblclick('#btn-create');
    await a.waitForSelector('#view-room:not([hidden]) #room-code');
    await a.dblclick('#btn-room-start');
    await a.waitForSelector('#view-game:not([hidden]) svg.board');
    await a.waitForTimeout(500);
    assert.equal(sent.filter((x) => x === 'createRoom').length, 1, `messages: ${sent}`);
    assert.equal(sent.filter((x) => x === 'start').length, 1, `messages: ${sent}`);
    assert.ok(!(await a.locator('.toast.show').count()), 'no error after the start');
    // 新游戏 in a game asks first, as 离开（交给托管）does; dismissed, the seat stays
    let asked = '';
    a.once('dialog', (d) => { asked = d.message(); d.dismiss(); });
    await a.click('#btn-new');
    await a.waitForTimeout(300);
    assert.ok(asked.length > 0, 'a confirmation was asked');
    assert.equal(await a.evaluate(() => /** @type {any} */ (window).__fxq.current.view), 'game');
    assert.equal(sent.filter((x) => x === 'leaveRoom').length, 0, `messages: ${sent}`);
    // play it out
    for (let t0 = Date.now(); Date.now() - t0 < 150000;) {
      const v = await actOnce(a);
      if (v === 'over') break;
      if (typeof v === 'number') await a.waitForFunction((v0) => /** @type {any} */ (window).__fxq.current.st?.version !== v0 || /** @type {HTMLDialogElement} */ (document.getElementById('end')).open, v, { timeout: 15000 });
      else await a.waitForTimeout(60);
    }
    await a.waitForSelector('#end[open]');
    await a.waitForFunction(() => !document.querySelector('#end-points .muted'), null, { timeout: 10000 });
    // 再来一局 in the room: the lobby again, with a new commitment and a new client seed, and a
    // reload comes back to it
    const first = await a.evaluate(() => { const r = /** @type {any} */ (window).__fxq.rooms.room; return { commitment: r.commitment, code: r.code, gameId: r.gameId }; });
    const firstSeed = await a.evaluate((code) => JSON.parse(localStorage.getItem(`fxq.seed.${code}`) || '""'), first.code);
    // a reload at the end comes back to the room's end screen (it went to the set-up, out of the
    // room, and the next lobby opened without this person)
    await a.reload();
    await a.waitForSelector('#end[open] #end-again', { timeout: 15000 });
    await a.click('#end-again');
    await a.waitForSelector('#view-room:not([hidden]) #room-code');
    assert.equal(await a.locator('#end[open]').count(), 0, 'the end screen gave way');
    const commitment = (await a.locator('#room-commitment').textContent()).trim();
    assert.notEqual(commitment, first.commitment);
    await a.waitForFunction((s0) => { const v = /** @type {HTMLInputElement|null} */ (document.getElementById('my-seed'))?.value; return !!v && v !== s0; }, firstSeed);
    await a.reload();
    await a.waitForSelector('#view-room:not([hidden]) #room-code', { timeout: 15000 });
    assert.equal((await a.locator('#room-code').innerText()).trim(), first.code);
    // the last game's record still verifies against its own seed
    const last = await (await fetch(new URL(`api/games/${first.gameId}/record`, URL_BASE))).json();
    assert.equal(last.dice.commitment, first.commitment);
    assert.ok(last.dice.seed && last.room === first.code, JSON.stringify(last.dice));
    // a friend's share link finds the lobby full (the computer's slot): they watch; the host
    // opens the slot and the spectator takes it (a watcher of a lobby had no way to sit down)
    const F = await launch(DESKTOP);
    try {
      const f = await F.page();
      await open(f, { hash: `#room=${first.code}` });
      await f.waitForSelector('#online-form #join-code');
      await f.fill('#nick', '朋友');
      await f.click('#btn-watch');
      await f.waitForSelector('#view-room:not([hidden]) #btn-sit[disabled]');
      await a.selectOption('#slots select[data-slot="1"]', 'open');
      await f.waitForSelector('#btn-sit:not([disabled])');
      await f.click('#btn-sit');
      await f.waitForSelector('#view-room:not([hidden]) #btn-ready');
      await a.waitForFunction(() => /** @type {any} */ (window).__fxq.rooms.room?.slots[1]?.nickname === '朋友');
      assert.deepEqual(F.errors, []);
    } finally {
      await F.close();
    }
    // back on the online tab, the points are the account's after the game (they stayed at the
    // login's)
    await a.click('#btn-leave-room');
    await a.waitForSelector('#online-form');
    const id = await a.evaluate(() => /** @type {any} */ (window).__fxq.rooms.meId());
    const profile = await (await fetch(new URL(`api/players/${id}`, URL_BASE))).json();
    assert.notEqual(profile.points, before, 'the game moved points');
    const shown = await a.locator('#me-points').innerText();
    assert.ok(shown.includes(String(profile.points)), `${shown} against ${profile.points}`);
    // a room without scoring lists no points moved (it said 0 → 1000 for everyone)
    const plain = await a.evaluate(() => {
      const r = /** @type {any} */ (window).__fxq.rooms;
      const room = r.room;
      r.room = { ...(room || {}), options: { ...(room?.options || {}), scoring: 'none' }, slots: [] };
      const html = r.endExtra({ dice: {} });
      r.room = room;
      return html;
    });
    assert.ok(!plain.includes('end-points'), plain);
    assert.deepEqual(A.errors, []);
  } finally {
    await A.close();
  }
});
