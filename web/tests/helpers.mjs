// Shared by the browser tests: Debian's Chromium through playwright-core, a fresh profile per
// browser, the server URL from run-browser-tests.sh, screenshots into test-output/.

import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';

export const URL_BASE = process.env.FXQ_URL || 'http://127.0.0.1:8080/';
export const OUT = process.env.FXQ_OUT || path.resolve(import.meta.dirname, '../../test-output');
mkdirSync(OUT, { recursive: true });

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 800 };

/** Launches headless Chromium with a fresh user-data-dir; returns {context, close}. */
export async function launch(viewport = DESKTOP, extra = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'fxq-chrome-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport,
    acceptDownloads: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--autoplay-policy=no-user-gesture-required'],
    ...extra,
  });
  const errors = [];
  context.on('page', (p) => watch(p, errors));
  for (const p of context.pages()) watch(p, errors);
  return {
    context, errors,
    async page() { const p = context.pages()[0] || await context.newPage(); return p; },
    async close() { await context.close(); rmSync(dir, { recursive: true, force: true }); },
  };
}
function watch(p, errors) {
  p.on('pageerror', (e) => errors.push(String(e)));
  p.on('console', (m) => { if (m.type() === 'error' && !/favicon|404/.test(m.text())) errors.push(m.text()); });
}

/** Opens the app with a language and instant computer speed (tests only: `?speed=instant`). */
export async function open(page, { lang = 'zh', speed = 'instant', hash = '' } = {}) {
  await page.addInitScript(([l]) => { try { if (!localStorage.getItem('fxq.lang')) localStorage.setItem('fxq.lang', JSON.stringify(l).slice(1, -1)); } catch {} }, [lang]);
  await page.goto(`${URL_BASE}?speed=${speed}${hash}`);
}

/** Sets up a game on the set-up screen and starts it. */
export async function setupGame(page, { rules = 'feixingqi', players = 4, seats = {}, pieces = 4, opts = {} } = {}) {
  await page.waitForSelector('#setup-form');
  await page.check(`input[name=rules][value=${rules}]`, { force: true });
  await page.check(`input[name=players][value="${players}"]`, { force: true });
  for (const [seat, v] of Object.entries(seats)) await page.selectOption(`#seat-${seat}`, v);
  await page.check(`input[name=pieces][value="${pieces}"]`, { force: true });
  for (const [k, v] of Object.entries(opts)) {
    const sel = `input[name=${k}]`;
    if (typeof v === 'boolean') { if (v) await page.check(sel, { force: true }); else await page.uncheck(sel, { force: true }); }
    else await page.check(`${sel}[value="${v}"]`, { force: true });
  }
  await page.click('#btn-start');
  await page.waitForSelector('#view-game:not([hidden]) svg.board');
}

/** The client's last state (read-only handle the app exposes for tests). */
export const state = (page) => page.evaluate(() => {
  const s = /** @type {any} */ (window).__fxq.current.st;
  return s && { phase: s.phase, turn: s.turn, toAct: s.toAct, legal: s.legal, canUndo: s.canUndo, version: s.version, over: !!s.over, die: s.die, seats: s.seats.map((x) => ({ seat: x.seat, controller: x.controller, finished: x.finished, pieces: x.pieces.map((p) => p.progress) })) };
});

/** Waits until it is a human's turn to act (roll or move) or the end dialog is open. */
export async function waitHumanOrEnd(page, timeout = 60000) {
  await page.waitForFunction(() => {
    const w = /** @type {any} */ (window);
    const d = /** @type {HTMLDialogElement} */ (document.getElementById('end'));
    if (d.open) return true;
    const st = w.__fxq.current.st;
    if (!st || st.toAct !== 'human') return false;
    if (st.phase === 'move') return document.querySelectorAll('svg.board .piece.legal').length > 0;
    return !/** @type {HTMLButtonElement} */ (document.getElementById('btn-roll')).disabled;
  }, null, { timeout, polling: 50 });
  return page.evaluate(() => /** @type {HTMLDialogElement} */ (document.getElementById('end')).open);
}

export async function shot(page, name) {
  await page.screenshot({ path: path.join(OUT, name) });
  return path.join(OUT, name);
}

/**
 * Plays the human seats through the UI until the end dialog opens. Options: `hint` (use 大师提示 on
 * the first choice and follow it), `undo` (undo once and check the same die comes back), `keyboard`
 * (Space / number keys / arrows + Enter only), `reloadAfter` (reload the page after that many
 * human actions and check the game resumes), `onEvent` hooks.
 */
