// The front end: set-up screen, the game (driven by the server's `state` messages, docs/PROTOCOL.md),
// keyboard and screen-reader play, the end screen and the replay viewer.

import { t, setLang, getLang, seatName, whereText, pieceName, unitOf, LEVELS } from './i18n.js';
import { esc } from './html.js';
import { createBoard, createItemBar, glyphIcon, normalizeGeo, absOf, LOOP, COLOURS, SHAPE_NAMES, ITEM_NAMES } from './board.js';
import { Net } from './net.js';
import { sfx, isMuted, setMuted } from './sound.js';
import { renderEnd, endTitle, friendsOnly } from './end.js';
import { Viewer } from './viewer.js';
import { Rooms, roomFromHash } from './rooms.js';

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
/**
 * A phone or tablet with no mouse: its buttons and prompts say 点击 and leave out the keys (空格,
 * 数字键, Tab + 回车) it has none of. Read at each render: a tablet with a mouse plugged in gets
 * the keys again at the next one.
 */
const touchOnly = matchMedia('(hover: none) and (pointer: coarse)');
const rollWord = () => t(touchOnly.matches ? 'rollTouch' : 'rollKey');
const store = {
  get(k, d) { try { const v = localStorage.getItem(k); return v === null ? d : JSON.parse(v); } catch { return d; } },
  set(k, v) { try { localStorage.setItem(k, JSON.stringify(v)); } catch { /* ignore */ } },
  del(k) { try { localStorage.removeItem(k); } catch { /* ignore */ } },
};

// ---------------------------------------------------------------------------------------------
// geometry

/** @type {Record<string, Promise<any>>} */
const geoCache = {};
export function getGeo(rules) {
  if (!geoCache[rules]) {
    const early = /** @type {any} */ (window).__geo?.[rules];
    geoCache[rules] = (early || fetch(`/api/board/${rules}`).then((r) => {
      if (!r.ok) throw new Error(`board ${r.status}`);
      return r.json();
    })).then(normalizeGeo);
    geoCache[rules].catch(() => delete geoCache[rules]);
  }
  return geoCache[rules];
}

let firstBoardMarked = false;
function markBoard() {
  if (firstBoardMarked) return;
  firstBoardMarked = true;
  performance.mark('first-board');
  /** @type {any} */ (window).__firstBoardMs = performance.now();
}

// ---------------------------------------------------------------------------------------------
// small UI helpers

export function chipSvg(rules, seat, size = 24) {
  const c = COLOURS[rules === 'ludo' ? 'ludo' : 'feixingqi'][seat];
  const shapes = [
    '<circle cx="12" cy="12" r="9"/>', '<rect x="4" y="4" width="16" height="16"/>',
    '<path d="M12 2L22 20H2Z"/>', '<path d="M12 1L23 12L12 23L1 12Z"/>',
  ];
  return `<svg viewBox="0 0 24 24" width="${size}" height="${size}" aria-hidden="true"><g fill="${c}" stroke="#fff" stroke-width="1.5">${shapes[seat]}</g></svg>`;
}

let toastTimer = 0;
/** A toast that a screen reader hears too (its status region says nothing when the text is the same again). @param {string} msg */
function toastAloud(msg) { toast(msg); announce(msg); }
export function toast(msg) {
  const el = $('toast');
  el.textContent = msg;
  el.classList.add('show');
  clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => el.classList.remove('show'), 2600);
}
/** A banner over the board for `ms` at the middle speed, shorter as the computers speed up
 * (at the fastest a bonus banner still covered the board while the player chose). */
function banner(msg, ms = 900) {
  const el = $('banner');
  if (!el) return;
  el.textContent = msg;
  el.classList.add('show');
  clearTimeout(bannerTimer);
  bannerTimer = window.setTimeout(() => el.classList.remove('show'), ms * Math.min(1, Math.max(0.3, animFactor())));
}
let bannerTimer = 0;
/** Takes a banner away at once (its moment has passed: a roll made, the language changed). */
function clearBanner() {
  clearTimeout(bannerTimer);
  $('banner')?.classList.remove('show');
}
/** Screen-reader announcement (polite live region). */
export function announce(msg) {
  const el = $('live');
  el.textContent = '';
  requestAnimationFrame(() => { el.textContent = msg; });
}
/** A short buzz on a phone (its turn, a plane of its captured), with the sound on only. @param {number|number[]} ms */
function buzz(ms) {
  if (isMuted() || !touchOnly.matches || typeof navigator.vibrate !== 'function') return;
  try { navigator.vibrate(ms); } catch { /* not allowed here */ }
}
/** The 暂停电脑 button as the pause stands (its text is the action it offers). */
function showPause() {
  $('btn-pause').textContent = current.paused ? t('resumeAI') : t('pauseAI');
  $('btn-pause').setAttribute('aria-pressed', String(current.paused));
}
function applyI18n() {
  document.querySelectorAll('[data-t]').forEach((e) => { e.textContent = t(/** @type {HTMLElement} */ (e).dataset.t || ''); });
  // (the roll button before the first state: renderSide words it after)
  if (touchOnly.matches && $('btn-roll').textContent === t('rollKey')) $('btn-roll').textContent = rollWord();
  // (after the data-t texts: a paused game's button offers 继续, in either language)
  showPause();
  document.querySelectorAll('[data-t-label]').forEach((e) => { e.setAttribute('aria-label', t(/** @type {HTMLElement} */ (e).dataset.tLabel || '')); });
  $('btn-lang').textContent = getLang() === 'zh' ? 'EN' : '中文';
  $('btn-lang').lang = getLang() === 'zh' ? 'en' : 'zh'; // its name is its text, in its own language
  $('btn-mute').innerHTML = `<svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"><path d="M4 9h4l5-4v14l-5-4H4z" fill="currentColor"/>${isMuted() ? '<path d="M17 9l5 6M22 9l-5 6"/>' : '<path d="M17 8.5a5 5 0 0 1 0 7M19.5 6a8.5 8.5 0 0 1 0 12"/>'}</svg>`;
  $('btn-mute').setAttribute('aria-label', isMuted() ? t('unmute') : t('mute'));
  $('btn-mute').setAttribute('aria-pressed', String(isMuted()));
  document.title = `${t('title')} · Ludo`;
}
function dieSvg(d) {
  const P = { 1: [[50, 50]], 2: [[28, 28], [72, 72]], 3: [[26, 26], [50, 50], [74, 74]], 4: [[28, 28], [72, 28], [28, 72], [72, 72]],
    5: [[26, 26], [74, 26], [50, 50], [26, 74], [74, 74]], 6: [[28, 24], [72, 24], [28, 50], [72, 50], [28, 76], [72, 76]] };
  const pips = (P[d] || []).map(([x, y]) => `<circle cx="${x}" cy="${y}" r="9"/>`).join('');
  return `<rect x="5" y="5" width="90" height="90" rx="18"/>${d ? pips : '<text x="50" y="62" text-anchor="middle" font-size="34" fill="#999">?</text>'}`;
}
/**
 * The one die: a button on the board in the middle of the roller's hangar (`placeDie`), as the
 * commercial apps have it, where the player looks (in the side panel it was under the board on a
 * phone). Its picture is its `svg`.
 */
const dieEl = /** @type {HTMLButtonElement} */ ($('die'));
/** Draws face `d` (0: "?") on the die. @param {number} d */
const setFace = (d) => { /** @type {SVGSVGElement} */ (dieEl.firstElementChild).innerHTML = dieSvg(d); };
/**
 * Puts the die in the middle of `seat`'s hangar / yard, between its four parking spots (-1, or
 * no board: hidden). The button covers the hangar, a target as big as the hangar for a finger
 * (it takes no pointer while it cannot roll: the hangar's planes take off under it); the die in
 * it is as large as the gap between the spots allows, so it hides no parked plane. Computed
 * from the board's geometry and the spots as drawn, for any seat, game and layout.
 * @param {number} seat
 */
function placeDie(seat) {
  const board = current.board;
  const spots = board && seat >= 0 ? [...board.svg.querySelectorAll(`.base[data-seat="${seat}"] circle`)] : [];
  dieEl.hidden = !board || !spots.length;
  if (!board || !spots.length) { delete $('board').dataset.dieSeat; return; }
  const geo = board.geo;
  const [r, c] = geo.bases[seat];
  const b = geo.baseSize;
  // the board's box is its viewBox: from -0.15 to size + 0.15 (board.js createBoard)
  const n = geo.size + 0.3;
  const cx = c + b / 2, cy = r + b / 2;
  const num = (/** @type {Element} */ e, /** @type {string} */ a) => Number(e.getAttribute(a));
  // (the spots' circles, or the planes parked on them where they reach further: grown on a phone)
  const free = Math.min(...spots.map((e) => Math.hypot(num(e, 'cx') - cx, num(e, 'cy') - cy) - Math.max(num(e, 'r'), board.reach(seat))));
  // the die's corner reaches 0.592 of its side from its centre (rx 18 + half its stroke, of
  // 100): that much fits in the free circle, a hair inside (its tumble's swell, 6% for 0.4 s,
  // may brush the planes: they are not to be tapped while it rolls)
  const side = Math.min(b / 2, (0.98 * free) / 0.592);
  const pct = (/** @type {number} */ u) => `${(u / n) * 100}%`;
  Object.assign(dieEl.style, { left: pct(c + 0.15), top: pct(r + 0.15), width: pct(b), height: pct(b) });
  dieEl.style.setProperty('--die-size', `${(side / b) * 100}%`);
  // (its glow asking for the roll is the hangar's seat's, not the colour of the last roll's seat)
  dieEl.style.setProperty('--seat-c', COLOURS[geo.rules][seat]);
  // a room's name tag of that seat stands in the hangar's middle too: it gives way (style.css)
  $('board').dataset.dieSeat = String(seat);
}
/** Whether the die and the 掷骰子 button roll: at this screen's turn to roll only. @param {boolean} on */
function setRollable(on) {
  /** @type {HTMLButtonElement} */ ($('btn-roll')).disabled = !on;
  dieEl.disabled = !on;
  dieEl.title = on ? rollWord() : '';
  labelDie();
}
/**
 * The die: `d` (0 for none), drawn in the colour of the seat that rolled it (it stays in that
 * seat's hangar until the next roll: a grey 4 at 绿方's hangar read as green's 4);
 * `stale` fades a roll that was used (the next roll is awaited).
 * `rolling`: the faces tumble first (a while that scales with the speed; none at 瞬间 or with reduced
 * motion). Resolves when `d` is drawn: its colour, 6 and fade (and its name) come with it, not
 * before, so a six is not given away while the faces tumble.
 * @param {number} d @param {{rolling?: boolean, seat?: number, rules?: string, stale?: boolean}} [o]
 * @returns {Promise<void>}
 */
function showDie(d, { rolling = false, seat = -1, rules = current.rules, stale = false } = {}) {
  const el = dieEl;
  const by = d && seat >= 0 && COLOURS[rules] ? seat : -1;
  /** what is drawn with the value when it lands */
  const look = { d, by, rules, colour: by >= 0 ? COLOURS[rules][by] : '', stale: !!d && stale };
  const total = tumbleMs();
  if (rolling && total > 0) return tumble(el, look, total);
  // a call for the value being tumbled to (the state's own die after its events) only restyles
  // it, and lets it land
  if (tumbling.timer && tumbling.to === d && d) { tumbling.look = look; return tumbling.landed; }
  // any other value lands the one under way first: no roll goes undrawn
  landTumble(el);
  drawDie(el, look);
  return Promise.resolve();
}
/** The system asks for reduced motion (one query, read at each use as `touchOnly` is). */
const reduceMotion = matchMedia('(prefers-reduced-motion: reduce)');
/** How long the die tumbles: 0.4 s at 中 and slower, shorter at 快, none at 瞬间 or with reduced motion. */
const tumbleMs = () => reduceMotion.matches ? 0 : 400 * Math.min(SPEED[current.speed].anim, 1);
/** @typedef {{d: number, by: number, rules: string, colour: string, stale: boolean}} DieLook */
/** The die as drawn last (its name is said again in another language). @type {DieLook|null} */
let dieShown = null;
/**
 * The die's name: the roll shown and its roller, after what a press does while it can be pressed
 * (a button is named by its action: 掷骰子 · 红方 掷出 4); with no roll shown, the action alone.
 * Not during a tumble (named as rolling; named anew when it lands).
 */
function labelDie() {
  if (tumbling.timer) return;
  const o = dieShown;
  const told = !o?.d ? '' : o.by >= 0 ? t('rolled', { name: seatName(o.rules, o.by), d: o.d }) : String(o.d);
  dieEl.setAttribute('aria-label', !told ? t('roll') : dieEl.disabled ? told : `${t('roll')} · ${told}`);
}
/** @param {HTMLElement} el @param {DieLook} o */
function drawDie(el, o) {
  dieShown = o;
  setFace(o.d);
  labelDie();
  if (o.by >= 0) el.style.setProperty('--die-c', o.colour); else el.style.removeProperty('--die-c');
  el.classList.toggle('six', o.d === 6);
  el.classList.toggle('stale', o.stale);
}
/**
 * The die's tumble: its timer, when it began, how long it lasts, the face it lands on (0: not known
 * yet) with its look, and the promise that it has landed (`land` resolves it).
 */
