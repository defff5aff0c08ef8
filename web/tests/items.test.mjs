// 道具模式 on the board (docs/PROTOCOL.md "Items (proposal)"): items, weather and shields drawn from
// `state.items`, the item events animated, the item bar used by click and by the keys 1–3, driven
// directly with the protocol's shapes (items-game.test.mjs plays real item games through the server).
import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, open, shot } from './helpers.mjs';

test('item mode: icons, weather, shields, event animations and the item bar', async () => {
  const b = await launch();
  try {
    const page = await b.page();
    await open(page);
    await page.waitForSelector('#preview svg.board');
    const out = await page.evaluate(async () => {
      const m = await import('./js/board.js');
      const geo = m.normalizeGeo(await (await fetch('api/board/feixingqi')).json());
      const host = document.createElement('div');
      host.id = 'items-host';
      host.style.width = '600px';
      document.body.prepend(host);
      const board = m.createBoard(host, geo, { itemName: (k) => `name:${k}` });
      board.setSpeed(0);
      board.setPieces([[10, 20, -1, -1], [-1, -1, -1, -1], [30, -1, -1, -1], [-1, -1, -1, -1]], [0, 1, 2, 3]);
      board.setItems({
        round: 2,
        board: [{ square: 24, item: 'remoteDie' }, { square: 40, item: 'missile' }],
        weather: { square: 27, kind: 'storm', untilRound: 4 },
        bars: [['shield'], [], [], []],
        shields: [[0, 1]],
      });
      const count = (sel) => host.querySelectorAll(sel).length;
      // a piece is a button a screen reader hears as unavailable until it can move
      const usable = () => [1, 2, 3, 4].map((k) => host.querySelector(`.piece[data-seat="0"][data-piece="${k}"]`)?.getAttribute('aria-disabled'));
      const before0 = usable();
      board.setLegal(0, [1]);
      const legal0 = usable();
      // one tab stop for the pieces that can move, the lowest-numbered; the arrows move it
      board.setLegal(0, [3, 1]);
      const stops = () => [1, 2, 3, 4].map((k) => host.querySelector(`.piece[data-seat="0"][data-piece="${k}"]`)?.getAttribute('tabindex'));
      const tabs = stops();
      board.focusLegal(1);
      board.focusLegal(1);
      const moved = stops();
      board.setLegal(-1, []);
      /** @type {any} */ (window).__usable = { before0, legal0, tabs, moved };
      const ringShown = (seat, piece) => {
        const g = host.querySelector(`.piece[data-seat="${seat}"][data-piece="${piece + 1}"] .shield-ring`);
        return g ? /** @type {SVGElement} */ (g).style.display !== 'none' : null;
      };
      const before = { icons: count('.item-icon'), weather: count('.weather-cell'), ring: ringShown(0, 1), other: ringShown(0, 0) };
      // Events: a pick-up, a missile, a shield ending, weather changing, a new item.
      await board.animate([
        { kind: 'itemPicked', seat: 0, piece: 0, square: 24, item: 'remoteDie' },
        { kind: 'missileHit', seat: 0, victimSeat: 2, victimPiece: 0, square: 3 },
        { kind: 'shieldEnded', seat: 0, piece: 1 },
        { kind: 'weatherVanished', square: 27 },
        { kind: 'weatherAppeared', square: 33, weather: 'fog' },
        { kind: 'itemAppeared', square: 5, item: 'sixDie' },
        { kind: 'weatherStruck', seat: 0, piece: 0, weather: 'fog', at: 12 },
      ]);
      const after = {
        icons: [...host.querySelectorAll('.item-icon')].map((e) => Number(e.getAttribute('data-a'))).sort((x, y) => x - y),
        weather: [...host.querySelectorAll('.weather-cell')].map((e) => Number(e.getAttribute('data-a'))),
        // the weather's badge stands above the pieces (a plane on the square hid the weather)
        // and every icon says what it is
        badges: [...host.querySelectorAll('.badges .weather-badge')].map((e) => Number(e.getAttribute('data-a'))),
        names: [...host.querySelectorAll('.item-icon, .weather-cell, .weather-badge')].map((e) => `${e.getAttribute('aria-label')}|${e.querySelector('title')?.textContent}`).sort(),
        badgeAbovePieces: !!host.querySelector('svg.board > .pieces + .badges'),
        ring: ringShown(0, 1),
        blue: board.state().find((p) => p.seat === 2 && p.piece === 0)?.p,
      };
      // The item bar: click and keys.
      const used = [];
      const barHost = document.createElement('div');
      document.body.prepend(barHost);
      const bar = m.createItemBar(barHost, { lang: 'zh', onUse: (item, i) => used.push([item, i]) });
      bar.set(['shield', 'missile'], true, 'missile');
      /** @type {HTMLButtonElement} */ (barHost.querySelectorAll('button')[0]).click();
      document.dispatchEvent(new KeyboardEvent('keydown', { key: '2' }));
      document.dispatchEvent(new KeyboardEvent('keydown', { key: '3' })); // empty slot: nothing
      const slots = [...barHost.querySelectorAll('button')].map((x) => ({ disabled: x.disabled, hinted: x.classList.contains('hinted'), label: x.getAttribute('aria-label') }));
      bar.set(['shield'], false);
      document.dispatchEvent(new KeyboardEvent('keydown', { key: '1' })); // not before the own roll: nothing
      // Not from a text field, and not while the bar is off screen (the set-up over a game used
      // the game's items).
      bar.set(['shield'], true);
      const field = document.createElement('input');
      document.body.append(field);
      field.dispatchEvent(new KeyboardEvent('keydown', { key: '1', bubbles: true }));
      field.remove();
      barHost.hidden = true;
      document.dispatchEvent(new KeyboardEvent('keydown', { key: '1' }));
      barHost.hidden = false;
      bar.set(['shield', 'missile', 'sixDie'], true, 'missile');
      /** @type {any} */ (window).__itemTest = { board, bar, count };
      return { before, after, used, slots };
    });
    assert.deepEqual(out.before, { icons: 2, weather: 1, ring: true, other: false });
    assert.deepEqual(out.after, {
      icons: [5, 40], weather: [33], badges: [33], badgeAbovePieces: true, ring: false, blue: -1,
      names: ['name:fog|name:fog', 'name:fog|name:fog', 'name:missile|name:missile', 'name:sixDie|name:sixDie'],
    });
    assert.deepEqual(out.used, [['shield', 0], ['missile', 1]]);
    assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__usable), {
      before0: ['true', 'true', 'true', 'true'], legal0: ['true', 'false', 'true', 'true'],
      tabs: [null, '0', null, '-1'], moved: [null, '-1', null, '0'],
    });
    assert.deepEqual(out.slots.map((s) => s.disabled), [false, false, true]);
    assert.deepEqual(out.slots.map((s) => s.hinted), [false, true, false]);
    assert.equal(out.slots[0].label, '1: 护盾');
    await shot(page, 'items-board.png');
    const cleared = await page.evaluate(() => {
      const t = /** @type {any} */ (window).__itemTest;
      t.bar.destroy();
      t.board.setItems(null);
      return t.count('.item-icon') + t.count('.weather-cell') + document.querySelectorAll('.item-bar').length;
    });
    assert.equal(cleared, 0);
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});

