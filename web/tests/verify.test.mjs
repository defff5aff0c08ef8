// The dice verify page (verify.html) on real finished games: computers-only games played to the
// end through the WebSocket protocol, then verified from `#game=ID`, an uploaded file and the replay
// viewer's link; tampered rolls, commitments and an unrevealed seed fail; both languages.
import test from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launch, open, shot, URL_BASE, DESKTOP, PHONE } from './helpers.mjs';

/** Plays a computers-only game to the end over the WebSocket protocol, in the page. */
function playComputersOnly(page, rules, options) {
  return page.evaluate(async ([rules, options]) => {
    const ws = new WebSocket(location.origin.replace(/^http/, 'ws') + '/ws');
    await new Promise((res, rej) => { ws.onopen = res; ws.onerror = rej; });
    const req = (msg) => new Promise((res, rej) => {
      const h = (e) => {
        const m = JSON.parse(e.data);
        if (m.id !== msg.id || (m.type !== 'state' && m.type !== 'error')) return;
        ws.removeEventListener('message', h);
        if (m.type === 'error') rej(new Error(m.message)); else res(m);
      };
      ws.addEventListener('message', h);
      ws.send(JSON.stringify(msg));
    });
    const seats = [0, 1, 2, 3].map(() => ({ controller: 'computer', level: 'easy' }));
    const st0 = await req({ type: 'create', id: 1, rules, players: 4, seats, options });
    const st = await req({ type: 'fastForward', id: 2, version: st0.version });
    ws.close();
    return { gameId: st.gameId, phase: st.phase, luck: st.over.luck, commitment: st0.dice.commitment };
  }, [rules, options]);
}

// Every visit is a fresh document (a distinct query), so no result of an earlier visit lingers.
let visits = 0;
const go = (page, hash = '') => page.goto(`${URL_BASE}verify.html?visit=${++visits}${hash}`);

const status = (page) => page.waitForFunction(() => {
  const s = document.getElementById('vf-result')?.dataset.status;
  return s && s !== 'working' ? s : null;
}, null, { timeout: 30000 }).then((h) => h.jsonValue());