const tumbling = { timer: 0, start: 0, total: 0, to: 0, last: 0, look: /** @type {DieLook|null} */ (null), landed: Promise.resolve(), land: () => {} };
/** Ends the tumble under way, drawing the value it was going to (none if it was not known yet). @param {HTMLElement} el */
function landTumble(el) {
  if (!tumbling.timer) return;
  clearTimeout(tumbling.timer);
  tumbling.timer = 0;
  stopShake(el);
  if (tumbling.look) drawDie(el, tumbling.look);
  tumbling.land();
}
/**
 * The shake ends with the tumble: left on, it shook again (and the "roll me" pulse took its
 * length) when the die became rollable at the next turn. @param {HTMLElement} el
 */
function stopShake(el) {
  el.classList.remove('rolling');
  /** @type {SVGSVGElement} */ (el.firstElementChild).style.animationDuration = '';
}
/**
 * A few random faces, slowing down, then the real one; with `look.d` 0 (a roll sent, the server's
 * answer awaited) it keeps tumbling until the value comes (a "?" after 3 s without). A value still
 * tumbling when another roll comes is drawn first.
 * @param {HTMLElement} el @param {DieLook} look @param {number} TOTAL @returns {Promise<void>}
 */
function tumble(el, look, TOTAL) {
  // the answer to this browser's own roll continues the tumble begun at the click
  const goingOn = !!tumbling.timer && !tumbling.to;
  if (!goingOn) {
    landTumble(el);
    tumbling.start = performance.now();
    tumbling.total = TOTAL;
    tumbling.landed = new Promise((r) => { tumbling.land = r; });
    /** @type {SVGSVGElement} */ (el.firstElementChild).style.animationDuration = `${TOTAL}ms`;
    el.classList.remove('rolling'); void el.getBoundingClientRect(); el.classList.add('rolling');
    // the last roll's colour, 6, fade and name go; the new one's come when it lands
    el.style.removeProperty('--die-c');
    el.classList.remove('six', 'stale');
    el.setAttribute('aria-label', t('dieRolling'));
  }
  const landed = tumbling.landed;
  tumbling.to = look.d;
  tumbling.look = look.d ? look : null;
  const frame = () => {
    const gone = performance.now() - tumbling.start;
    const total = tumbling.total;
    if (tumbling.to && gone >= total) { landTumble(el); return; }
    if (!tumbling.to && gone >= 3000) { tumbling.timer = 0; stopShake(el); dieShown = null; setFace(0); labelDie(); tumbling.land(); return; }
    let f;
    do f = 1 + Math.floor(Math.random() * 6); while (f === tumbling.last || f === tumbling.to);
    tumbling.last = f;
    setFace(f);
    // 60 ms at first, slower towards the landing
    const wait = 60 + Math.min(1, gone / total) * 90;
    tumbling.timer = window.setTimeout(frame, tumbling.to ? Math.max(16, Math.min(wait, total - gone)) : wait);
  };
  clearTimeout(tumbling.timer);
  frame();
  return landed;
}
/**
 * The header's title for the rules on screen: in English "Aeroplane Chess" stood over a Ludo
 * board (in Chinese 飞行棋 names both). `rules` '' for the screens with no game.
 */
function showTitle(rules) {
  const el = /** @type {HTMLElement} */ (document.querySelector('header.top h1 [data-t]'));
  el.dataset.t = rules === 'ludo' ? 'titleLudo' : 'title';
  el.textContent = t(el.dataset.t);
}
function showView(name) {
  const changed = current.view !== name;
  for (const v of ['setup', 'game', 'viewer', 'room', 'profile']) $(`view-${v}`).hidden = v !== name;
  current.view = name;
  // a new view starts at its top: the game kept the lobby's scroll (a phone opened on the log
  // while the turn timer ran), the game behind the end dialog the replay's.
  if (changed) window.scrollTo(0, 0);
  // the header names the game on screen: back from a Ludo replay to a 飞行棋 game it said Ludo
  if (name === 'game') showTitle(current.st?.rules ?? '');
  else if (name !== 'viewer') showTitle('');
  setTimeout(rescueFocus, 0);
}

/**
 * Where focus goes once it was lost — a focused piece stopped being a button, the control
 * pressed was disabled or its view hidden, a dialog closed: the browser dropped it to the page
 * and a keyboard or screen-reader player started again from the top after every move (WCAG
 * 2.4.3). Only for a player at the keyboard (a mouse or a finger has no focus to lose, and a
 * phone's page was pulled to the roll button), never scrolling, and nothing moves while focus
 * is somewhere of the player's choosing.
 */
function rescueFocus() {
  if (!current.keyboard) return;
  const at = /** @type {HTMLElement|null} */ (document.activeElement);
  if (at && at !== document.body && at.isConnected && at.getClientRects().length > 0) return;
  if (/** @type {HTMLDialogElement} */ ($('end')).open) return;
  const view = $(`view-${current.view}`);
  const focus = (/** @type {HTMLElement|null} */ el) => { if (el && !(/** @type {any} */ (el)).disabled && el.getClientRects().length > 0) { el.focus({ preventScroll: true }); return true; } return false; };
  if (current.view === 'game') {
    const st = current.st;
    if (canAct(st) && st.phase === 'move') { current.board?.focusLegal(1); return; }
    // (never a header button: Space, meant as a roll, would press 新游戏 or 攻略)
    for (const id of ['btn-roll', 'btn-result']) if (focus($(id))) return;
    return;
  }
  // the replay: its play button (Space there is 播放, not 返回 as on the first button)
  if (current.view === 'viewer') { focus($('v-play')); return; }
  focus(/** @type {HTMLElement|null} */ (view?.querySelector('button:not([disabled]), input:not([type=hidden]), select, a[href]')));
}

// ---------------------------------------------------------------------------------------------
// set-up screen

/** The largest room stake the form takes (everyone starts with 1,000 points). */
const ROOM_POINTS_MAX = 1000000;
const defaults = {
  rules: 'feixingqi', players: 4, seats: { 1: 'normal', 2: 'normal', 3: 'normal' },
  takeoff: '6', tripleSix: false, sixStops: false, items: false, team: false, pieces: 4, firstPlayer: 'seat0', scoring: 'none', room: 1000,
};
function loadSetup() { return { ...defaults, ...store.get('fxq.setup', {}), rules: store.get('fxq.rules', 'feixingqi') }; }
function seatsFor(n) { return n === 2 ? [0, 2] : n === 3 ? [0, 1, 2] : [0, 1, 2, 3]; }

/** A pill radio; `lang`: the language of its label where it is not the page's (English, 中文). */
const radioHtml = (name, val, label, checked, lang = '') =>
  `<label><input type="radio" name="${name}" value="${val}" ${checked ? 'checked' : ''}><span${lang ? ` lang="${lang}"` : ''}>${label}</span></label>`;
const checkHtml = (name, label, checked, disabled = false) =>
  `<label><input type="checkbox" name="${name}" ${checked ? 'checked' : ''} ${disabled ? 'disabled' : ''}><span>${label}</span></label>`;

/** The set-up screen's tabs: this screen (本机对战) or an online room (联网房间). */
function setupTabs(mode) {
  const tab = (m, key) => `<button type="button" role="tab" class="tab" id="tab-${m}" aria-selected="${mode === m}" tabindex="${mode === m ? 0 : -1}">${t(key)}</button>`;
  return `<div class="tabs" role="tablist" aria-label="${t('playWhere')}">${tab('local', 'modeLocal')}${tab('online', 'modeOnline')}</div>`;
}
function wireTabs() {
  const tabs = /** @type {HTMLElement[]} */ ([...document.querySelectorAll('#view-setup [role=tab]')]);
  const go = (m) => { store.set('fxq.mode', m); renderSetup(); document.getElementById(`tab-${m}`)?.focus(); };
  for (const b of tabs) {
    b.addEventListener('click', () => go(b.id.slice(4)));
    b.addEventListener('keydown', (e) => {
      if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') { e.preventDefault(); go(b.id === 'tab-local' ? 'online' : 'local'); }
    });
  }
}

/** A link beside a card's title to a section of the guide in this language. @param {string} id @param {string} text */
const helpLink = (id, text) => ` <a class="help" href="guides/${getLang()}.html#${id}">ⓘ ${text}</a>`;

/** The cards both set-up forms share: the game with its board preview, and the rule options. */
export function rulesCard(s, cls = 'o1') {
  const fxq = s.rules === 'feixingqi';
  return `<div class="card ${cls}"><h2>${t('game')}</h2><div class="seg" role="radiogroup" aria-label="${t('game')}">
      ${radioHtml('rules', 'feixingqi', t('feixingqi'), fxq)}${radioHtml('rules', 'ludo', t('ludo'), !fxq)}</div>
      <div class="board-wrap" id="preview"></div>
    </div>`;
}
export function playersRadios(s) {
  return `<div class="seg" role="radiogroup" aria-label="${t('players')}">${[2, 3, 4].map((n) => radioHtml('players', n, t('nPlayers', { n }), s.players === n)).join('')}</div>`;
}
/** @param {any} s @param {string} [extraRows] rows the online form adds (the turn timer) */
export function optionsCard(s, extraRows = '', cls = 'o3') {
  const fxq = s.rules === 'feixingqi';
  // what each option does: the guide's table (飞行棋) or paragraph (Ludo), in this language
  return `<div class="card ${cls}"><h2>${t('options')}${helpLink(fxq ? 'options' : 'ludo-options', t('optionsHelp'))}</h2><div class="opts">
      ${fxq ? `<div class="row"><span class="lab">${t('takeoff')}</span><div class="seg" role="radiogroup" aria-label="${t('takeoff')}">${radioHtml('takeoff', '6', t('takeoff6'), s.takeoff === '6')}${radioHtml('takeoff', '56', t('takeoff56'), s.takeoff === '56')}</div></div>
      <div class="row seg">${checkHtml('tripleSix', t('tripleSix'), s.tripleSix)}${checkHtml('sixStops', t('sixStops'), s.sixStops)}</div>
      <div class="row seg" title="${t('itemModeNote')}">${checkHtml('items', t('itemMode'), s.items)}<span class="muted">${t('itemModeNote')}</span></div>` : ''}
      <div class="row seg">${checkHtml('team', t('team'), s.team && s.players === 4, s.players !== 4)}</div>
      <div class="row"><span class="lab">${t('pieces', { unit: unitOf(s.rules) })}</span><div class="seg" role="radiogroup" aria-label="${t('pieces', { unit: unitOf(s.rules) })}">${[2, 3, 4].map((n) => radioHtml('pieces', n, String(n), s.pieces === n)).join('')}</div></div>
      <div class="row"><span class="lab">${t('firstPlayer')}</span><div class="seg" role="radiogroup" aria-label="${t('firstPlayer')}">${radioHtml('firstPlayer', 'seat0', t('firstSeat0'), s.firstPlayer === 'seat0')}${radioHtml('firstPlayer', 'roll', t('firstRoll'), s.firstPlayer === 'roll')}</div></div>
      <div class="row"><span class="lab">${t('scoring')}</span><div class="seg" role="radiogroup" aria-label="${t('scoring')}">${radioHtml('scoring', 'none', t('scoreNone'), s.scoring === 'none')}${radioHtml('scoring', 'perPiece50', t('scorePer', { unit: unitOf(s.rules) }), s.scoring === 'perPiece50')}${radioHtml('scoring', 'room', t('scoreRoom'), s.scoring === 'room')}</div>
        <label ${s.scoring === 'room' ? '' : 'hidden'}>${t('roomPoints')} <input type="number" name="room" min="1" max="${ROOM_POINTS_MAX}" step="1" value="${s.room}"></label></div>
      ${extraRows}
      <div class="row"><span class="lab">${t('language')}</span><div class="seg" role="radiogroup" aria-label="${t('language')}">${radioHtml('lang', 'zh', t('langZh'), getLang() === 'zh', 'zh-CN')}${radioHtml('lang', 'en', t('langEn'), getLang() === 'en', 'en')}</div></div>
    </div></div>`;
}
function drawPreview(rules) {
  getGeo(rules).then((geo) => {
    const host = document.getElementById('preview');
    if (!host) return;
    const b = createBoard(host, geo, {});
    b.svg.setAttribute('aria-label', t(rules));
    markBoard();
  }).catch(() => {});
}
/**
 * Wires a set-up form: every change is remembered; rules, players, scoring and language redraw it.
 * @param {HTMLFormElement} form @param {(f:HTMLFormElement)=>void} save @param {()=>void} submit
 */
function wireSetupForm(form, save, submit) {
  form.addEventListener('change', (e) => {
    const tgt = /** @type {HTMLInputElement} */ (e.target);
    save(form);
    if (tgt.name === 'lang') { setLang(tgt.value); applyI18n(); }
    if (['rules', 'players', 'scoring', 'lang'].includes(tgt.name)) {
      renderSetup();
      /** @type {HTMLElement|null} */ (document.querySelector(`[name="${tgt.name}"]:checked`))?.focus();
    } else if (tgt.name?.startsWith('seat-') && form.id === 'setup-form') {
      // the first seat's word only, in place: the select changed keeps its focus
      const first = document.getElementById('seat-0-who');
      if (first) first.textContent = firstSeatWord(loadSetup());
    }
  });
  form.addEventListener('submit', (e) => { e.preventDefault(); save(form); submit(); });
}

/** The set-up's first seat: 你, or 玩家 1 where every seat is a person at this screen, as the game then calls it. */
function firstSeatWord(s) {
  const friends = seatsFor(s.players).every((seat) => seat === 0 || s.seats[seat] === 'human');
  return friends ? t('playerN', { n: 1 }) : t('you');
}