test('the log of a stack collision says the shielded planes stay where a shield held (RULES.md §15.14)', async () => {
  const b = await launch();
  try {
    const page = await b.page();
    await open(page);
    await page.waitForSelector('#setup-form');
    const told = await page.evaluate(() => {
      const w = /** @type {any} */ (window).__fxq;
      const tell = (/** @type {any[]} */ events) => {
        /** @type {string[]} */ const out = [];
        w.logFrames([{ events }], 'feixingqi', { log: (/** @type {string} */ text) => out.push(text) });
        return out;
      };
      // red lands on yellow's stack on a31: with yellow 1 shielded, only it stays
      const hit = { kind: 'collision', seat: 0, piece: 0, square: 31 };
      const home = (s, k) => ({ kind: 'captured', seat: 0, piece: 0, victimSeat: s, victimPiece: k, square: 31, crossing: false });
      return {
        held: tell([hit, { kind: 'shieldHeld', seat: 1, piece: 0 }, home(0, 0), home(1, 1)]),
        plain: tell([hit, home(0, 0), home(1, 0), home(1, 1)]),
      };
    });
    assert.ok(told.held.some((l) => /有护盾的飞机留下/.test(l)), told.held.join(' | '));
    assert.ok(!told.held.some((l) => /同归于尽/.test(l)), told.held.join(' | '));
    assert.ok(told.plain.some((l) => /同归于尽/.test(l)), told.plain.join(' | '));
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});
