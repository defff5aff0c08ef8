// Whole games through the UI against computers: roll, choose, 大师提示, 悔棋, fast-forward,
// 继续观看, the end screen, the record download and the replay viewer.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launch, open, setupGame, playThrough, shot, state, DESKTOP, PHONE } from './helpers.mjs';

/** The end screen after a fast-forward: 继续观看 plays the same events and ends on the same result. */
async function watchFastForward(page, rules) {
  // every human finished before the computers: the result came at once
  console.log(`${rules}: fast-forward result shown at once; watching it`);
  await shot(page, `fast-forward-${rules}.png`);
  const ranking = await page.locator('#end .rank tbody').innerText();
  const final = await page.evaluate(() => /** @type {any} */ (window).__fxq.current.st.seats.flatMap((s) => s.pieces.map((p, k) => ({ seat: s.seat, piece: k, p: p.finished ? 56 : p.progress ?? -1 }))));
  const before = await page.evaluate(() => /** @type {any} */ (window).__fxq.current.board.state());
  assert.notDeepEqual(before, final, 'the board still shows the position before the fast-forward');
  await page.click('#end-watch');
  await page.waitForSelector('#end[open]', { timeout: 60000 });
  assert.equal(await page.locator('#end-watch').count(), 0);
  assert.equal(await page.locator('#end .rank tbody').innerText(), ranking, 'same ranking after watching');
  const after = await page.evaluate(() => /** @type {any} */ (window).__fxq.current.board.state());
  assert.deepEqual(after, final, 'the watched play ends where the fast-forward did');
  // and the die has left the finished board, as at the end of a game played out
  assert.equal(await page.locator('#die').isHidden(), true, 'no die on the finished board');
  return true;
}