function renderSetup() {
  const s = loadSetup();
  const mode = store.get('fxq.mode', 'local') === 'online' ? 'online' : 'local';
  if (mode === 'online') {
    $('view-setup').innerHTML = setupTabs(mode) + rooms.onlineForm(s);
    wireTabs();
    wireSetupForm(/** @type {HTMLFormElement} */ ($('online-form')), (f) => { saveSetup(f); rooms.saveOnline(f); }, () => rooms.createRoom());
    rooms.wireOnline();
    drawPreview(s.rules);
    return;
  }
  const seatRows = seatsFor(s.players).map((seat) => {
    const name = seatName(s.rules, seat);
    if (seat === 0) return `<div class="seat-row"><span class="chip">${chipSvg(s.rules, 0)}</span><span class="name">${name}</span><span id="seat-0-who">${firstSeatWord(s)}</span></div>`;
    const v = s.seats[seat] || 'normal';
    const opts = [...LEVELS.map((l) => `<option value="${l}" ${v === l ? 'selected' : ''}>${t(l)}</option>`),
      `<option value="human" ${v === 'human' ? 'selected' : ''}>${t('human')}</option>`].join('');
    return `<div class="seat-row"><span class="chip">${chipSvg(s.rules, seat)}</span><label class="name" for="seat-${seat}">${name}</label><select id="seat-${seat}" name="seat-${seat}">${opts}</select></div>`;
  }).join('');
  $('view-setup').innerHTML = `${setupTabs(mode)}
  <form class="setup" id="setup-form"><div class="setup-col">
    ${rulesCard(s)}
    <div class="start-row o4"><button type="submit" class="primary" id="btn-start">${t('start')}</button>${current.st && current.st.phase !== 'over' && !current.st.room ? `<button type="button" id="btn-resume">${t('resume')}</button>` : ''}</div>
    <p class="muted o5" style="text-align:center">${t('verifyNote')}</p>
    </div><div class="setup-col">
    <div class="card o2"><h2>${t('players')}${helpLink('levels', t('levelsHelp'))}</h2>
      ${playersRadios(s)}
      <div class="seats" style="margin-top:.6rem">${seatRows}</div>
    </div>
    ${optionsCard(s)}
  </div></form>`;
  wireTabs();
  wireSetupForm(/** @type {HTMLFormElement} */ ($('setup-form')), saveSetup, startGame);
  document.getElementById('btn-resume')?.addEventListener('click', () => { showView('game'); current.board = null; net.request({ type: 'sync' }).catch(() => {}); });
  drawPreview(s.rules);
}

/**
 * The room stake in the set-up form: a whole number of 1 to a million points as typed, else (a
 * blank, or a value the field refuses) the one remembered.
 * @param {HTMLFormElement} form @param {number} remembered
 */
function roomStake(form, remembered) {
  const input = /** @type {HTMLInputElement|null} */ (form.querySelector('input[name=room]'));
  const v = Number(input?.value);
  return input && input.value !== '' && input.validity.valid && Number.isInteger(v) && v >= 1 && v <= ROOM_POINTS_MAX ? v : remembered;
}

function saveSetup(form) {
  const f = new FormData(form);
  const s = loadSetup();
  const rules = String(f.get('rules') || s.rules);
  const players = Number(f.get('players') || s.players);
  const seats = { ...s.seats };
  for (const seat of [1, 2, 3]) if (f.get(`seat-${seat}`)) seats[seat] = String(f.get(`seat-${seat}`));
  // A box the form does not show (飞行棋's options on the Ludo form being left, team play with
  // fewer than four) keeps what was remembered: the form read is the one being left.
  const box = (name) => (form.querySelector(`input[name=${name}]:not(:disabled)`) ? f.get(name) === 'on' : !!s[name]);
  const next = {
    players, seats,
    takeoff: String(f.get('takeoff') ?? s.takeoff),
    tripleSix: box('tripleSix'),
    sixStops: box('sixStops'),
    items: box('items'),
    team: box('team'),
    pieces: Number(f.get('pieces') || s.pieces),
    firstPlayer: String(f.get('firstPlayer') || s.firstPlayer),
    scoring: String(f.get('scoring') || s.scoring),
    // a whole stake of 1 to a million points (`| 0` wrapped 99999999999 round to 1215752191);
    // a value the field refuses (0, -5, 2.5) keeps the remembered stake: it became 1 before,
    // and a blank field then started a game all but unscored
    room: roomStake(form, s.room),
  };
  store.set('fxq.setup', next);
  store.set('fxq.rules', rules);
}

/** The `options` of `create` / `createRoom` (PROTOCOL.md §2) from the remembered set-up. */
export function optionsFrom(s) {
  /** @type {any} */
  const options = { pieces: s.pieces, firstPlayer: s.firstPlayer, team: s.players === 4 && !!s.team };
  if (s.rules === 'feixingqi') {
    options.takeoff = s.takeoff === '56' ? [5, 6] : [6];
    options.tripleSixPenalty = !!s.tripleSix;
    options.sixStopsOnStack = !!s.sixStops;
    // 道具模式 (RULES.md §10.3): 飞行棋 only; absent means off
    if (s.items) options.items = true;
  }
  options.scoring = s.scoring === 'room' ? { room: s.room } : s.scoring;
  return options;
}

function createMessage() {
  const s = loadSetup();
  const seats = seatsFor(s.players).map((seat) => {
    if (seat === 0) return { controller: 'human' };
    const v = s.seats[seat] || 'normal';
    return v === 'human' ? { controller: 'human' } : { controller: 'computer', level: v };
  });
  return { type: 'create', rules: s.rules, players: s.players, seats, options: optionsFrom(s) };
}

// ---------------------------------------------------------------------------------------------
// the game

const SPEED = { slow: { anim: 1.5, wait: 1300 }, mid: { anim: 1, wait: 650 }, fast: { anim: 0.35, wait: 160 }, instant: { anim: 0, wait: 0 } };
const current = {
  view: 'setup',
  /** @type {any} */ st: null,
  /** @type {ReturnType<typeof createBoard>|null} */ board: null,
  rules: '',
  queue: Promise.resolve(),
  stepTimer: 0,
  speed: /** @type {keyof typeof SPEED} */ (store.get('fxq.speed', 'mid')),
  keyboard: false,
  /** @type {any} */ ff: null,
  watching: false,
  /** the state a roll was sent for: one roll per state (a held Space repeats, the auto-roll's
   * timer may fire beside a press); a sync brings a new state, and the roll may be sent again */
  /** @type {any} */ rolledOn: null,
  /** the 大师提示 on show: the state it was asked for and the server's answer */
  /** @type {{st: any, h: any}|null} */ hint: null,
  /** @type {any} */ local: null,
  /** 暂停电脑, kept across a reload (the computers went on after one) */
  paused: !!store.get('fxq.paused', false),
  /** 道具模式: the item bar of each seat in play, and for which game/language/seats they were made */
  /** @type {ItemPanel} */ items: { bars: new Map(), key: '' },
  /** the item the 大师提示 suggests using before this roll (its `use` object), or null */
  /** @type {any} */ itemHint: null,
  /** the targeting step of an item being used: {item, index, targets} */
  /** @type {{item:string, index:number, targets:number[][]}|null} */ targeting: null,
  /** the seat whose roll the die shows (-1: not known, as after a reload between turns) */
  dieSeat: -1,
  /** 没有选择时自动掷骰, remembered (off until the player turns it on) */
  autoRoll: !!store.get('fxq.autoRoll', false),
  /** the auto-roll waiting its pause (`scheduleAutoRoll`) */
  autoTimer: 0,
};

// `?speed=instant` (tests, impatient people): no animation, computers at once; not remembered
/** Animation duration factor: the speed setting, shortened when the system asks for reduced motion. */
function animFactor() {
  const a = SPEED[current.speed].anim;
  return reduceMotion.matches ? Math.min(a, 0.3) : a;
}
const urlSpeed = new URLSearchParams(location.search).get('speed');
if (urlSpeed && urlSpeed in SPEED) current.speed = /** @type {any} */ (urlSpeed);

const net = new Net({
  onState: (st) => { current.queue = current.queue.then(() => handleState(st)).catch((e) => console.error(e)); },
  onStatus: (s) => {
    if (s === 'closed' && (current.view === 'game' || current.view === 'room')) toast(t('offline'));
    if (s === 'rejoined' && net.room) toast(t('reconnected'));
    if (s.startsWith('lost:') && net.room) { toast(t('roomClosed')); rooms.forget(); showView('setup'); renderSetup(); }
  },
  // room messages wait for the states before them, so the game screen sees them in order
  onRoom: (r) => { current.queue = current.queue.then(() => rooms.onRoom(r)).catch((e) => console.error(e)); },
  onChat: (c) => rooms.onChat(c),
});

const rooms = new Rooms({
  $, store, net, current, toast, copyText, announce, chipSvg, showView, renderSetup, renderSide: (st) => renderSide(st),
  openViewerFor: (src) => openViewerFor(src), logLine: (text, imp) => logLine(text, imp),
  refreshEnd: () => { if (/** @type {HTMLDialogElement} */ ($('end')).open && current.st?.phase === 'over') openEnd(current.st, false); },
  rulesCard, playersRadios, optionsCard, optionsFrom, loadSetup, seatsFor, radioHtml,
});

/** Whether a seat's planes are this screen's own: its seats in a room, a person's at this screen (not with computers only watching). @param {number} seat */
const myPlanes = (seat) => mySeats(current.st).includes(seat);
/** The seats played at this screen: its seats in a room, else every person's. */
const mySeats = (st) => (inRoom(st) ? rooms.mySeats() : st.seats.filter((/** @type {any} */ s) => s.controller === 'human').map((/** @type {any} */ s) => s.seat));
/** Whether this screen is to roll now (a person here, or its own seat in a room). */
const rollHere = (st) => canAct(st) && (st.phase === 'roll' || st.phase === 'opening');
/** A game of an online room (PROTOCOL.md §7): its states carry a `room` block. */
const inRoom = (st) => !!(st && st.room);
/** Whether this browser may roll or move now: a person at this screen, or (in a room) its own seat. */
function canAct(st) {
  if (!st || st.phase === 'over') return false;
  if (inRoom(st)) return rooms.mySeats().includes(st.turn);
  return st.toAct === 'human';
}

async function startGame() {
  const msg = createMessage();
  if (net.room) { net.request({ type: 'leaveRoom' }, { settle: 1000 }).catch(() => {}); rooms.forget(); }
  current.st = null;
  current.ff = null;
  ended.forget();
  showView('game');
  $('log').innerHTML = '';
  $('hint-panel').hidden = true;
  try {
    await net.request(msg);
    if (net.game) store.set('fxq.current', net.game);
  } catch (e) {
    toast(t('error', { msg: e.message }));
    showView('setup');
    renderSetup();
  }
}

/**
 * A finished local game stays this tab's until it leaves it (新游戏, 再来一局): a reload shows its
 * end screen again — ranking, dice and grades — where it went to the set-up with nothing to show.
 * Kept per tab (sessionStorage), so a browser opened later starts at the set-up.
 */
const ended = {
  KEY: 'fxq.ended',
  keep(game) { try { sessionStorage.setItem(this.KEY, JSON.stringify(game)); } catch { /* private mode: skip */ } },
  get() { try { return JSON.parse(sessionStorage.getItem(this.KEY) || 'null'); } catch { return null; } },
  forget() { try { sessionStorage.removeItem(this.KEY); } catch { /* ignore */ } },
};

async function resumeGame(saved) {
  net.game = saved;
  showView('game');
  try {
    const st = await net.request({ type: 'join', ...saved });
    // a finished game comes back to its end screen: nothing is resumed
    if (st?.phase !== 'over') toast(t('reloadResume'));
    return true;
  } catch (e) {
    store.del('fxq.current');
    ended.forget();
    net.game = null;
    return false;
  }
}

const progressOf = (st) => {
  const arr = [[], [], [], []];
  for (const s of st.seats) arr[s.seat] = s.pieces.map((p) => (p.finished ? 56 : p.progress === null ? -1 : p.progress));
  return arr;
};
const seatsOf = (st) => st.seats.map((s) => s.seat);
const seatInfo = (st, seat) => st.seats.find((s) => s.seat === seat);

/** A piece's name for the screen reader: colour, shape, number and square. */
function pieceLabel(rules, seat, piece, p, all = []) {
  const who = seatName(rules, seat);
  const shape = SHAPE_NAMES[getLang()][seat];
  return `${who} ${shape} ${pieceName(rules, piece + 1)}${getLang() === 'zh' ? '，' : ', '}${whereText(rules, p)}${neighbours(rules, seat, p, all)}`;
}

/**
 * The other colours' pieces within six squares ahead of or behind a piece on the shared loop,
 * with their distance: a square's number counts from each colour's own start, so "第 35 格" of
 * red and "第 9 格" of blue can be one square, and a player who cannot see the board could not
 * tell what is near (what a sighted player sees at a glance). Empty off the loop.
 * @param {string} rules @param {number} seat @param {number} p @param {{seat:number, piece:number, p:number}[]} all
 */