export async function playThrough(page, o = {}) {
  const log = { actions: 0, choices: 0, hinted: false, undone: false, reloaded: false, undoDie: null };
  let pendingUndo = null;
  let rollLog = null;
  for (let guard = 0; guard < 4000; guard++) {
    const ended = await waitHumanOrEnd(page, 90000);
    if (ended) break;
    let st = await state(page);
    if (o.reloadAfter && !log.reloaded && log.actions >= o.reloadAfter) {
      const before = st;
      const lines = await page.locator('#log li').allInnerTexts();
      await page.reload();
      await page.waitForSelector('#view-game:not([hidden]) svg.board');
      await page.waitForFunction((v) => /** @type {any} */ (window).__fxq.current.st?.version === v, before.version, { timeout: 15000 });
      const after = await state(page);
      if (JSON.stringify(after.seats) !== JSON.stringify(before.seats)) throw new Error('reload changed the position');
      // the log comes back with the game, line for line (it was empty after a reload, then
      // rebuilt without its auto-move lines)
      const again = await page.locator('#log li').allInnerTexts();
      assert.deepEqual(again.slice(0, 30), lines.slice(0, 30), 'the log after the reload');
      log.reloaded = true;
      continue;
    }
    if (o.undo && !log.undone && pendingUndo && st.canUndo && st.phase === 'roll') {
      const v = st.version;
      if (o.keyboard) await page.keyboard.press('u'); else await page.click('#btn-undo');
      await page.waitForFunction((v0) => /** @type {any} */ (window).__fxq.current.st?.version < v0, v, { timeout: 15000 });
      await waitHumanOrEnd(page);
      st = await state(page);
      if (st.phase !== 'roll' || st.turn !== pendingUndo.seat) throw new Error('undo did not return to the roll: ' + JSON.stringify(st));
      // the log is the one before that roll, and says 已悔棋: the plies taken back are gone (they
      // stayed until a reload, which dropped them)
      const undoneLog = await page.locator('#log li').allInnerTexts();
      assert.deepEqual(undoneLog.slice(1, 21), (rollLog ?? []).slice(0, 20), 'the log after undo');
      if (o.keyboard) await page.keyboard.press(' '); else await page.click('#btn-roll');
      await page.waitForFunction(() => /** @type {any} */ (window).__fxq.current.st?.cause !== 'undo', null, { timeout: 15000 });
      const again = await page.evaluate(() => /** @type {any} */ (window).__fxq.current.st.events.find((e) => e.kind === 'rolled')?.die);
      log.undoDie = [pendingUndo.die, again];
      if (again !== pendingUndo.die) throw new Error(`after undo the die was ${again}, not ${pendingUndo.die}`);
      log.undone = true;
      log.actions++;
      continue;
    }
    if (st.phase === 'move') {
      log.choices++;
      let k = st.legal[0];
      if ((o.hint && !log.hinted) || o.followHint) {
        if (o.keyboard) await page.keyboard.press('h'); else await page.click('#btn-hint');
        await page.waitForSelector('#hint-panel:not([hidden])', { timeout: 30000 });
        await page.waitForSelector('svg.board g.hint-mark', { timeout: 30000 });
        // the win % says whom it is the chance against (the players at the table)
        const note = await page.textContent('#hint-panel .hint-note');
        assert.ok(/困难|Hard/.test(note ?? ''), `hint note: ${note}`);
        // Chinese punctuation in Chinese (大师提示: … (胜率 32%) before)
        const said = await page.locator('#hint-panel').innerText();
        if (said.includes('大师提示')) assert.match(said, /大师提示：.+（胜率 \d+%）/, said);
        const hinted = await page.locator('svg.board .piece.hinted').first().getAttribute('data-piece');
        k = Number(hinted) - 1;
        if (o.shotHint && !log.hinted) await shot(page, o.shotHint);
        if (o.hintLang && !log.hinted) {
          // a change of language rewrites the hint and the log in the new one
          await page.click('#btn-lang');
          const panel = await page.locator('#hint-panel').innerText();
          const lines = await page.locator('#log li').allInnerTexts();
          assert.ok(/Hint|Master/.test(panel) && !/[\u4e00-\u9fff]/.test(panel), `hint in English: ${panel}`);
          assert.ok(lines.length > 0 && lines.every((l) => !/[\u4e00-\u9fff]/.test(l)), `log in English: ${lines.slice(0, 5)}`);
          // in the board's own words: 飞行棋 moves planes, Ludo pieces
          const ludo = await page.evaluate(() => /** @type {any} */ (window).__fxq.current.st.rules === 'ludo');
          const other = ludo ? /\bplane \d/ : /\bpiece \d/;
          assert.ok(!other.test(panel) && !lines.some((l) => other.test(l)), `${ludo ? 'Ludo' : '飞行棋'} words: ${panel} / ${lines.slice(0, 5)}`);
          await page.click('#btn-lang');
          assert.match(await page.locator('#hint-panel').innerText(), /大师提示/);
        }
        log.hinted = true;
      }
      if (o.keyboard) {
        if (log.actions % 2) await page.keyboard.press(String(k + 1));
        else {
          // focus is on the first legal piece; arrows cycle to the wanted one, Enter chooses
          for (let i = 0; i < 8; i++) {
            const f = await page.evaluate(() => document.activeElement?.getAttribute('data-piece'));
            if (f === String(k + 1)) break;
            await page.keyboard.press('ArrowRight');
          }
          await page.keyboard.press('Enter');
        }
      } else {
        await page.locator(`svg.board .piece.legal[data-seat="${st.turn}"][data-piece="${k + 1}"]`).dispatchEvent('click');
      }
      if (!pendingUndo) pendingUndo = { seat: st.turn, die: st.die };
      await page.waitForFunction((v) => /** @type {any} */ (window).__fxq.current.st?.version !== v, st.version, { timeout: 15000 });
    } else {
      if (o.undo && !pendingUndo) rollLog = await page.locator('#log li').allInnerTexts();
      if (o.keyboard) await page.keyboard.press(' '); else await page.click('#btn-roll');
      await page.waitForFunction((v) => /** @type {any} */ (window).__fxq.current.st?.version !== v, st.version, { timeout: 15000 }).catch(async (e) => {
        // say what the page looked like, so that a rare miss can be told apart from a slow machine
        const seen = await page.evaluate(() => {
          const a = document.activeElement;
          const s = /** @type {any} */ (window).__fxq.current.st;
          return { focus: a ? `${a.tagName}#${a.id}.${a.getAttribute('class') || ''}` : null, version: s?.version, phase: s?.phase, toAct: s?.toAct, rollDisabled: /** @type {HTMLButtonElement} */ (document.getElementById('btn-roll')).disabled };
        }).catch(() => null);
        throw new Error(`no new state 15 s after ${o.keyboard ? 'Space' : 'the roll button'} at version ${st.version}: ${JSON.stringify(seen)} (${e.message})`);
      });
    }
    log.actions++;
  }
  return log;
}