for (const [rules, vp] of [['feixingqi', DESKTOP], ['ludo', PHONE]]) {
  test(`${rules}: whole games against three computers`, { timeout: 200000 }, async () => {
    const b = await launch(vp);
    try {
      const page = await b.page();
      await open(page);
      // Hint and undo need a human choice, fast-forward needs every human to finish while two
      // computers still play: the dice decide, so play up to four games (following the Master hint).
      let hinted = false, undone = false, ffSeen = false;
      for (let game = 1; game <= 4 && !(hinted && undone && ffSeen); game++) {
        if (game > 1) await page.click(await page.locator('#end[open]').count() ? '#end-again' : '#btn-new');
        if (game === 1) {
          // 开始游戏 is in reach without scrolling, on a phone too (it was some 1,450 px down)
          await page.waitForSelector('#setup-form');
          const start = await page.locator('#btn-start').boundingBox();
          assert.ok(start && start.y + start.height <= vp.height, `开始游戏 at ${start?.y}`);
        }
        await setupGame(page, { rules, players: 4, pieces: 2, seats: { 1: 'easy', 2: 'easy', 3: 'easy' } });
        // the whole commitment shows before the first roll (a 16-digit prefix did)
        const commitment = await page.evaluate(() => /** @type {any} */ (window).__fxq.current.st.dice.commitment);
        assert.match(commitment, /^[0-9a-f]{64}$/);
        // folded to its first digits, the whole one a click away (and in the summary's title)
        assert.ok((await page.locator('#commit summary').innerText()).includes(commitment.slice(0, 8)), 'its first digits in sight');
        await page.click('#commit summary');
        assert.ok((await page.locator('#commit').innerText()).includes(commitment), 'the full commitment');
        // the banners shown (跳子 and 后退 had none, only a log line)
        if (game === 1) {
          await page.evaluate(() => {
            const el = /** @type {HTMLElement} */ (document.getElementById('banner'));
            const seen = /** @type {any} */ (window).__banners = /** @type {string[]} */ ([]);
            new MutationObserver(() => { if (el.classList.contains('show')) seen.push(el.textContent || ''); })
              .observe(el, { attributes: true, childList: true, characterData: true, subtree: true });
          });
        }
        const t0 = Date.now();
        const log = await playThrough(page, { hint: !hinted, hintLang: !hinted, followHint: true, undo: !undone, shotHint: `hint-${rules}.png` });
        hinted ||= log.hinted;
        undone ||= log.undone;
        console.log(`${rules} game ${game}: ${log.actions} human actions, ${log.choices} choices, in ${((Date.now() - t0) / 1000).toFixed(1)} s; undo gave the same die: ${JSON.stringify(log.undoDie)}`);
        await page.waitForSelector('#end[open]');
        const st = await state(page);
        assert.equal(st.phase, 'over');
        assert.equal(await page.locator('#end .hist figure').count(), 4, 'a histogram per seat');
        // the player's own place first, and 再来一局 in sight without scrolling (it came after the
        // histograms and the grades, below the fold on a phone)
        const mine = await page.evaluate(() => /** @type {any} */ (window).__fxq.current.st.over.ranking.indexOf(0) + 1);
        assert.equal(await page.locator('#end .you-place').innerText(), mine === 1 ? '你赢了！' : `你获得第 ${mine} 名`);
        const again = await page.locator('#end-again').boundingBox();
        assert.ok(again && again.y + again.height <= vp.height, `再来一局 at ${again?.y}`);
        assert.equal(await page.locator('#end .hist .luck .p').count(), 4, 'a χ² p-value per seat');
        const winLuck = await page.locator('#end .hist .luck .win-luck').allTextContents();
        assert.equal(winLuck.length, 4, 'dice luck in win-% points per seat');
        assert.ok(winLuck.every((x) => /[-+]?\d+\.\d/.test(x)), winLuck.join(' | '));
        assert.match(await page.locator('#end-verify').getAttribute('href') || '', /^verify\.html#game=/);
        await shot(page, `end-${rules}.png`);
        if (await page.locator('#end-watch').count()) ffSeen = await watchFastForward(page, rules);
        if (game === 1 && rules === 'feixingqi') {
          const seen = await page.evaluate(() => /** @type {any} */ (window).__banners);
          assert.ok(seen.includes('跳子！'), `banners: ${[...new Set(seen)].join(' / ')}`);
        }
        if (game === 1) await recordAndReplay(page, b, rules);
      }
      assert.ok(hinted, 'the hint was used');
      assert.ok(undone, 'undo was used');
      if (!ffSeen) console.log(`${rules}: the human never finished before two computers in four games; fast-forward not exercised`);
      assert.deepEqual(b.errors.filter((e) => !/api\/replay/.test(e)), []);
    } finally {
      await b.close();
    }
  });
}

/** Downloads the record, opens the replay viewer, the record as a file and as a #record= link. */
async function recordAndReplay(page, b, rules) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#end-download')]);
  const file = await dl.path();
  const rec = JSON.parse(readFileSync(file, 'utf8'));
  assert.equal(rec.format, 'feixingqi-record');
  assert.equal(rec.rules, rules);
  assert.ok(rec.plies.length > 10);
  assert.ok(rec.dice.seed, 'seed revealed after the game');
  await page.click('#end-replay');
  await page.waitForSelector('#view-viewer:not([hidden]) svg.board');
  await page.waitForTimeout(300);
  const frames = Number(await page.locator('#v-range').getAttribute('max'));
  assert.ok(frames > 0, 'the viewer has frames');
  await page.click('#v-next');
  await page.click('#v-next');
  // Scrub while a step is still animating: where the user went must stay (the finishing step
  // used to move on from there, one ply too far). At the normal animation speed, from just
  // before a move that walks several squares, so that the step is surely still animating.
  const walk = await page.evaluate(() => {
    const v = /** @type {any} */ (window).__fxq.viewer;
    v.setSpeed(1);
    return v.frames.findIndex((f) => (f.events || []).filter((e) => e.kind === 'step').length >= 4);
  });
  assert.ok(walk >= 0, 'the game has a move of several squares');
  await page.locator('#v-range').fill(String(walk));
  await page.click('#v-next');
  await page.locator('#v-range').fill(String(Math.floor(frames / 2)));
  await page.waitForTimeout(2500);
  await page.evaluate(() => /** @type {any} */ (window).__fxq.viewer.setSpeed(0));
  assert.match(await page.locator('#v-pos').innerText(), new RegExp(`${Math.floor(frames / 2)} / ${frames}`));
  // After the jump the log reads as the game did up to here: the rolls of the plies before this
  // position, newest first (it used to keep the lines of the plies stepped through elsewhere).
  const { want, got } = await page.evaluate((m) => {
    const v = /** @type {any} */ (window).__fxq.viewer;
    const want = v.frames.slice(Math.max(0, m - 30), m).flatMap((/** @type {any} */ f) => (f.events || []).filter((/** @type {any} */ e) => e.kind === 'rolled').map((/** @type {any} */ e) => e.die)).reverse();
    const got = [...document.querySelectorAll('#v-log li')].map((li) => li.textContent?.match(/掷出 ([1-6])$/)?.[1]).filter(Boolean).map(Number);
    return { want, got };
  }, Math.floor(frames / 2));
  assert.ok(want.length > 0, 'rolls before the middle of the game');
  assert.deepEqual(got, want);
  // every move says where it went (not only its jumps and captures): the last plain walk's line
  const walked = await page.evaluate((m) => {
    const v = /** @type {any} */ (window).__fxq.viewer;
    for (let i = m - 1; i >= Math.max(0, m - 30); i--) {
      const ev = v.frames[i].events || [];
      const last = ev.filter((/** @type {any} */ e) => e.kind === 'step').pop();
      if (last && last.to < 56 && !ev.some((/** @type {any} */ e) => ['jump', 'fly', 'parked', 'captured', 'takeOff'].includes(e.kind))) return { seat: last.seat, piece: last.piece + 1, to: last.to };
    }
    return null;
  }, Math.floor(frames / 2));
  const lines = await page.locator('#v-log li').allInnerTexts();
  if (walked) {
    const where = walked.to > 50 ? `终点道第 ${walked.to - 50} 格` : `第 ${walked.to} 格`;
    assert.ok(lines.some((l) => l.endsWith(`${walked.piece} 号走到 ${where}`)), `no line for piece ${walked.piece} → ${where}: ${lines.slice(0, 12).join(' | ')}`);
  }
  // a jump's line names its seat (in a log rebuilt from the middle of a game, it may stand alone)
  const jump = await page.evaluate((m) => {
    const v = /** @type {any} */ (window).__fxq.viewer;
    return v.frames.slice(Math.max(0, m - 30), m).flatMap((/** @type {any} */ f) => f.events || []).filter((/** @type {any} */ e) => e.kind === 'jump').pop() ?? null;
  }, Math.floor(frames / 2));
  if (rules === 'feixingqi' && jump) {
    const name = ['红方', '黄方', '蓝方', '绿方'][jump.seat];
    assert.ok(lines.includes(`${name} ${jump.piece + 1} 号跳子`), `no line for ${name}'s jump: ${lines.slice(0, 12).join(' | ')}`);
  }
  // → pressed while a step animates ends it and goes on: three presses are three plies (the
  // presses during a step were dropped: one ply for three)
  await page.evaluate((w) => { const v = /** @type {any} */ (window).__fxq.viewer; v.seek(w); v.setSpeed(1); }, walk);
  await page.evaluate(() => /** @type {HTMLElement} */ (document.activeElement)?.blur());
  for (let k = 0; k < 3; k++) { await page.keyboard.press('ArrowRight'); await page.waitForTimeout(20); }
  await page.waitForFunction(() => !/** @type {any} */ (window).__fxq.viewer.busy, null, { timeout: 5000 });
  await page.evaluate(() => /** @type {any} */ (window).__fxq.viewer.setSpeed(0));
  assert.match(await page.locator('#v-pos').innerText(), new RegExp(`^[^0-9]*${walk + 3} / ${frames}`));
  // a jump is told to a screen reader (it heard nothing of the replay): Home, then End
  await page.keyboard.press('Home');
  await page.waitForFunction((w) => new RegExp(w).test(document.getElementById('live')?.textContent ?? ''), `已走 0 / ${frames} 步`, { timeout: 5000 });
  await page.keyboard.press('End');
  await page.waitForFunction((w) => new RegExp(w).test(document.getElementById('live')?.textContent ?? ''), `已走 ${frames} / ${frames} 步`, { timeout: 5000 });
  // the record line says who sat where (the computers' levels here; a room's nicknames)
  assert.match(await page.locator('#v-info').innerText(), /（电脑·(入门|普通|困难|大师)）/);
  console.log(`${rules}: viewer: ${await page.locator('#v-info').innerText()}`);
  await shot(page, `replay-${rules}.png`);
  await page.setInputFiles('#v-file', file);
  await page.waitForSelector('#view-viewer:not([hidden]) svg.board');
  // An uploaded record is replayed by the server (POST /api/replay): one frame per ply.
  await page.waitForFunction((n) => document.getElementById('v-range')?.getAttribute('max') === String(n), rec.plies.length);
  const gameId = await page.evaluate(() => /** @type {any} */ (window).__fxq.current.st.gameId);
  const link = await b.context.newPage();
  await open(link, { hash: `#record=g:${gameId}` });
  await link.waitForSelector('#view-viewer:not([hidden]) svg.board');
  await link.waitForFunction(() => (document.getElementById('v-info')?.textContent || '').length > 0);
  await link.waitForFunction((n) => document.getElementById('v-range')?.getAttribute('max') === String(n), rec.plies.length);
  console.log(`${rules}: #record= link → ${await link.locator('#v-info').innerText()}`);
  await link.close();
}