function neighbours(rules, seat, p, all) {
  const at = absOf({ rules }, seat, p);
  if (at < 0) return '';
  const ahead = [], behind = [];
  for (const o of all) {
    const there = o.seat === seat ? -1 : absOf({ rules }, o.seat, o.p);
    if (there < 0) continue;
    const d = (there - at + LOOP) % LOOP;
    const name = `${seatName(rules, o.seat)} ${pieceName(rules, o.piece + 1)}`;
    if (d === 0) ahead.push(t('nearSame', { name }));
    else if (d <= 6) ahead.push(t('nearAhead', { name, d }));
    else if (d >= LOOP - 6) behind.push(t('nearBehind', { name, d: LOOP - d }));
  }
  const near = [...ahead, ...behind];
  return near.length ? t('nearList', { list: near.join(getLang() === 'zh' ? '；' : '; ') }) : '';
}
function controllerText(info) {
  if (!info) return '';
  if (inRoom(current.st)) return rooms.seatLabel(current.st, info.seat);
  // every seat a person at this screen: 玩家 1, 玩家 2… (no one of them is 你 more than the others)
  const st = current.st;
  if (st && friendsOnly(st)) return t('playerN', { n: st.seats.findIndex((/** @type {any} */ s) => s.seat === info.seat) + 1 });
  if (info.controller === 'human') return info.seat === 0 ? t('you') : t('human');
  return t(info.level || 'normal');
}

async function ensureBoard(st) {
  if (current.board && current.rules === st.rules) return;
  const geo = await getGeo(st.rules);
  current.rules = st.rules;
  current.board = createBoard($('board'), geo, {
    itemName: (k) => itemName(k),
    onPick: (k) => pick(k),
    label: (seat, piece, p, all) => pieceLabel(st.rules, seat, piece, p, all),
    // pieces grown or shrunk with the board: the die between the parked planes sized again
    onGrow: () => { const s = Number($('board').dataset.dieSeat ?? -1); if (s >= 0) placeDie(s); },
  });
  current.board.svg.setAttribute('aria-label', t(st.rules));
  const bn = document.createElement('div'); bn.className = 'banner'; bn.id = 'banner'; bn.setAttribute('aria-hidden', 'true');
  $('board').appendChild(bn);
  // (the board took the host's children: the one die goes back on it, tumble and all)
  $('board').appendChild(dieEl);
  current.board.setSpeed(animFactor());
  current.board.setPieces(progressOf(st), seatsOf(st));
  document.documentElement.classList.toggle('ludo-colours', st.rules === 'ludo');
  markBoard();
}

/** @typedef {(text: string, imp?: boolean, colour?: string) => void} LogLine */
/**
 * One line of a log, newest first, keeping the last `keep` lines: the game's (and the
 * announcement being built from it) by default, the replay's with its own list. `colour`: of the
 * seat whose turn the line tells, a bar at its side (one turn's lines read as one group).
 * @param {string} text @param {boolean} [imp] @param {string} [colour]
 */
function logLine(text, imp = false, colour = '', list = $('log'), keep = 120) {
  const li = document.createElement('li');
  li.textContent = text;
  if (imp) li.className = 'imp';
  if (colour) { li.classList.add('by'); li.style.setProperty('--c', colour); }
  list.prepend(li);
  while (list.children.length > keep) list.lastChild?.remove();
}

/** Events that belong to a move under way: its summary line waits until they are told. */
const DURING_MOVE = new Set(['step', 'bounce', 'jump', 'fly', 'blocked', 'parked', 'weatherStruck', 'captured', 'collision', 'stack', 'finished', 'itemPicked', 'shieldHeld']);

/**
 * `events` with a `moved` line after each move's own (`{kind: 'moved', seat, piece, to}`: where
 * the piece ended, from its last step, jump, fly or park), so that the log says where every
 * move went and not only its jumps and captures. None for a takeoff (its own line says it), a
 * piece that reached the centre (the `finished` line) or went home in a stack collision.
 * @param {any[]} events @returns {any[]}
 */
function withMoveLines(events) {
  const out = [];
  /** @type {any} */ let moving = null;
  const flush = () => {
    if (moving && moving.to < 56) out.push({ kind: 'moved', ...moving });
    moving = null;
  };
  for (const e of events) {
    if (!DURING_MOVE.has(e.kind)) flush();
    out.push(e);
    if (['step', 'jump', 'fly'].includes(e.kind)) moving = { seat: e.seat, piece: e.piece, to: e.to };
    else if (e.kind === 'parked') moving = { seat: e.seat, piece: e.piece, to: e.at };
    else if (e.kind === 'captured' && moving && e.victimSeat === moving.seat && e.victimPiece === moving.piece) moving = null;
  }
  flush();
  return out;
}

/** Sounds and banners that do nothing: the words of past events, said again without a show. */
const QUIET = { sfx: /** @type {typeof sfx} */ (new Proxy({}, { get: () => () => {} })), banner: () => {} };

/**
 * Words, sound and die for one event; returns a promise to wait on (the die stays visible a moment).
 * `log`: where the line goes (the game's log by default); `quiet`: the words only (no sound, banner,
 * die or wait), for a log rebuilt from past events.
 * @param {any} e @param {string} rules @param {string[]} said
 * `loud`: the lines as a computer's ply is told, shorter (a skip without its reason).
 * `held`: a 护盾 held in this event's stack collision (the shielded planes stay, RULES.md §15.14).
 * `anim`: the animation factor of the waits (the replay's own, quickened by its 2× / 4×; the game's
 * speed by default). `more`: more of the state's events follow this one (a roll's value then stays
 * a moment before them; a roll that ends its state waits for a choice, kept at once).
 * @param {{log?: LogLine, quiet?: boolean, loud?: string[], held?: boolean, anim?: number, more?: boolean}} [how]
 */
function describeEvent(e, rules, said, { log = logLine, quiet = false, loud, held = false, anim = SPEED[current.speed].anim, more = true } = {}) {
  const { sfx: fx, banner: shout } = quiet ? QUIET : { sfx, banner };
  const nm = (s) => seatName(rules, s);
  const pc = (k) => k + 1;
  const ludo = rules === 'ludo';
  let text = '';
  let imp = false;
  switch (e.kind) {
    case 'openingRoll': case 'rolled':
      text = t(e.kind === 'openingRoll' ? 'openingRolled' : 'rolled', { name: nm(e.seat), d: e.die });
      log(text, false); said.push(text); loud?.push(text);
      if (quiet) return null;
      fx.roll();
      if (current.view !== 'game') { if (e.die === 6) fx.six(); return new Promise((r) => setTimeout(r, 380 * anim)); }
      // the wait covers the die's tumble: what comes next (a move, the next roll) waits until the
      // value is drawn, and then a moment with it in sight (the roll's old pause, less the tumble
      // it now overlaps, but at least 120 ms: the tumble added to the whole pause made a computer's
      // roll at 中 a second); the six's sound comes as it lands
      current.dieSeat = e.seat;
      // the roll is made at its roller's hangar (a state can tell several seats' rolls)
      placeDie(e.seat);
      const tumbled = tumbleMs();
      return showDie(e.die, { rolling: true, seat: e.seat, rules }).then(() => {
        if (e.die === 6) fx.six();
        return more && anim > 0 ? new Promise((r) => setTimeout(r, Math.max(120, 380 * anim - tumbled))) : undefined;
      });
    case 'starts': text = t('startsFirst', { name: nm(e.seat) }); imp = true; break;
    case 'takeOff': fx.jump(); text = t(ludo ? 'takeOffLudo' : 'takeOff', { name: nm(e.seat), piece: pc(e.piece) }); break;
    case 'step': fx.step(); return null;
    // the moments players watch for get a banner as a fly does (跳子 and 后退 had only the log)
    case 'jump': fx.jump(); text = t('jumped', { name: nm(e.seat), piece: pc(e.piece) }); shout(t('jumpBanner'), 700); break;
    case 'fly': fx.fly(); text = t('flew', { name: nm(e.seat), piece: pc(e.piece) }); shout('✈ ' + t('flyBanner')); break;
    case 'bounce': text = t('bounced', { name: nm(e.seat), piece: pc(e.piece) }); shout(t(e.cause === 'stack' ? 'bounceBanner' : 'bounceCentreBanner'), 800); break;
    case 'blocked': text = e.what === 'jump' ? t('blockedJump') : t('blockedFly'); break;
    case 'parked': text = t('parked', { name: nm(e.seat), piece: pc(e.piece) }); break;
    case 'captured':
      fx.capture();
      if (!quiet && current.view === 'game' && myPlanes(e.victimSeat)) buzz([60, 40, 60]);
      if (e.victimSeat === e.seat) return null; // the collision line says it
      text = t(ludo ? 'capturedLudo' : 'captured', { by: nm(e.seat), victim: nm(e.victimSeat), piece: pc(e.victimPiece) });
      imp = true; shout(ludo ? t('captureBannerLudo') : t('captureBanner')); break;
    // "all go home" is not so where a shield held: the shielded planes stay (RULES.md §15.14)
    case 'collision': fx.capture(); text = t(held ? 'collisionShielded' : 'collision'); imp = true; shout(text); break;
    case 'finished': fx.finish(); text = t('finishedPiece', { name: nm(e.seat), unit: unitOf(rules), piece: pc(e.piece) }); imp = true; break;
    case 'seatFinished': fx.win(); text = t(e.place == null ? 'seatFinishedPartner' : 'seatFinished', { name: nm(e.seat), unit: unitOf(rules), place: e.place }); imp = true; shout(text, 1500); break;
    case 'penalty': fx.capture(); text = t('penalty', { name: nm(e.seat) }); imp = true; shout(text, 1500); break;
    case 'skip': {
      // the penalty's own line (just before) says what happened: it is no "cannot move"
      if (e.reason === 'triple_six_penalty') return null;
      fx.skip();
      // the engine's own sentence (RULES.md §6.2), in both languages: it alone knows the cause
      const reason = (getLang() === 'zh' ? e.zh : e.en) || e.reason;
      // a void third six is no "cannot move": the turn just ends
      text = t(e.reason === 'void_third_six' ? 'skippedSix' : 'skipped', { name: nm(e.seat), reason });
      imp = true;
      shout(t('skipBanner'), 900); break;
    }
    case 'stack':
      if (e.count > 1) { text = t(ludo ? 'stackedLudo' : 'stacked', { name: nm(e.seat), piece: pc(e.piece), n: e.count }); if (!ludo) shout(t('stackBanner'), 700); }
      break;
    case 'bonus':
      text = t(e.cause === 'capture' ? 'bonusCapture' : e.cause === 'finish' ? 'bonusFinish' : 'bonusSix');
      shout(t('bonus', { name: nm(e.seat) }), 700);
      break;
    case 'turnPassed': text = t('passes', { name: nm(e.to) }); break;
    case 'moved': text = t('moved', { name: nm(e.seat), unit: unitOf(rules), piece: pc(e.piece), where: whereText(rules, e.to) }); break;
    // ---- 道具模式 (docs/PROTOCOL.md "Items")
    case 'roundStarted': text = t('evRoundStarted', { n: e.round }); break;
    case 'itemAppeared': text = t('evItemAppeared', { item: itemName(e.item) }); break;
    case 'itemPicked': fx.jump(); text = t('evItemPicked', { name: nm(e.seat), piece: pc(e.piece), item: itemName(e.item) }); imp = true; break;
    case 'itemUsed': {
      text = t('evItemUsed', { name: nm(e.seat), use: useText(rules, e.use) });
      imp = true; shout(`${itemName(e.use?.item)}`, 800); break;
    }
    case 'missileHit':
      fx.capture();
      text = t('evMissileHit', { victim: nm(e.victimSeat), piece: pc(e.victimPiece) });
      imp = true; shout(itemName('missile'), 900); break;
    case 'shieldHeld': text = t('evShieldHeld', { name: nm(e.seat), piece: pc(e.piece) }); imp = true; break;
    case 'shieldEnded': text = t('evShieldEnded', { name: nm(e.seat), piece: pc(e.piece) }); break;
    case 'weatherAppeared': text = t('evWeatherAppeared', { weather: itemName(e.weather) }); break;
    case 'weatherVanished': text = t('evWeatherVanished'); break;
    case 'weatherStruck': text = t('evStruck_' + e.weather, { name: nm(e.seat), piece: pc(e.piece) }); imp = true; break;
    case 'gameOver': text = t('gameOver'); imp = true; break;
    default: return null;
  }
  if (text) { log(text, imp); said.push(text); }
  // what a screen reader hears of a computer's ply: every line, a skip without its reason
  if (text) loud?.push(e.kind === 'skip' && e.reason !== 'void_third_six' ? t('skippedShort', { name: nm(e.seat) }) : text);
  return null;
}

/**
 * The words of `frames`' events, quietly (no sound, banner, die or wait), into a log: a log
 * rebuilt after a jump in the replay, a reload of the page or a change of language.
 * @param {any[]} frames @param {string} rules
 * @param {{log: LogLine}} how
 */
function logFrames(frames, rules, { log }) {
  for (const f of frames) {
    const tell = narrator(f, rules, [], { log, quiet: true });
    for (const e of withMoveLines(f.events || [])) tell(e);
  }
}