/** Checks the page's per-seat table against the server's own `over.luck` (the engine's counts and p). */
async function checkTable(page, luck) {
  const rows = await page.locator('#vf-stats tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
  assert.equal(rows.length, luck.length + 1, 'a row per seat and one for all rolls');
  luck.forEach((l, i) => {
    const cells = rows[i];
    assert.deepEqual(cells.slice(0, 6).map(Number), l.counts, `seat ${l.seat} counts`);
    assert.equal(Number(cells[6]), l.rolls);
    if (l.p !== null) {
      const shown = Number(cells[8]);
      assert.ok(Math.abs(shown - l.p) < 0.0011, `seat ${l.seat}: page p ${cells[8]} vs engine p ${l.p}`);
      assert.ok(Math.abs(Number(cells[7]) - l.chi2) < 0.006, `seat ${l.seat}: χ² ${cells[7]} vs ${l.chi2}`);
    }
  });
}

test('verify page: real finished games pass, tampered records fail, both languages', { timeout: 150000 }, async () => {
  const b = await launch(DESKTOP);
  const dir = mkdtempSync(path.join(tmpdir(), 'fxq-verify-'));
  try {
    const page = await b.page();
    await page.addInitScript(() => { try { if (!localStorage.getItem('fxq.lang')) localStorage.setItem('fxq.lang', 'zh'); } catch {} });
    await go(page);
    await page.waitForSelector('#vf-form');
    assert.equal(await page.locator('h1').innerText(), '骰子验证');

    // The browser's implementation against the worked example of docs/PROTOCOL.md §7.
    const known = await page.evaluate(async () => {
      const m = await import('/js/verify.js');
      const s = await m.diceStream(new Uint8Array(32), ['alice', '鲍勃']);
      const rolls = [];
      for (let k = 0; k < 12; k++) rolls.push(await s.die(k));
      const deal = [await m.dealOf(new Uint8Array(32), ['alice', '鲍勃'], [0, 1, 2, 3]), await m.dealOf(new Uint8Array(32), ['alice', '鲍勃'], [0, 2])];
      return { rolls, deal, block: m.toHex(await s.block(0, 0)), c: await m.sha256Hex(new Uint8Array(32)), p: [m.chiSquareP(0), m.chiSquareP(1.145476), m.chiSquareP(11.0705), m.chiSquareP(18)] };
    });
    // the deal of colours of the same example (the engine's test the_deal_of_the_worked_example)
    assert.deepEqual(known.deal, [[1, 2, 3, 0], [2, 0]]);
    assert.deepEqual(known.rolls, [2, 4, 4, 2, 4, 5, 1, 6, 1, 3, 2, 1]);
    assert.equal(known.block, '4fb640e66feb757832bd5a78fe999e42fd2d0f59c8990784b191b68d8ca0174d');
    assert.equal(known.c, '66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925');
    assert.equal(known.p[0], 1);
    assert.ok(Math.abs(known.p[1] - 0.95) < 1e-6 && Math.abs(known.p[2] - 0.05) < 1e-6, JSON.stringify(known.p));
    assert.ok(Math.abs(known.p[3] - 0.0029464045878803) < 1e-14, JSON.stringify(known.p));

    for (const [rules, options] of [['feixingqi', { pieces: 2 }], ['ludo', { pieces: 2, firstPlayer: 'roll' }]]) {
      const g = await playComputersOnly(page, rules, options);
      assert.equal(g.phase, 'over');
      console.log(`${rules}: game ${g.gameId} over; verifying #game=`);
      await go(page, `#game=${g.gameId}`);
      assert.equal(await status(page), 'ok', await page.locator('#vf-result').innerText());
      assert.match(await page.locator('#vf-verdict').innerText(), /通过/);
      assert.match(await page.locator('#vf-game').innerText(), /步全部符合规则，棋局已结束/);
      assert.match(await page.locator('#vf-commit').innerText(), new RegExp(g.commitment));
      const rollsLine = await page.locator('#vf-rolls').innerText();
      console.log(`${rules}: ${rollsLine}`);
      await checkTable(page, g.luck);
      await shot(page, `verify-${rules}-zh.png`);
      // on a phone the verified record fits the screen (the form and the text box made it 470 px)
      await page.setViewportSize(PHONE);
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), PHONE.width, 'no sideways scroll on a phone');
      await page.setViewportSize(DESKTOP);

      const record = await page.evaluate(async (id) => (await fetch(`/api/games/${id}/record`)).json(), g.gameId);
      const rollIdx = record.plies.map((p, i) => (p.roll !== undefined ? i : -1)).filter((i) => i >= 0);
      assert.match(rollsLine, new RegExp(`${rollIdx.length} 次掷骰全部`));

      // An uploaded file.
      const file = path.join(dir, `${rules}.json`);
      writeFileSync(file, JSON.stringify(record));
      await go(page);
      await page.setInputFiles('#vf-file', file);
      assert.equal(await status(page), 'ok');

      // Pasted, tampered: the tenth roll changed.
      const paste = async (rec) => {
        await go(page);
        await page.fill('#vf-text', JSON.stringify(rec));
        await page.click('#vf-check');
        return status(page);
      };
      const bad = structuredClone(record);
      const index = rollIdx[9];
      const was = bad.plies[index].roll;
      bad.plies[index].roll = was % 6 + 1;
      assert.equal(await paste(bad), 'roll');
      const why = await page.locator('#vf-rolls').innerText();
      assert.ok(why.includes(`plies[${index}]`) && why.includes('第 9 次掷骰') && why.includes(`记录为 ${was % 6 + 1}，种子算出 ${was}`), why);
      assert.match(await page.locator('#vf-verdict').innerText(), /不通过/);

      // Tampered commitment, another client seed, an unrevealed seed.
      const c = structuredClone(record);
      c.dice.commitment = c.dice.commitment.replace(/^./, (x) => (x === '0' ? '1' : '0'));
      assert.equal(await paste(c), 'commitment');
      const cs = structuredClone(record);
      cs.dice.clientSeeds = ['mallory'];
      assert.equal(await paste(cs), 'roll');
      const u = structuredClone(record);
      delete u.dice.seed;
      assert.equal(await paste(u), 'unrevealed');
      assert.match(await page.locator('#vf-commit').innerText(), /种子尚未公开/);

      // Rolls that match the seed in a record that is not a legal game (one more roll after the
      // end, the seed's own): it fails, as `feixingqi verify` does.
      const extra = structuredClone(record);
      const die = await page.evaluate(async ([seed, seeds, k]) => {
        const m = await import('/js/verify.js');
        return (await m.diceStream(m.fromHex(seed), seeds)).die(k);
      }, [record.dice.seed, record.dice.clientSeeds, rollIdx.length]);
      extra.plies.push({ roll: die });
      assert.equal(await paste(extra), 'game');
      // The browser logs the server's 400 for the refused record; that one is expected.
      const refused = b.errors.findIndex((e) => /status of 400/.test(e));
      assert.ok(refused >= 0, JSON.stringify(b.errors));
      b.errors.splice(refused, 1);
      assert.match(await page.locator('#vf-verdict').innerText(), /不通过/);
      assert.match(await page.locator('#vf-rolls').innerText(), new RegExp(`${rollIdx.length + 1} 次掷骰全部`));
      assert.match(await page.locator('#vf-game').innerText(), new RegExp(`不是一盘符合规则的对局.*plies\\[${record.plies.length}\\]`));
      // A record cut short before the end: its rolls pass, and the page says it stops early.
      const cut = structuredClone(record);
      cut.plies = cut.plies.slice(0, rollIdx[20]);
      assert.equal(await paste(cut), 'ok');
      assert.match(await page.locator('#vf-game').innerText(), new RegExp(`${rollIdx[20]} 步全部符合规则，但棋谱在棋局结束前就停了`));
      // A room's record carries its deal of colours: the seed's own passes and is shown, two
      // slots swapped fail (the rolls still match).
      const dealt = await page.evaluate(async ([seed, seeds, seats]) => {
        const m = await import('/js/verify.js');
        return m.dealOf(m.fromHex(seed), seeds, seats);
      }, [record.dice.seed, record.dice.clientSeeds, record.seats]);
      assert.equal(await paste({ ...structuredClone(record), deal: dealt }), 'ok');
      assert.match(await page.locator('#vf-deal').innerText(), /颜色分配 ✓/);
      // who sat where, as a room's record names them (its nicknames, else the computers' levels):
      // in the deal and the table (they only said colours), a nickname as text, never markup
      const named = { ...structuredClone(record), deal: dealt, names: ['小明', null, '<b>鲍勃</b>', null] };
      assert.equal(await paste(named), 'ok');
      const colours = await page.evaluate(async (r) => { const m = await import('/js/i18n.js'); return [0, 1, 2, 3].map((s) => m.seatName(r, s)); }, rules);
      const sat = ['小明', '电脑·入门', '<b>鲍勃</b>', '电脑·入门'].map((w, s) => `${colours[s]}（${w}）`);
      const heads = await page.locator('#vf-stats tbody th').allInnerTexts();
      assert.deepEqual(heads.slice(0, 4), sat);
      for (const s of dealt) assert.ok((await page.locator('#vf-deal').innerText()).includes(sat[s]), `the deal names seat ${s}`);
      assert.equal(await paste({ ...structuredClone(record), deal: [...dealt].reverse() }), 'deal');
      assert.match(await page.locator('#vf-deal').innerText(), /颜色分配 ✗/);
      assert.match(await page.locator('#vf-verdict').innerText(), /不通过/);
      assert.equal(await paste(u), 'unrevealed');

      // English.
      await page.click('#btn-lang');
      assert.match(await page.locator('#vf-commit').innerText(), /not revealed yet/);
      assert.equal(await paste(bad), 'roll');
      const en = await page.locator('#vf-rolls').innerText();
      assert.ok(en.includes(`plies[${index}], roll #9`) && en.includes(`recorded as ${was % 6 + 1} but the seed gives ${was}`), en);
      await go(page, `#game=${g.gameId}`);
      assert.equal(await status(page), 'ok');
      assert.match(await page.locator('#vf-verdict').innerText(), /Passed/);
      assert.equal(await page.locator('h1').innerText(), 'Verify the dice');
      await shot(page, `verify-${rules}-en.png`);
      await page.click('#btn-lang');

      // The replay viewer links to the verify page with the record itself.
      const viewer = await b.context.newPage();
      await open(viewer, { hash: `#record=g:${g.gameId}` });
      await viewer.waitForSelector('#view-viewer:not([hidden]) svg.board');
      await viewer.waitForFunction(() => /verify\.html#record=/.test(document.getElementById('v-verify')?.getAttribute('href') || ''));
      const href = await viewer.locator('#v-verify').getAttribute('href');
      await viewer.goto(new URL(href, URL_BASE).href);
      assert.equal(await status(viewer), 'ok');
      await viewer.close();
    }
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