test('复盘: a graded mistake opens the replay at its position, the Master\'s best marked', { timeout: 200000 }, async () => {
  const b = await launch(DESKTOP);
  try {
    const page = await b.page();
    await open(page);
    // The human always moves the first legal piece: it gives away points sooner or later.
    let shown = 0;
    for (let game = 1; game <= 3 && !shown; game++) {
      if (game > 1) await page.click('#end-again');
      await setupGame(page, { rules: 'ludo', players: 2, pieces: 4, seats: { 2: 'easy' } });
      await playThrough(page, {});
      await page.waitForSelector('#end[open]');
      shown = await page.locator('#end .grades button.review').count();
    }
    assert.ok(shown > 0, 'three games of always the first piece without a graded mistake');
    // 棋力: the computer level the play was nearest (or too few decisions to say).
    const strength = await page.locator('#end .grades .plays-like').first().innerText();
    const summary = await page.evaluate(() => /** @type {any} */ (window).__fxq.current.st.over.analysis.seats[0]);
    assert.match(strength, summary.decisions >= 10 ? /^棋力：本局约相当于电脑“(入门|普通|困难|大师)”.*电脑：入门 \d/ : /选择太少/, strength);
    // Graded on a core to spare, no decision was graded quickly; a summary whose end found
    // none spare says how many were (docs/PROTOCOL.md §3 `analysis.quick`).
    assert.equal(await page.locator('#end .grades .quick-graded').count(), 0);
    const quickNote = await page.evaluate(async () => {
      const { renderEnd } = await import('./js/end.js');
      const st = structuredClone(/** @type {any} */ (window).__fxq.current.st);
      st.over.analysis.quick = 3;
      const host = document.createElement('div');
      const none = () => {};
      renderEnd(host, st, { fastForward: false, onWatch: none, onDownload: none, onReplay: none, onAgain: none, onClose: none });
      return host.querySelector('.grades .quick-graded')?.textContent ?? '';
    });
    assert.match(quickNote, /其中 3 次选择只用一层快速评估打分/, quickNote);
    // In 道具模式 the dice note says that a die fixed by an item counts in none of its figures.
    const luckNotes = await page.evaluate(async () => {
      const { renderEnd } = await import('./js/end.js');
      const none = () => {};
      const note = (/** @type {any} */ st) => {
        const host = document.createElement('div');
        renderEnd(host, st, { fastForward: false, onWatch: none, onDownload: none, onReplay: none, onAgain: none, onClose: none });
        return host.querySelector('section:has(.hist) p.muted')?.textContent ?? '';
      };
      const st = structuredClone(/** @type {any} */ (window).__fxq.current.st);
      const plain = note(st);
      st.rules = 'feixingqi';
      const fxq = note(st);
      st.items = { board: [], bars: [], weather: null, shields: [] };
      return { plain, fxq, items: note(st) };
    });
    assert.match(luckNotes.plain, /骰运/, luckNotes.plain);
    // The note's example speaks each game's words: a Ludo piece leaves the yard, a plane takes off.
    assert.match(luckNotes.plain, /急需出营时是好运，营区已经空了/, luckNotes.plain);
    assert.doesNotMatch(luckNotes.plain, /停机坪|起飞/, luckNotes.plain);
    assert.match(luckNotes.fxq, /急需起飞时是好运，停机坪已经空了/, luckNotes.fxq);
    assert.doesNotMatch(luckNotes.plain, /道具模式/, luckNotes.plain);
    assert.match(luckNotes.items, /道具模式：6数骰、遥控骰子定下的点数是选的/, luckNotes.items);
    // The line names the roll and both landings; the first mistake listed opens the replay.
    const decisions = await page.evaluate(() => {
      const d = /** @type {any} */ (window).__fxq.current.st.over.analysis.decisions;
      return d.filter((x) => x.grade !== 'good').sort((a, x) => a.ply - x.ply);
    });
    const line = await page.locator('#end .grades li:has(button.review)').first().innerText();
    assert.match(line, /掷出 [1-6]）：走了 \d 号 → .+，大师会走 \d 号 → .+（胜率 −\d+\.\d%）/, line);
    const first = await page.evaluate(() => {
      const li = document.querySelector('#end .grades li:has(button.review)');
      return li?.textContent ?? '';
    });
    const d = decisions.find((x) => first.includes(`第 ${x.ply + 1} 步`));
    assert.ok(d, `the line is one of the graded decisions: ${first}`);
    await shot(page, 'end-review-ludo.png');
    await page.locator('#end .grades button.review').first().click();
    await page.waitForSelector('#view-viewer:not([hidden]) svg.board');
    await page.waitForSelector('#v-note:not([hidden])');
    // The position it was decided in: after d.ply plies, the roll made, the move not yet.
    assert.match(await page.locator('#v-pos').innerText(), new RegExp(`^\\D*${d.ply}\\D+\\d+`));
    const frame = await page.evaluate((i) => /** @type {any} */ (window).__fxq.viewer.stateAt(i), d.ply);
    assert.equal(frame.phase, 'move');
    assert.equal(frame.turn, d.seat);
    assert.equal(frame.die, d.die);
    // The Master's best piece marked with its landing square, and the note says both moves.
    assert.equal(await page.locator(`svg.board .piece.hinted[data-seat="${d.seat}"][data-piece="${d.best + 1}"]`).count(), 1);
    assert.ok(await page.locator('svg.board g.hint-mark').count() > 0, 'the landing square is marked');
    const note = await page.locator('#v-note').innerText();
    assert.ok(note.includes(`第 ${d.ply + 1} 步`) && note.includes(`掷出 ${d.die}`) && note.includes('大师提示'), note);
    assert.ok(note.includes(d.zh), `the note gives the Master's reason: ${note}`);
    await shot(page, 'review-ludo.png');
    // A change of language in the viewer rewrites its note, position and record line (they kept
    // the old language), and back again.
    const cjk = /[\u4e00-\u9fff]/;
    await page.click('#btn-lang');
    for (const id of ['v-note', 'v-pos', 'v-info']) {
      const text = await page.locator(`#${id}`).innerText();
      assert.ok(text && !cjk.test(text), `#${id} in English: ${text}`);
    }
    assert.ok((await page.locator('#v-note').innerText()).includes(d.en), 'the reason in English');
    await page.click('#btn-lang');
    assert.ok((await page.locator('#v-note').innerText()).includes('大师提示'), 'the note in Chinese again');
    // Stepping on takes the marks away.
    await page.click('#v-next');
    await page.waitForSelector('#v-note', { state: 'hidden' });
    assert.equal(await page.locator('svg.board g.hint-mark').count(), 0);
    // English chosen in the viewer holds on the game screen behind it (its turn box, players and
    // log stayed Chinese)
    await page.click('#btn-lang');
    await page.click('#v-back');
    await page.waitForSelector('#end[open]');
    assert.match(await page.locator('#end-title').innerText(), /^Game over/);
    await page.click('#end-close');
    for (const sel of ['#turn-msg', '#log']) {
      const text = await page.locator(sel).innerText();
      assert.ok(!cjk.test(text), `${sel} in English: ${text.slice(0, 200)}`);
    }
    // A reload shows the finished game's end screen again (it went to the set-up, the ranking,
    // dice and grades out of reach)
    await page.reload();
    await page.waitForSelector('#end[open]', { timeout: 15000 });
    assert.equal(await page.locator('#end .grades button.review').count(), shown);
    // 结尾 pressed while the replay loads goes to the end once it has loaded (it stayed at 0)
    await page.route('**/api/replay', async (r) => { await new Promise((res) => setTimeout(res, 800)); await r.continue(); });
    await page.click('#end-replay');
    await page.waitForSelector('#view-viewer:not([hidden])');
    await page.click('#v-last');
    await page.waitForFunction(() => {
      const r = /** @type {HTMLInputElement|null} */ (document.getElementById('v-range'));
      return !!r && Number(r.max) > 0 && r.value === r.max;
    }, null, { timeout: 15000 });
    await page.unroute('**/api/replay');
    // 再来一局 leaves it: the next reload starts at the set-up
    await page.click('#v-back');
    await page.waitForSelector('#end[open]');
    await page.click('#end-again');
    await page.reload();
    await page.waitForSelector('#setup-form', { timeout: 15000 });
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});