/**
 * How one state (or a replay frame) is told, one call per event (give it to `board.animate`,
 * or call it quietly for a rebuilt log): a room's timeout line first, 自动走棋 where a move
 * follows its roll in the same state (a roll with one option, RULES.md §6.2 step 5), then each
 * event's own words (`describeEvent`, with `how`). Lines said go into `said` too.
 * @param {{cause?: string, events?: any[]}} f @param {string} rules @param {string[]} said
 * Each line is drawn in the colour of the seat whose turn it tells (the event's seat, the seat a
 * turn passes to, else the last one named).
 * @param {{log?: LogLine, quiet?: boolean, loud?: string[], anim?: number}} [how]
 * @returns {(e: any) => Promise<void>|null}
 */
function narrator(f, rules, said, how = {}) {
  const log = how.log ?? logLine;
  let who = -1;
  const paint = (/** @type {string} */ text, imp = false) => log(text, imp, who >= 0 ? COLOURS[rules]?.[who] ?? '' : '');
  const tell = (/** @type {string} */ text, imp = false) => { paint(text, imp); said.push(text); };
  const told = { ...how, log: paint };
  if (f.cause === 'timeout') tell(timeoutText(rules, f.events || []), true);
  let afterRoll = false;
  // the engine tells the shields that held in a stack collision right after the collision
  const evs = f.events || [];
  const heldAfter = (/** @type {any} */ e) => { const i = evs.indexOf(e); return i >= 0 && evs[i + 1]?.kind === 'shieldHeld'; };
  return (e) => {
    if (e.kind === 'turnPassed') who = e.to; else if (typeof e.seat === 'number') who = e.seat;
    if (['step', 'jump', 'fly', 'takeOff'].includes(e.kind)) {
      // whose move it was (the line named no one)
      if (afterRoll) tell(t('autoMove', { name: seatName(rules, e.seat) }));
      afterRoll = false;
    } else afterRoll = e.kind === 'rolled';
    if (e.kind === 'collision' && heldAfter(e)) return describeEvent(e, rules, said, { ...told, held: true });
    if (e.kind === 'rolled' || e.kind === 'openingRoll') return describeEvent(e, rules, said, { ...told, more: evs.indexOf(e) < evs.length - 1 });
    return describeEvent(e, rules, said, told);
  };
}

/** A room's timer ran out and the server played the seat's action (§7.5). @param {string} rules @param {any[]} events */
function timeoutText(rules, events) {
  const seat = (events || []).find((e) => typeof e.seat === 'number')?.seat;
  return t('timedOut', { name: seat === undefined ? '' : seatName(rules, seat) });
}

/** How many of the game's plies the game screen's log is rebuilt from. */
const RELOG_GAME_PLIES = 60;

/**
 * The game screen's log rebuilt from the frames this browser saw (`current.local`, kept across a
 * reload): in the language of the moment, and empty for a game that has just begun. `upTo`: the
 * frames before that version only (the state being animated tells its own).
 * @param {any} st @param {number} [upTo]
 */
function relogGame(st, upTo = Infinity) {
  $('log').innerHTML = '';
  const loc = current.local;
  if (!loc || loc.gameId !== st.gameId) return;
  const frames = loc.frames.filter((f) => f.version < upTo).slice(-RELOG_GAME_PLIES);
  // a room's chat lines between the plies they came after
  const chats = (loc.chats || []).filter((c) => c.version >= (frames[0]?.version ?? 0) && c.version < upTo);
  let next = 0;
  const chatUpTo = (v) => { for (; next < chats.length && chats[next].version <= v; next++) logLine(rooms.chatLine(chats[next])); };
  for (const f of frames) {
    chatUpTo(f.version - 1);
    logFrames([f], loc.rules, { log: logLine });
  }
  chatUpTo(Infinity);
}

/** The causes of a state that played something (a frame of the game, with its events). */
const PLY_CAUSES = new Set(['roll', 'move', 'step', 'fastForward', 'computer', 'timeout', 'useItem']);

/** Frames of this game as this browser saw them: the replay viewer's fallback without POST /api/replay. */
function recordFrame(st) {
  const snap = { version: st.version, seats: st.seats, turn: st.turn, phase: st.phase, die: st.die, items: st.items };
  if (st.cause === 'create' || st.cause === 'start' || !current.local || current.local.gameId !== st.gameId) {
    current.local = { gameId: st.gameId, rules: st.rules, start: snap, frames: [], chats: [] };
  }
  if (PLY_CAUSES.has(st.cause)) current.local.frames.push({ ...snap, events: st.events, seat: st.turn, cause: st.cause });
  if (st.cause === 'undo') current.local.frames = current.local.frames.filter((f) => f.version <= st.version);
}

async function handleState(st) {
  recordFrame(st);
  if (current.view !== 'game') {
    // a reply for the game screen while the viewer or set-up is open: keep it for later
    current.st = st;
    return;
  }
  clearTimeout(current.stepTimer);
  // an auto-roll was for the state before: this one decides again
  clearTimeout(current.autoTimer);
  await ensureBoard(st);
  const board = /** @type {NonNullable<typeof current.board>} */ (current.board);
  const prev = current.st;
  current.st = st;
  // another game (a room's next one), or the game taken up again (a reload, a reconnect): the
  // log is this game's own, rebuilt from what this browser saw of it; after 悔棋 without the
  // plies taken back (a reload showed the game without them, this screen with them)
  if (prev?.gameId !== st.gameId || st.cause === 'join' || st.cause === 'sync' || st.cause === 'undo') relogGame(st, PLY_CAUSES.has(st.cause) ? st.version : Infinity);
  board.setHint(null);
  $('hint-panel').hidden = true;
  current.itemHint = null;
  cancelTarget(false);
  const said = [];
  /** @type {string[]} */ const loud = [];
  if (st.cause === 'fastForward') {
    // the result at once; the board stays where it was so 继续观看 can play the same events
    current.ff = { events: st.events, from: prev ? progressOf(prev) : null, items: prev?.items ?? null };
    renderSide(st);
    announce(turnPrompt(st));
    openEnd(st, true);
    return;
  }
  // (a fast-forward returned above: its events wait for 继续观看)
  if (st.events && st.events.length && PLY_CAUSES.has(st.cause)) {
    board.setLegal(-1, []);
    setButtons(null);
    $('turn-help').hidden = true;
    // while the roll plays out the prompt says what was rolled (it still asked for the roll, and
    // its 轮到 banner stayed, until the next prompt): once the die shows it, not while it tumbles
    const rolled = st.events.find((/** @type {any} */ e) => e.kind === 'rolled');
    if (rolled) clearBanner();
    const tell = narrator(st, st.rules, said, { loud });
    await board.animate(withMoveLines(st.events), (e) => {
      const wait = tell(e);
      if (e === rolled) tumbling.landed.then(() => { $('turn-msg').textContent = t('rolled', { name: seatName(st.rules, rolled.seat), d: rolled.die }); });
      return wait;
    });
  } else if (st.cause === 'undo') {
    toast(t('undone')); said.push(t('undone'));
    logLine(t('undone'), true);
  }
  board.setPieces(progressOf(st), seatsOf(st));
  board.setItems(st.items ?? null);
  // the roll being played is the mover's; a used one stays, faded, in its roller's colour and
  // hangar until the next roll. A state that is no ply (a join, a sync) or of another game
  // tells no roller: its used roll is drawn as no one's, at no one's hangar (a "?" instead)
  if (st.phase === 'move') current.dieSeat = st.turn;
  else if (!st.die || !PLY_CAUSES.has(st.cause) || prev?.gameId !== st.gameId) current.dieSeat = -1;
  if (rollHere(st)) {
    // this screen's seat to roll gets the die fresh (its "?" asks for the roll; the last roll
    // is in the log). A roll this state told (mine with no move, a computer's, the last opening
    // roll) stays in sight a moment first: it was replaced before it was seen
    const anim = animFactor();
    if (anim > 0 && (st.events || []).some((/** @type {any} */ e) => e.kind === 'rolled' || e.kind === 'openingRoll')) await new Promise((r) => setTimeout(r, 600 * anim));
    if (current.st !== st) return;
    showDie(0);
  } else if (st.die && current.dieSeat >= 0) showDie(st.die, { seat: current.dieSeat, rules: st.rules, stale: st.phase !== 'move' });
  else showDie(0);
  renderSide(st);
  const prompt = turnPrompt(st);
  // A computer's ply is told shorter: the reasons of three computers' skips (the same long
  // sentence every turn), 自动走棋 and 正在思考 came faster than a voice reads them, one a second,
  // each cut off by the next.
  const roller = (st.events || []).find((/** @type {any} */ e) => e.kind === 'rolled' || e.kind === 'openingRoll')?.seat;
  if (typeof roller === 'number' && seatInfo(st, roller)?.controller === 'computer') said.splice(0, said.length, ...loud);
  // at the end the prompt names the winner: the bare 游戏结束 of the event is not said twice
  if (st.phase === 'over') said.splice(0, said.length, ...said.filter((x) => x !== t('gameOver')));
  // the choice prompt says the roll: not twice ("红方 掷出 4。红方 掷出 4，请选择")
  if (canAct(st) && st.phase === 'move') said.splice(0, said.length, ...said.filter((x) => x !== t('rolled', { name: seatName(st.rules, st.turn), d: st.die })));
  if (prompt && st.toAct !== 'computer') said.push(prompt);
  if (said.length) announce(speech(said));
  if (st.phase === 'over') {
    // a room stays this browser's at its end (a reload comes back to it, for 再来一局) until 离开房间
    if (!inRoom(st)) { store.del('fxq.current'); if (net.game) ended.keep(net.game); }
    openEnd(st, false);
    return;
  }
  scheduleNext(st);
}

/**
 * What the screen reader is told of one state (or one turn of a replay): every line, the roll
 * first, each ended as a sentence of the UI language (the English ones were joined by 。, and
 * only the last six kept, so a busy turn lost its roll).
 * @param {string[]} parts
 */
function speech(parts) {
  const stop = getLang() === 'zh' ? '。' : '.';
  return parts.map((p) => (/[。.!?！？…:：]$/.test(p) ? p : p + stop)).join(' ');
}

function turnPrompt(st) {
  if (st.phase === 'over') return endTitle(st);
  const name = seatName(st.rules, st.turn);
  if (inRoom(st) && !canAct(st)) return t('roomWaiting', { name: `${name} · ${rooms.seatLabel(st, st.turn)}` });
  if (st.toAct === 'computer') return t(current.paused ? 'computerPaused' : 'computerThinking', { name });
  if (st.phase === 'move') return t('choosePrompt', { name, d: st.die, unit: unitOf(st.rules) });
  if (st.phase === 'opening') return t('openingPrompt', { name });
  return t('rollPrompt', { name });
}

/**
 * Where each movable piece would land, from the state's `choices` (docs/PROTOCOL.md §3: every
 * piece of an option lands where its representative does; `to` null when it goes home).
 * @returns {Record<number, number|null>}
 */
function landingsOf(st) {
  /** @type {Record<number, number|null>} */
  const out = {};
  for (const c of st.choices || []) for (const p of c.pieces || [c.piece]) out[p] = c.to ?? null;
  return out;
}

/**
 * Whether this is the player's first game, for the how-to line under the choose prompt: asked at
 * a choice only, so the first game where a choice came (local or a room's) is the one remembered,
 * by its id: a reload, a 开始 that failed or a game left before any choice counts for nothing.
 */
function firstGame(st) {
  const first = store.get('fxq.firstGame', null);
  if (first) return first === st.gameId;
  // (counted before as games started, so 1 or more: a game was played, or begun)
  if (store.get('fxq.games', 0) >= 1) return false;
  store.set('fxq.firstGame', st.gameId);
  return true;
}

function setButtons(st) {
  const human = canAct(st);
  // while an item waits for its target the roll waits too (Tab from the targets, then Enter,
  // rolled and dropped the item)
  // (not again while this state's roll is on its way: the button did nothing, and glowed)
  setRollable(rollHere(st) && !current.targeting && current.rolledOn !== st);
  /** @type {HTMLButtonElement} */ ($('btn-hint')).disabled = !(human && (st.phase === 'move' || (canUseItem(st) && ownBar(st).length > 0)));
  /** @type {HTMLButtonElement} */ ($('btn-undo')).disabled = !(st && st.canUndo);
  // the end screen, closed, opens again from here (its ranking, statistics and 复盘)
  $('btn-result').hidden = st?.phase !== 'over';
}

function renderSide(st) {
  const rules = st.rules;
  showTitle(rules);
  const seat = st.turn;
  const over = st.phase === 'over';
  const col = COLOURS[rules][seat];
  const tb = $('turnbar');
  tb.style.setProperty('--turn', over ? '#888' : col);
  $('turn-chip').innerHTML = over ? '' : chipSvg(rules, seat, 28);
  const info = seatInfo(st, seat);
  $('turn-who').textContent = over ? t('gameOver') : `${seatName(rules, seat)} · ${controllerText(info)}`;
  // the choice in one line (the die on the board says the roll); how to choose, under it in a
  // player's first game only, and always in the prompt's title and its description
  const choosingHere = canAct(st) && st.phase === 'move';
  const howTo = t(touchOnly.matches ? 'legalHelpTouch' : 'legalHelp', { unit: unitOf(st.rules) });
  $('turn-msg').textContent = over ? '' : (choosingHere ? t('chooseShort', { unit: unitOf(st.rules) }) : turnPrompt(st))
    + (canUseItem(st) && ownBar(st).length ? ' — ' + t('itemPrompt') : '');
  $('turn-msg').title = choosingHere ? howTo : '';
  $('turn-help').textContent = choosingHere ? howTo : '';
  $('turn-help').hidden = !choosingHere || !firstGame(st);
  const board = current.board;
  board?.setTurn(over ? -1 : seat);
  // the die stays in the hangar where it was rolled until the next roll, and comes to this
  // screen's seat when it is to roll (at the end, off the board): moved on with the turn, a roll
  // with no move left its roller's hangar at once and read as the next seat's roll
  placeDie(over ? -1 : rollHere(st) || current.dieSeat < 0 ? seat : current.dieSeat);
  const choosing = canAct(st) && st.phase === 'move';
  board?.setLegal(choosing ? seat : -1, choosing ? st.legal : [], choosing ? landingsOf(st) : {});
  board?.relabel();
  setButtons(st);
  // with several people at this screen the roll button says whose roll it is
  const humans = st.seats.filter((s) => s.controller === 'human').length;
  $('btn-roll').textContent = humans > 1 && !inRoom(st) && st.toAct === 'human' && !over ? `${seatName(rules, seat)} · ${t('roll')}` : rollWord();
  const pieces = st.options?.pieces || 4;
  $('players').innerHTML = st.seats.map((s) => {
    const sum = s.pieces.reduce((a, p) => a + (p.finished ? 56 : p.progress ?? 0), 0);
    const pct = Math.round(100 * sum / (56 * pieces));
    const place = s.place ? ' · ' + t('place', { n: s.place }) : '';
    const partner = st.options?.team ? ` · ${t('teamOf')} ${seatName(rules, (s.seat + 2) % 4)}` : '';
    return `<div class="p ${!over && s.seat === seat ? 'turn' : ''}" style="--c:${COLOURS[rules][s.seat]}"><span class="chip">${chipSvg(rules, s.seat, 18)}</span>
      <span>${seatName(rules, s.seat)} <small class="muted">${esc(controllerText(s))}${partner}</small></span>
      <span class="bar" title="${t('progress')} ${pct}%"><i style="width:${pct}%"></i></span><small>${s.finishedPieces}/${pieces}${place}</small></div>`;
  }).join('');
  // the whole commitment, to write down before the first roll and compare with the record's
  // (a prefix would let a server that ground a seed to match it pass): folded to its first 8
  // digits, the whole in the title, on opening and by 复制
  showCommit(st.dice?.commitment || '');
  renderItems(st);
  // 暂停电脑 only where a computer plays here (friends at one screen, a room: none to pause);
  // the speed stays, as 动画速度 there: it sets every animation's speed, not the computers' only
  const computersHere = !inRoom(st) && st.seats.some((/** @type {any} */ s) => s.controller === 'computer');
  $('btn-pause').hidden = !computersHere;
  const speedLabel = /** @type {HTMLElement} */ ($('speed-row').querySelector('label[for=speed]'));
  speedLabel.dataset.t = computersHere ? 'speed' : 'animSpeed';
  speedLabel.textContent = t(speedLabel.dataset.t);
  if (inRoom(st)) rooms.renderGame(st); else rooms.stopTimer();
  if (canAct(st) && current.keyboard) {
    if (st.phase === 'move') setTimeout(() => board?.focusLegal(1), 0);
    else if (document.activeElement?.closest?.('svg')) $('btn-roll').focus();
  }
  // (after the legal pieces changed: the one focused may have stopped being a button)
  setTimeout(rescueFocus, 0);
}

/** The dice commitment under the controls, folded (redrawn only when it or the language changes: an opened one stays open). @param {string} c */
function showCommit(c) {
  const el = $('commit');
  el.hidden = !c;
  const key = `${getLang()}:${c}`;
  if (!c || el.dataset.key === key) return;
  el.dataset.key = key;
  el.innerHTML = `<details><summary title="${esc(c)}">${t('commitShort')} <span aria-hidden="true">ⓘ</span> <code>${esc(c.slice(0, 8))}…</code></summary>
    <p>${t('commitLong')}</p><code class="hash">${esc(c)}</code> <button type="button" class="copy-commit">${t('copyCommit')}</button></details>`;
  el.querySelector('.copy-commit')?.addEventListener('click', () => copyText(c));
}

function scheduleNext(st) {
  clearTimeout(current.stepTimer);
  scheduleAutoRoll(st);
  if (inRoom(st)) {
    // the server plays computers, timeouts and 托管 on its own (§7); only say when it is my turn
    // (not while the server plays the seat in 托管: then it is not the person's turn to act)
    if (rollHere(st) && !rooms.autoSeats(st).includes(st.turn)) { banner(t('yourTurnBanner'), 800); sfx.turn(); buzz(40); }
    return;
  }
  if (st.canFastForward) {
    current.stepTimer = window.setTimeout(() => act({ type: 'fastForward' }), 250);
    return;
  }
  if (st.toAct === 'computer') {
    if (current.paused) return;
    current.stepTimer = window.setTimeout(() => act({ type: 'step' }), SPEED[current.speed].wait);
  } else if (st.toAct === 'human' && (st.phase === 'roll' || st.phase === 'opening')) {
    const humans = st.seats.filter((s) => s.controller === 'human').length;
    if (humans > 1) banner(t('turnOf', { name: seatName(st.rules, st.turn) }), 800);
    sfx.turn();
    buzz(40);
  }
}

/**
 * 没有选择时自动掷骰: rolls for this screen's player, after the speed's usual pause (so it is
 * seen), when the server says that no face of this roll could give a choice (`rollDecides`,
 * docs/PROTOCOL.md §3, from the position alone, never the coming die), and at an opening roll.
 * Never for a computer, another screen's seat or a seat in 托管; a new state, a roll by hand or
 * the option turned off cancels it.
 */
function scheduleAutoRoll(st) {
  clearTimeout(current.autoTimer);
  if (!current.autoRoll || !canAct(st) || current.targeting || current.rolledOn === st) return;
  if (!(st.phase === 'opening' || (st.phase === 'roll' && st.rollDecides === false))) return;
  // in a room a roll is the person acting: it takes the seat back from 托管 and restarts its
  // count of timeouts (PROTOCOL.md §7.5). So only for a page in view, and never for a seat in
  // 托管 by the room's word or this state's (a timeout's state comes before the room saying so)
  const away = () => inRoom(st) && (document.hidden || rooms.autoSeats(st).includes(st.turn) || (st.room?.auto ?? []).includes(st.turn));
  if (away()) return;
  current.autoTimer = window.setTimeout(() => {
    if (current.st !== st || current.view !== 'game' || !current.autoRoll || away() || current.rolledOn === st) return;
    logLine(t('autoRolled'), false, COLOURS[st.rules][st.turn]);
    roll();
  }, SPEED[current.speed].wait);
}

async function act(msg) {
  const st = current.st;
  if (!st) return;
  try {
    return await net.request({ ...msg, version: st.version });
  } catch (e) {
    if (e.code === 'stale_version' || e.code === 'closed') { net.request({ type: 'sync' }).catch(() => {}); return; }
    if (e.code === 'rate_limited') { retryLater(() => act(msg), st); return; }
    if (e.code === 'game_over') return;
    // a double key press or a click racing a state: quietly resync
    if (!['not_your_turn', 'illegal_move', 'not_allowed'].includes(e.code)) toast(t('error', { msg: e.message }));
    net.request({ type: 'sync' }).catch(() => {});
  }
}

/**
 * The server drops messages above its rate (20 a second, PROTOCOL.md): computers stepping at once
 * can reach it, and then a player's own roll or move was dropped with them (Space did nothing).
 * Wait for the budget to refill, then send the same action again if the game is still where it
 * was when it was sent; if anything changed meanwhile, sync instead (the synced state schedules
 * the next step again).
 * @param {() => unknown} again @param {any} st the state the action was meant for
 */
function retryLater(again, st, ms = 600) {
  setTimeout(() => {
    if (st && current.st?.version === st.version) again(); // a sync may have replaced the object, not the game
    else net.request({ type: 'sync' }).catch((e) => { if (e.code === 'rate_limited') retryLater(again, null, ms); });
  }, ms);
}

function roll() {
  const st = current.st;
  if (!rollHere(st) || current.rolledOn === st) return;
  current.rolledOn = st;
  cancelTarget(false);
  clearTimeout(current.autoTimer);
  setRollable(false);
  showDie(0, { rolling: true });
  act({ type: 'roll' });
}
function pick(piece) {
  const st = current.st;
  if (!canAct(st) || st.phase !== 'move') return;
  // a piece that cannot move with this roll (a number key, a click): say so rather than nothing
  if (!st.legal.includes(piece)) { if (piece < (st.options?.pieces ?? 4)) toast(t('cannotMovePiece', { piece: pieceName(st.rules, piece + 1), d: st.die })); return; }
  current.board?.setLegal(-1, []);
  act({ type: 'move', piece, seat: st.turn });
}
async function hint() {
  const st = current.st;
  if (st && inRoom(st)) { toastAloud(t('hintRoom')); return; }
  if (!st || st.toAct !== 'human') return;
  // before the roll the Master advises on the item bar only (docs/PROTOCOL.md "Items", Hint)
  const beforeRoll = st.phase === 'roll' && canUseItem(st) && ownBar(st).length > 0;
  if (st.phase !== 'move' && !beforeRoll) { toastAloud(t('hintAfterRoll')); return; }
  try {
    const h = await net.request({ type: 'hint', version: st.version });
    if (current.st !== st) return;
    const best = h.options?.[0];
    const it = h.item && h.item.use ? h.item : null;
    if (!best && !it) { toastAloud(beforeRoll ? t('itemHintNone') : t('noHint')); return; }
    if (it) {
      current.itemHint = it.use;
      renderItems(st);
    }
    if (best) current.board?.setHint({ seat: h.seat, piece: best.piece, to: best.to ?? -1 });
    current.hint = { st, h };
    announce(renderHint());
    // on a short phone the panel opened under the fold and only the board's marker showed: bring
    // the words up, and only as far as needed (the board, if it was in view, stays as it was)
    const panel = $('hint-panel').getBoundingClientRect();
    if (panel.bottom > innerHeight || panel.top < 0) $('hint-panel').scrollIntoView({ block: 'nearest' });
  } catch (e) {
    toast(t('noHint'));
  }
}

/**
 * Writes the hint panel for the hint kept in `current.hint`, in the language of the moment;
 * `again`: the same hint after a change of language (its list stays open if it was); returns the
 * sentence for the screen reader.
 */
function renderHint(again = false) {
  const { st, h } = /** @type {{st: any, h: any}} */ (current.hint);
  const zh = getLang() === 'zh';
  const best = h.options?.[0];
  const it = h.item && h.item.use ? h.item : null;
  // Chinese punctuation in Chinese (it read 大师提示: … (胜率 32%)), on the panel and in what is said
  const colon = zh ? '：' : ': ';
  const comma = zh ? '，' : ', ';
  const stop = zh ? '。' : '. ';
  const paren = (/** @type {string|number} */ x) => (zh ? `（${x}）` : ` (${x})`);
  let itemHtml = '', itemSaid = '';
  if (it) {
    // the Master's own sentence names the use and its gain (docs/PROTOCOL.md §9 Hint)
    const text = t('itemHint', { use: (zh ? it.zh : it.en) || useText(st.rules, it.use) });
    itemHtml = `<span class="hint-item"><strong>${t('hint')}</strong> · ${esc(text)}</span>`;
    itemSaid = `${t('hint')}${colon}${text}`;
  }
  const panel = $('hint-panel');
  panel.hidden = false;
  if (!best) {
    panel.innerHTML = itemHtml;
    return itemSaid;
  }
  const item = (o, i) => `<li class="${i === 0 ? 'best' : ''}"><span class="pct">${(o.win * 100).toFixed(0)}%</span> ${seatName(st.rules, h.seat)} ${pieceName(st.rules, o.piece + 1)} → ${whereText(st.rules, o.to ?? -1)} — ${zh ? o.zh : o.en}</li>`;
  const open = again && panel.querySelector('details')?.open ? 'open' : '';
  panel.innerHTML = `${itemHtml}<strong>${t('hint')}</strong>${colon}${pieceName(st.rules, best.piece + 1)} → ${whereText(st.rules, best.to ?? -1)}${paren(t('winPct', { p: (best.win * 100).toFixed(0) }))} — ${zh ? best.zh : best.en}
    <details ${h.options.length > 1 ? '' : 'hidden'} ${open}><summary>${t('hintAll')}${paren(h.options.length)}</summary><ol>${h.options.map(item).join('')}</ol><p class="hint-note">${t('hintWinNote')}</p></details>`;
  return `${itemSaid} ${t('hint')}${colon}${pieceName(st.rules, best.piece + 1)}${comma}${whereText(st.rules, best.to ?? -1)}${comma}${t('winPct', { p: (best.win * 100).toFixed(0) })}${stop}${zh ? best.zh : best.en}`;
}

// ---------------------------------------------------------------------------------------------
// 道具模式 item mode (RULES.md §10.3, docs/PROTOCOL.md "Items"): the item bars, using an item with
// its targeting step, the item events' words

const itemName = (k) => ITEM_NAMES[getLang()][k] ?? String(k);
/** The item bar of the seat to act. @returns {string[]} */
const ownBar = (st) => st?.items?.bars?.[st.turn] || [];
/** Whether this screen may use an item now: its seat to act, before that seat's roll, once per roll. */
function canUseItem(st) {
  return !!st?.items && canAct(st) && st.phase === 'roll' && !st.items.usedThisRoll;
}
/** A plane on the loop (progress 1–50, RULES.md §2.2): what 护盾 and 导弹 may target. */
const onLoop = (p) => !!p && !p.finished && typeof p.progress === 'number' && p.progress >= 1 && p.progress <= 50;
const isShielded = (st, seat, piece) => (st.items?.shields || []).some(([s, k]) => s === seat && k === piece);

/** 护盾 targets: the mover's own planes on the loop not shielded yet. @returns {number[][]} */
function shieldTargets(st) {
  const me = seatInfo(st, st.turn);
  return (me?.pieces || []).flatMap((p, k) => (onLoop(p) && !isShielded(st, st.turn, k) ? [[st.turn, k]] : []));
}
/**
 * 导弹 targets: enemy planes on the loop that are neither shielded nor stacked (≥ 2 planes of its
 * colour on the square, of its team in team play — RULES.md §10.3, §3.5, §9). @returns {number[][]}
 */
function missileTargets(st) {
  const geo = current.board?.geo;
  if (!geo) return [];
  const team = !!st.options?.team;
  const side = (s) => st.seats.filter((o) => o.seat === s || (team && o.seat === (s + 2) % 4));
  const out = [];
  for (const info of st.seats) {
    const s = info.seat;
    if (s === st.turn || (team && s === (st.turn + 2) % 4)) continue;
    info.pieces.forEach((p, k) => {
      if (!onLoop(p) || isShielded(st, s, k)) return;
      const a = absOf(geo, s, p.progress);
      const here = side(s).reduce((n, o) => n + o.pieces.filter((q) => onLoop(q) && absOf(geo, o.seat, q.progress) === a).length, 0);
      if (here < 2) out.push([s, k]);
    });
  }
  return out;
}

/** What an item use does, in words: `{item, die|piece|seat}` (docs/PROTOCOL.md "Items"). */
function useText(rules, use) {
  switch (use?.item) {
    case 'sixDie': return t('itemUseSix');
    case 'booster': return t('itemUseBooster');
    case 'remoteDie': return t('itemUseRemote', { d: use.die });
    case 'shield': return t('itemUseShield', { piece: use.piece + 1 });
    case 'missile': return t('itemUseMissile', { victim: seatName(rules, use.seat), piece: use.piece + 1 });
    default: return itemName(use?.item);
  }
}

/** The item panel: round, weather, booster and one bar per seat; only the seat to act here may use its bar. */
/**
 * A panel of item bars: each seat's bar, made again when the game, language or seats change.
 * @typedef {{bars: Map<number, ReturnType<typeof createItemBar>>, key: string}} ItemPanel
 */

/**
 * 道具模式's panel (RULES.md §10.3): every seat's item bar, the round, the weather and its last
 * round, an active booster; hidden without items. The game screen's and the replay's.
 * @param {HTMLElement} panel @param {ItemPanel} view
 * @param {{gameId?: string, rules: string, items?: any}} st @param {number[]} seats
 * @param {((seat: number, item: string, i: number) => void)|null} onUse null: bars to look at
 * @returns {boolean} whether there are items
 */
function drawItemPanel(panel, view, st, seats, onUse) {
  const it = st?.items;
  if (!it) {
    for (const bar of view.bars.values()) bar.destroy();
    view.bars.clear();
    view.key = '';
    panel.hidden = true;
    panel.replaceChildren();
    return false;
  }
  const key = `${st.gameId}|${getLang()}|${seats.join()}`;
  if (view.key !== key) {
    for (const bar of view.bars.values()) bar.destroy();
    view.bars.clear();
    panel.innerHTML = `<div class="items-head"><b>${t('itemBars')}</b><span class="round"></span><span class="weather"></span><span class="booster"></span><span class="on-board"></span></div>`;
    for (const seat of seats) {
      const row = document.createElement('div');
      row.className = 'seat-bar';
      row.dataset.seat = String(seat);
      row.style.setProperty('--c', COLOURS[st.rules][seat]);
      row.innerHTML = `<span class="chip">${chipSvg(st.rules, seat, 18)}</span><span class="nm">${seatName(st.rules, seat)}</span>`;
      panel.appendChild(row);
      const bar = createItemBar(row, { lang: getLang() === 'en' ? 'en' : 'zh', onUse: onUse ? (item, i) => onUse(seat, item, i) : undefined });
      bar.el.setAttribute('aria-label', t('itemBarOf', { name: seatName(st.rules, seat) }));
      view.bars.set(seat, bar);
    }
    view.key = key;
  }
  panel.hidden = false;
  /** @type {HTMLElement} */ (panel.querySelector('.round')).textContent = it.round ? t('itemRound', { n: it.round }) : '';
  // the icons on the board, named: a phone has no tooltip to say what a glyph is
  const named = (/** @type {string} */ k, /** @type {string} */ text) => { const s = document.createElement('span'); s.className = 'named'; s.append(glyphIcon(k, 18), text); return s; };
  panel.querySelector('.weather')?.replaceChildren(...(it.weather ? [named(it.weather.kind, t('itemWeatherUntil', { w: itemName(it.weather.kind), n: it.weather.untilRound }))] : []));
  const kinds = [...new Set((it.board || []).map((/** @type {any} */ b) => String(b.item)))];
  panel.querySelector('.on-board')?.replaceChildren(...(kinds.length ? [t('itemOnBoard'), ...kinds.map((k) => named(k, itemName(k)))] : []));
  /** @type {HTMLElement} */ (panel.querySelector('.booster')).textContent = it.booster ? t('itemBoosterOn') : '';
  if (!onUse) for (const [seat, bar] of view.bars) bar.set(it.bars?.[seat] || [], false);
  return true;
}

function renderItems(st) {
  const on = drawItemPanel($('items-panel'), current.items, st, st ? seatsOf(st) : [], useFromBar);
  $('keys-items').hidden = !on;
  if (!on) return;
  const it = st.items;
  const over = st.phase === 'over';
  for (const [seat, bar] of current.items.bars) {
    const turn = !over && seat === st.turn;
    const usable = turn && canUseItem(st) && !current.targeting;
    bar.set(it.bars?.[seat] || [], usable, turn ? current.itemHint?.item ?? null : null);
    bar.el.parentElement?.classList.toggle('turn', turn);
    if (turn && current.targeting) bar.el.children[current.targeting.index]?.classList.add('active');
  }
}

/** A click or key 1–3 on the bar of `seat`: items without a target are used at once. */
function useFromBar(seat, item, index) {
  const st = current.st;
  if (!canUseItem(st) || seat !== st.turn || current.targeting) return;
  if (item === 'sixDie' || item === 'booster') { sendItem({ item }); return; }
  const targets = item === 'shield' ? shieldTargets(st) : item === 'missile' ? missileTargets(st) : [];
  if (item !== 'remoteDie' && !targets.length) { toast(t('itemNoTarget', { item: itemName(item) })); return; }
  startTarget(item, index, targets);
}

/** The targeting step: a plane to click (护盾, 导弹) or a face to choose (遥控骰子); Escape cancels. */
function startTarget(item, index, targets) {
  const st = current.st;
  current.targeting = { item, index, targets };
  const prompt = renderTarget();
  setButtons(st);
  renderItems(st);
  announce(`${itemName(item)}: ${prompt}`);
  if (current.keyboard) {
    if (item === 'remoteDie') /** @type {HTMLElement|null} */ ($('item-target').querySelector('[data-die]'))?.focus();
    else current.board?.focusTarget(1);
  }
}

/**
 * The targeting step's box in the language of the moment (again after a change of language);
 * returns its prompt.
 */
function renderTarget() {
  const st = current.st;
  const { item, targets } = /** @type {{item: string, index: number, targets: any}} */ (current.targeting);
  const box = $('item-target');
  const hinted = current.itemHint?.item === item ? current.itemHint : null;
  const prompt = t(item === 'remoteDie' ? 'itemTargetRemote' : item === 'shield' ? 'itemTargetShield' : 'itemTargetMissile', { n: st?.options?.pieces ?? 4 });
  box.setAttribute('aria-label', itemName(item));
  if (item === 'remoteDie') {
    box.innerHTML = `<div>${prompt}</div><div class="faces">${[1, 2, 3, 4, 5, 6].map((d) => `<button type="button" class="item-slot${hinted?.die === d ? ' hinted' : ''}" data-die="${d}" aria-label="${t('itemFace', { d })}"><svg viewBox="0 0 100 100" aria-hidden="true">${dieSvg(d)}</svg></button>`).join('')}</div>
      <div><button type="button" id="item-cancel">${t('itemCancel')}</button></div>`;
    box.querySelectorAll('[data-die]').forEach((b) => b.addEventListener('click', () => chooseTarget({ item, die: Number(/** @type {HTMLElement} */ (b).dataset.die) })));
  } else {
    box.innerHTML = `<div>${prompt}</div><div><button type="button" id="item-cancel">${t('itemCancel')}</button></div>`;
    current.board?.setTargets(targets, (seat, piece) => chooseTarget(item === 'shield' ? { item, piece } : { item, seat, piece }));
    if (hinted) current.board?.setHint({ seat: hinted.seat ?? st.turn, piece: hinted.piece });
  }
  box.hidden = false;
  $('item-cancel').addEventListener('click', () => cancelTarget(true));
  return prompt;
}

/** Ends the targeting step (a target chosen, Escape, a new state). */
function cancelTarget(say) {
  if (!current.targeting) return;
  current.targeting = null;
  current.board?.setTargets([]);
  current.board?.setHint(null);
  const box = $('item-target');
  box.hidden = true;
  box.replaceChildren();
  if (current.st) { renderItems(current.st); setButtons(current.st); }
  if (say) toastAloud(t('itemCancelled'));
}
function chooseTarget(use) {
  cancelTarget(false);
  sendItem(use);
}

/** `useItem` (docs/PROTOCOL.md "Items"); a refusal is said in words of its code. */
async function sendItem(use) {
  const st = current.st;
  if (!canUseItem(st)) return;
  // no second use while this one is on its way
  for (const [seat, bar] of current.items.bars) bar.set(st.items.bars?.[seat] || [], false);
  if (use.item === 'sixDie' || use.item === 'booster' || use.item === 'remoteDie') { setRollable(false); showDie(0, { rolling: true }); }
  try {
    await net.request({ type: 'useItem', version: st.version, use });
  } catch (e) {
    if (e.code === 'stale_version' || e.code === 'closed') { net.request({ type: 'sync' }).catch(() => {}); return; }
    if (e.code === 'rate_limited') { retryLater(() => sendItem(use), st); return; }
    // refusals are `illegal_item` with the engine's reason (docs/PROTOCOL.md §9); game_over is plain
    const why = e.code === 'illegal_item' ? e.reason : e.code;
    const key = 'itemErr_' + why;
    const own = why ? t(key) : key;
    const msg = own !== key ? own : t('itemErr_other', { msg: e.message || String(e) });
    toast(msg);
    announce(msg);
    net.request({ type: 'sync' }).catch(() => {});
  }
}

function undo() {
  const st = current.st;
  if (!st) return;
  if (!st.canUndo || inRoom(st)) {
    // said, not silent: a key that does nothing leaves the player wondering whether it was heard
    const why = t(inRoom(st) ? 'undoRoom' : st.phase === 'over' ? 'undoOver' : 'undoNothing');
    toastAloud(why);
    return;
  }
  clearTimeout(current.stepTimer);
  act({ type: 'undo' });
}

/** 继续观看: animate exactly the fast-forwarded events from the board as it was. */
async function watch() {
  const ff = current.ff;
  const st = current.st;
  if (!ff || !current.board || !st) return;
  /** @type {HTMLDialogElement} */ ($('end')).close();
  current.watching = true;
  current.board.setLegal(-1, []);
  if (ff.from) current.board.setPieces(ff.from, seatsOf(st));
  current.board.setItems(ff.items);
  const said = [];
  current.queue = current.queue.then(async () => {
    // told turn by turn, as the game screen tells each state
    const tell = narrator({ events: ff.events }, st.rules, said);
    await current.board?.animate(withMoveLines(ff.events), (e) => {
      const wait = tell(e);
      if (e.kind === 'turnPassed' || e.kind === 'gameOver') announce(speech(said.splice(0)));
      return wait;
    });
    current.board?.setPieces(progressOf(st), seatsOf(st));
    current.board?.setItems(st.items ?? null);
    // the game is over: the die leaves the board, as at the end of a game played out
    placeDie(-1);
    current.watching = false;
    current.ff = null;
    openEnd(st, false);
  });
}

function openEnd(st, fromFastForward) {
  const dlg = /** @type {HTMLDialogElement} */ ($('end'));
  const room = inRoom(st);
  renderEnd($('end-in'), st, {
    fastForward: fromFastForward,
    onWatch: watch,
    onDownload: downloadRecord,
    onReplay: () => { dlg.close(); openViewerFor({ gameId: st.gameId, local: current.local?.gameId === st.gameId ? current.local : null }); },
    // 复盘: the replay at the position of a graded decision, the Master's best marked
    onReview: (d) => { dlg.close(); openViewerFor({ gameId: st.gameId, local: current.local?.gameId === st.gameId ? current.local : null, decision: d }); },
    // in a room: the host's 再来一局 opens the room's lobby again for everyone (`again`); 离开房间
    // goes to the set-up
    onAgain: !room ? () => { dlg.close(); ended.forget(); showView('setup'); renderSetup(); }
      : rooms.canAgain() ? () => rooms.again() : undefined,
    // (leaveRoom: a person who only closed the dialog's room kept the slot of the next game, and
    // a host who left this way kept the others from starting it)
    onLeave: room ? () => { dlg.close(); rooms.leave(); } : undefined,
    onClose: () => dlg.close(),
    // a room game: the people's nicknames, the points moved, the revealed seed, the verify page
    nameOf: room ? (seat) => rooms.nameOf(seat) : undefined,
    // elsewhere as the game screen says them (玩家 1, 玩家 2… when every seat is a person here)
    who: (seat) => controllerText(st.seats.find((/** @type {any} */ s) => s.seat === seat)),
    mine: mySeats(st),
    extra: room ? rooms.endExtra(st) : '',
  });
  if (room) rooms.fillPoints(st);
  if (!dlg.open) {
    dlg.showModal();
    // closed (关闭, Esc): focus returns to what had it, the page itself when it opened on its own
    dlg.addEventListener('close', () => setTimeout(rescueFocus, 0), { once: true });
  }
}

async function fetchRecord(gameId) {
  const r = await fetch(`/api/games/${gameId}/record`);
  if (r.status === 404) throw new Error(t('recordMissing'));
  if (!r.ok) throw new Error((await r.json().catch(() => null))?.message || `HTTP ${r.status}`);
  return r.json();
}
async function downloadRecord() {
  const id = current.st?.gameId;
  if (!id) return;
  try {
    const rec = await fetchRecord(id);
    const blob = new Blob([JSON.stringify(rec, null, 1)], { type: 'application/json' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `feixingqi-${id}.json`;
    document.body.appendChild(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 5000);
  } catch (e) { toast(t('error', { msg: e.message })); }
}
/** Copies `text` and says so; where the clipboard is refused, shows the text to copy by hand. @param {string} text */
async function copyText(text) {
  try { await navigator.clipboard.writeText(text); toast(t('copied')); } catch { toast(text); }
}
async function copyLink() {
  const id = current.st?.gameId;
  if (!id) return;
  copyText(`${location.origin}${location.pathname}#record=g:${id}`);
}

// ---------------------------------------------------------------------------------------------
// the replay viewer

const viewer = new Viewer({ $, getGeo, narrator, withMoveLines, logFrames, logLine, pieceLabel, itemName, drawItemPanel, showView, showTitle, toast, announce, speech, markBoard, progressOf, seatsOf });
async function openViewerFor(src) {
  clearTimeout(current.stepTimer);
  showView('viewer');
  try {
    const record = src.record ?? await fetchRecord(src.gameId);
    await viewer.load(record, src.local);
    if (src.decision) viewer.showDecision(src.decision);
  } catch (e) {
    // nothing to show: say why, and go back to where the player was
    toast(t('recordBad', { msg: e.message }));
    backToGameOrSetup();
  }
}
/** `#record=g:<gameId>` or `#record=<base64url of the record JSON>` */
function recordFromHash() {
  const m = /#record=([^&]+)/.exec(location.hash);
  if (!m) return null;
  const v = decodeURIComponent(m[1]);
  if (v.startsWith('g:')) return { gameId: v.slice(2) };
  try {
    const json = new TextDecoder().decode(Uint8Array.from(atob(v.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)));
    return { record: JSON.parse(json) };
  } catch { return { bad: true }; }
}
async function openFile(file) {
  try {
    const record = JSON.parse(await file.text());
    openViewerFor({ record });
  } catch (e) { toast(t('recordBad', { msg: e.message })); }
}

// ---------------------------------------------------------------------------------------------
// wiring

function backToGameOrSetup() {
  if (net.room && rooms.room?.status === 'lobby') { showView('room'); return; }
  if (current.st && current.st.phase !== 'over') { showView('game'); net.request({ type: 'sync' }).catch(() => {}); }
  // after 复盘 or the replay of a finished game: back to its end screen, for the next decision
  else if (current.st?.phase === 'over' && current.board) { showView('game'); openEnd(current.st, false); }
  else { showView('setup'); renderSetup(); }
}

function wire() {
  $('btn-new').addEventListener('click', () => {
    clearTimeout(current.stepTimer);
    ended.forget();
    // from a room, a new game leaves it (a seat in play goes into 托管, with a way back on the
    // set-up screen): staying in it, its next message pulled the player back to its screen
    if (net.room) { rooms.leaveAsking(); return; }
    showView('setup');
    renderSetup();
  });
  $('btn-open').addEventListener('click', () => /** @type {HTMLInputElement} */ ($('open-file')).click());
  $('open-file').addEventListener('change', (e) => { const f = /** @type {HTMLInputElement} */ (e.target).files?.[0]; if (f) openFile(f); });
  $('v-file').addEventListener('change', (e) => { const f = /** @type {HTMLInputElement} */ (e.target).files?.[0]; if (f) openFile(f); });
  $('btn-guides').addEventListener('click', () => { location.href = `guides/${getLang()}.html`; });
  $('btn-lang').addEventListener('click', () => {
    setLang(getLang() === 'zh' ? 'en' : 'zh');
    applyI18n();
    if (current.view === 'setup') renderSetup();
    // a banner in the old language goes at once rather than fade out
    clearBanner();
    // the game screen too when another is in front (the viewer, 复盘): it is shown again as it is
    if (current.st) {
      current.board?.svg.setAttribute('aria-label', t(current.st.rules));
      renderSide(current.st);
      // (a tumbling die is named when it lands, in the new language)
      labelDie();
      relogGame(current.st);
      if (current.targeting) renderTarget();
      if (current.hint?.st === current.st && !$('hint-panel').hidden) renderHint(true);
      if (current.st.phase === 'over' && /** @type {HTMLDialogElement} */ ($('end')).open) openEnd(current.st, !!current.ff);
    }
    viewer.relang();
    if (current.view === 'room' && rooms.room) rooms.renderLobby(rooms.room);
  });
  $('btn-mute').addEventListener('click', () => { setMuted(!isMuted()); applyI18n(); });
  $('btn-roll').addEventListener('click', roll);
  dieEl.addEventListener('click', roll);
  // a held Enter on the focused die or 掷骰子 rolls once (a button's Enter clicks again at each
  // repeat, and rolled the next roll too): Space is held back the same way (the keydown below)
  for (const b of [dieEl, $('btn-roll')]) b.addEventListener('keydown', (e) => { if (e.key === 'Enter' && e.repeat) e.preventDefault(); });
  const auto = /** @type {HTMLInputElement} */ ($('auto-roll'));
  auto.checked = current.autoRoll;
  // (after the state being shown has played out: its roll is seen before one is made for it)
  const autoAgain = () => { current.queue = current.queue.then(() => { if (current.st && current.view === 'game') scheduleAutoRoll(current.st); }).catch(console.error); };
  auto.addEventListener('change', () => {
    current.autoRoll = auto.checked;
    store.set('fxq.autoRoll', current.autoRoll);
    clearTimeout(current.autoTimer);
    if (current.autoRoll) autoAgain();
  });
  // a room's page back in view rolls as it would have (it does not for a page out of view)
  document.addEventListener('visibilitychange', () => { if (!document.hidden && current.autoRoll && current.st && inRoom(current.st)) autoAgain(); });
  $('btn-hint').addEventListener('click', hint);
  $('btn-undo').addEventListener('click', undo);
  $('btn-download').addEventListener('click', downloadRecord);
  $('btn-result').addEventListener('click', () => { if (current.st?.phase === 'over') openEnd(current.st, false); });
  $('btn-link').addEventListener('click', copyLink);
  $('btn-pause').addEventListener('click', () => {
    current.paused = !current.paused;
    store.set('fxq.paused', current.paused);
    showPause();
    if (current.st) renderSide(current.st);
    if (!current.paused && current.st && current.st.phase !== 'over') scheduleNext(current.st);
    else clearTimeout(current.stepTimer);
  });
  const sp = /** @type {HTMLSelectElement} */ ($('speed'));
  sp.value = current.speed === 'instant' ? 'fast' : current.speed;
  viewer.setSpeed(animFactor());
  sp.addEventListener('change', () => {
    current.speed = /** @type {any} */ (sp.value);
    store.set('fxq.speed', current.speed);
    current.board?.setSpeed(animFactor());
    viewer.setSpeed(animFactor());
  });
  document.addEventListener('pointerdown', () => { current.keyboard = false; }, true);
  // a click with no pointer behind it (detail 0) comes from a key or a screen reader's own
  // "activate", whose keys never reach the page in its browse mode
  document.addEventListener('click', (e) => { if (e.detail === 0) current.keyboard = true; }, true);
  document.addEventListener('keydown', (e) => {
    current.keyboard = true;
    if (/** @type {HTMLDialogElement} */ ($('end')).open) return;
    const tag = /** @type {HTMLElement} */ (e.target).tagName;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    // the viewer minds its own fields (Esc leaves it from its slider too)
    if (current.view === 'viewer') { viewer.key(e); return; }
    if (['INPUT', 'SELECT', 'TEXTAREA'].includes(tag)) return;
    if (current.view !== 'game') return;
    const st = current.st;
    // the targeting step of an item takes the keys first: Escape cancels, digits choose
    const tg = current.targeting;
    if (tg) {
      if (e.key === 'Escape') { e.preventDefault(); cancelTarget(true); return; }
      const d = /^[1-6]$/.test(e.key) ? Number(e.key) : 0;
      if (d && tg.item === 'remoteDie') { e.preventDefault(); chooseTarget({ item: 'remoteDie', die: d }); return; }
      if (d && tg.item === 'shield') {
        if (tg.targets.some(([, k]) => k === d - 1)) { e.preventDefault(); chooseTarget({ item: 'shield', piece: d - 1 }); }
        return;
      }
      if (['ArrowRight', 'ArrowDown', 'ArrowLeft', 'ArrowUp'].includes(e.key) && tg.item !== 'remoteDie') {
        e.preventDefault();
        current.board?.focusTarget(e.key === 'ArrowRight' || e.key === 'ArrowDown' ? 1 : -1);
        return;
      }
      if (d) return;
      // Space is no roll while a target is awaited (it dropped the item and rolled the die):
      // it presses a focused button (a face, 取消), else it says what is awaited
      if ((e.key === ' ' || e.code === 'Space') && tag !== 'BUTTON') { e.preventDefault(); toast(t('itemTargetFirst')); return; }
    }
    if (e.key === ' ' || e.code === 'Space') {
      // Space presses the focused button (the die and 掷骰子 roll as Space does anywhere)
      if (tag === 'BUTTON' && e.target !== $('btn-roll') && e.target !== dieEl) return;
      e.preventDefault();
      // a held Space rolls once, not again at each state it brings (a 6's second roll)
      if (!e.repeat) roll();
    } else if (/^[1-4]$/.test(e.key)) {
      pick(Number(e.key) - 1);
    } else if (e.key === 'h' || e.key === 'H') {
      hint();
    } else if (e.key === 'u' || e.key === 'U') {
      undo();
    } else if ((e.key === 'c' || e.key === 'C') && st && inRoom(st)) {
      const chat = /** @type {HTMLDetailsElement|null} */ (document.getElementById('chat-game'));
      if (chat) { chat.open = !chat.open; if (chat.open) /** @type {HTMLElement|null} */ (chat.querySelector('button'))?.focus(); }
    } else if (['ArrowRight', 'ArrowDown', 'ArrowLeft', 'ArrowUp'].includes(e.key) && st?.phase === 'move') {
      e.preventDefault();
      current.board?.focusLegal(e.key === 'ArrowRight' || e.key === 'ArrowDown' ? 1 : -1);
    }
  });
  window.addEventListener('hashchange', () => {
    const r = recordFromHash();
    if (r && !r.bad) openViewerFor(r);
    else if (roomFromHash()) rooms.boot().then((shown) => { if (!shown) { showView('setup'); renderSetup(); } });
  });
  viewer.onBack = backToGameOrSetup;
}

// the frames survive a reload of the page (sessionStorage), so the replay of this game stays whole
window.addEventListener('pagehide', () => {
  try { if (current.local) sessionStorage.setItem('fxq.frames', JSON.stringify(current.local)); } catch { /* too big: skip */ }
});
/** The frames this tab saw of its last game (a room's or a local one: `recordFrame` drops them
 * at the first state of another game). */
function restoreFrames() {
  try {
    const f = JSON.parse(sessionStorage.getItem('fxq.frames') || 'null');
    if (f) current.local = f;
  } catch { /* ignore */ }
}

async function boot() {
  setLang(getLang());
  applyI18n();
  wire();
  const rec = recordFromHash();
  if (rec) {
    if (rec.bad) { toast(t('recordBad', { msg: '#record' })); } else { openViewerFor(rec); return; }
  }
  // the frames this tab saw of its game, then a share link (#room=CODE) or the online room this
  // browser was in (§7.5), or the local game it was playing
  restoreFrames();
  if (await rooms.boot()) return;
  const saved = store.get('fxq.current', null) ?? ended.get();
  if (saved && saved.gameId && saved.token && !roomFromHash()) {
    // (its frames were taken up above; another game's are dropped by its first state)
    // draw the board at once from the cached geometry while the join is under way
    if (await resumeGame(saved)) return;
  }
  showView('setup');
  renderSetup();
}

/** For tests and the curious: read-only handles. */
/** @type {any} */ (window).__fxq = { current, net, t, rooms, sendItem, viewer, logFrames, openViewerFor, pieceLabel };

boot();
