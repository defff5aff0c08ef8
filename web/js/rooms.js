// Online rooms (联网房间, docs/PROTOCOL.md §7): the online tab of the set-up screen (nickname,
// create a room, join by code or share link), the lobby (code, slots, readiness, the commitment and
// this browser's client seed), the room parts of the game screen (names per seat, the turn timer,
// 托管, quick chat, spectators) and the profile / leaderboard page.

import { t, seatName, getLang, unitOf, LEVELS } from './i18n.js';
import { esc } from './html.js';
import { COLOURS, TEXT_COLOURS } from './board.js';

/** Turn timers offered (§7.2 `turnTimerMs`); 0 = no timer. */
const TIMERS = [15000, 30000, 60000, 0];
/** The fixed quick-chat phrases of §7.6: their texts are the i18n keys chat0 … chat15. */
export const PHRASES = 16;
/** §7.4: a client seed is 1–64 characters of A–Z a–z 0–9 _ - */
const SEED_RE = /^[A-Za-z0-9_-]{1,64}$/;
/** §7.8: room codes are 6 characters of this alphabet (case ignored). */
const CODE_RE = /^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{6}$/;

/**
 * What changed in a lobby between two `room` messages, in words for a screen reader: who sat
 * down or left, who is ready or no longer, and for the host that the game can start (the list
 * and the start button changed without a word). `canStart`: whether a room may start (the host's
 * start button's own test). @param {any} prev @param {any} r @param {boolean} iHost
 * @param {(room: any) => boolean} canStart
 */
function lobbyNews(prev, r, iHost, canStart) {
  const people = (/** @type {any} */ room) => new Map((room.slots || []).filter((/** @type {any} */ s) => s.kind === 'player').map((/** @type {any} */ s) => [s.playerId ?? s.nickname, s]));
  const before = people(prev), now = people(r);
  const news = [];
  for (const [id, s] of now) {
    const was = before.get(id);
    if (!was) news.push(t('lobbyJoined', { name: s.nickname }));
    else if (!was.ready && s.ready) news.push(t('lobbyReady', { name: s.nickname }));
    else if (was.ready && !s.ready) news.push(t('lobbyUnready', { name: s.nickname }));
  }
  for (const [id, s] of before) if (!now.has(id)) news.push(t('lobbyLeft', { name: s.nickname }));
  if (iHost && news.length && canStart(r) && !canStart(prev)) news.push(t('lobbyCanStart'));
  return news;
}

/** A fresh client seed from the browser's own random source: 16 bytes, base64url (22 characters). */
export function newClientSeed() {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return btoa(String.fromCharCode(...b)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** `#room=CODE` of a share link, upper-cased, or null. */
export function roomFromHash() {
  const m = /#room=([A-Za-z0-9]+)/.exec(location.hash);
  return m ? m[1].toUpperCase() : null;
}

export class Rooms {
  /**
   * @param {{$:(id:string)=>HTMLElement, store:any, net:any, current:any, toast:(m:string)=>void, copyText:(text:string)=>Promise<void>,
   *   announce:(m:string)=>void, chipSvg:(r:string,s:number,n?:number)=>string, showView:(v:string)=>void,
   *   renderSetup:()=>void, renderSide:(st:any)=>void, openViewerFor:(src:any)=>void,
   *   logLine:(text:string, imp?:boolean)=>void, rulesCard:(s:any)=>string, playersRadios:(s:any)=>string,
   *   optionsCard:(s:any, extra?:string, cls?:string)=>string, optionsFrom:(s:any)=>any,
   *   loadSetup:()=>any, seatsFor:(n:number)=>number[], radioHtml:(n:string,v:any,l:string,c:boolean)=>string,
   *   refreshEnd:()=>void}} d
   */
  constructor(d) {
    this.d = d;
    /** @type {any} the latest `room` message */
    this.room = null;
    /** @type {any} `roomJoined` of this connection */
    this.joined = null;
    /** @type {any} the account (`welcome.player`) */
    this.me = null;
    this.timerTick = 0;
    /** @type {{seat:number, end:number, total:number}|null} */
    this.timer = null;
    /** a room code a share link asked for, waiting for a nickname */
    this.pendingCode = '';
    this.chatBlockedUntil = 0;
    this.seedSent = '';
    /** @type {Set<string>} requests on their way (a second click waits for the first) */
    this.busy = new Set();
  }

  /**
   * Runs `fn` unless the same request is on its way: a double click on 创建房间 made two rooms,
   * on 开始对局 a second `start` that failed over the new board. @param {string} key
   * @param {() => Promise<void>} fn
   */
  async once(key, fn) {
    if (this.busy.has(key)) return;
    this.busy.add(key);
    try { await fn(); } finally { this.busy.delete(key); }
  }

  // -------------------------------------------------------------------------------------------
  // who am I in this room

  meId() { return this.me?.id ?? this.d.store.get('fxq.me', null); }
  /** My slot in the room (null for a spectator or before joining). */
  /** This account's slot in `r` (the latest `room` message by default). @param {any} [r] */
  mySlot(r = this.room) {
    const id = this.meId();
    return r?.slots.find((/** @type {any} */ s) => s.kind === 'player' && s.playerId === id) ?? null;
  }
  isSpectator() { return !!this.room && !this.mySlot(); }
  /** The seats this browser plays (its slot's dealt seat). @returns {number[]} */
  mySeats() {
    const s = this.mySlot();
    return s && s.seat !== null && s.seat !== undefined ? [s.seat] : [];
  }
  slotOfSeat(seat) { return this.room?.slots.find((s) => s.seat === seat) ?? null; }
  /** The name shown for a seat of the room game: the nickname, or the computer's level. */
  nameOf(seat) {
    const s = this.slotOfSeat(seat);
    if (!s) return null;
    if (s.kind === 'computer') return `${t('controllerComputer')} · ${t(s.level || 'normal')}`;
    return s.playerId === this.meId() ? `${s.nickname} (${t('you')})` : s.nickname;
  }
  /**
   * Seats in 托管: from the latest `room` message (sent whenever 托管 changes, e.g. on `resume`),
   * else from the state's room block.
   */
  autoSeats(st) {
    if (this.room?.slots) return this.room.slots.filter((s) => s.auto && s.seat !== null && s.seat !== undefined).map((s) => s.seat);
    return st?.room?.auto || [];
  }
  /** Whether the room game's state is the one on screen. */
  active() { return !!this.d.net.room; }

  // -------------------------------------------------------------------------------------------
  // account (§7.1)

  /** Logs this connection in (the stored token, or a new guest account), remembering the nickname. */
  async ensureLogin(nick) {
    const { net, store } = this.d;
    const name = String(nick ?? store.get('fxq.nick', '')).trim();
    if (!name) throw Object.assign(new Error(t('needNick')), { code: 'need_nick' });
    if (!net.account) {
      const token = store.get('fxq.account', '');
      net.account = token ? { token, nickname: name } : null;
    }
    if (net.loggedIn && net.account?.nickname === name && this.me) return this.me;
    let w;
    try {
      w = await net.login(name);
    } catch (e) {
      if (e.code !== 'bad_token') throw e;
      // the server no longer knows this account (a fresh data dir): start a new guest account
      net.account = null;
      store.del('fxq.account');
      w = await net.login(name);
    }
    if (w.token) store.set('fxq.account', w.token);
    store.set('fxq.me', w.player.id);
    store.set('fxq.nick', w.player.nickname);
    this.me = w.player;
    return w.player;
  }

  // -------------------------------------------------------------------------------------------
  // the online tab of the set-up screen

  loadOnline() {
    const o = this.d.store.get('fxq.online', {});
    return { slots: o.slots || {}, timer: TIMERS.includes(o.timer) ? o.timer : 15000 };
  }

  /** @param {HTMLFormElement} form */
  saveOnline(form) {
    const f = new FormData(form);
    const o = this.loadOnline();
    for (const slot of [1, 2, 3]) if (f.get(`slot-${slot}`)) o.slots[slot] = String(f.get(`slot-${slot}`));
    if (f.get('timer') !== null) o.timer = Number(f.get('timer'));
    this.d.store.set('fxq.online', o);
    const nick = String(f.get('nick') ?? '').trim();
    if (nick) this.d.store.set('fxq.nick', nick);
  }

  onlineForm(s) {
    const { store, radioHtml } = this.d;
    const o = this.loadOnline();
    const nick = store.get('fxq.nick', '');
    const saved = store.get('fxq.room', null);
    const slotRows = Array.from({ length: s.players }, (_, slot) => {
      if (slot === 0) return `<div class="seat-row"><span class="slot-n">${slot + 1}</span><span class="name">${t('slotN', { n: slot + 1 })}</span><span>${t('you')} · ${t('host')}</span></div>`;
      const v = o.slots[slot] || 'open';
      const opts = [`<option value="open" ${v === 'open' ? 'selected' : ''}>${t('slotOpen')}</option>`,
        ...LEVELS.map((l) => `<option value="${l}" ${v === l ? 'selected' : ''}>${t('controllerComputer')} · ${t(l)}</option>`)].join('');
      return `<div class="seat-row"><span class="slot-n">${slot + 1}</span><label class="name" for="slot-${slot}">${t('slotN', { n: slot + 1 })}</label><select id="slot-${slot}" name="slot-${slot}">${opts}</select></div>`;
    }).join('');
    const timerRow = `<div class="row"><span class="lab">${t('turnTimer')}</span><div class="seg" role="radiogroup" aria-label="${t('turnTimer')}">${TIMERS.map((ms) => radioHtml('timer', ms, ms ? t('seconds', { n: ms / 1000 }) : t('timerOff'), o.timer === ms)).join('')}</div></div>`;
    const pending = this.pendingCode;
    return `<form class="setup" id="online-form" autocomplete="off"><div class="setup-col">
      <div class="card o1 online-id"><h2>${t('nickname')}</h2>
        <div class="row-line"><label class="sr-only" for="nick">${t('nickname')}</label>
          <input id="nick" name="nick" maxlength="16" required value="${esc(nick)}" placeholder="${t('nickPlaceholder')}">
          <span class="muted" id="me-points">${this.me ? esc(t('pointsN', { n: this.me.points })) : ''}</span></div>
        <p class="muted">${t('nickNote')}</p>
        <div class="controls"><button type="button" id="btn-profile">${t('myRecord')}</button><button type="button" id="btn-leaderboard">${t('leaderboard')}</button></div>
      </div>
      <div class="card o2 ${pending ? 'attention' : ''}"><h2>${t('joinRoom')}</h2>
        ${pending ? `<p><strong>${esc(t('joinPending', { code: pending }))}</strong></p>` : ''}
        <div class="row-line"><label for="join-code">${t('roomCode')}</label>
          <input id="join-code" class="code-input" maxlength="6" value="${esc(pending)}" placeholder="K7P2QX" autocapitalize="characters" spellcheck="false">
          <button type="button" class="primary" id="btn-join">${t('join')}</button>
          <button type="button" id="btn-watch">${t('watchRoom')}</button></div>
        ${saved ? `<p><button type="button" id="btn-back-room">${esc(t('backToRoom', { code: saved.code }))}</button></p>` : ''}
      </div>
      <div class="card o4"><h2>${t('players')}</h2>
        ${this.d.playersRadios(s)}
        <div class="seats" style="margin-top:.6rem">${slotRows}</div>
        <p class="muted">${t('dealNote')}</p>
      </div>
      <div class="start-row o5"><button type="submit" class="primary" id="btn-create">${t('createRoom')}</button></div>
      <p class="muted o5" style="text-align:center">${t('roomDiceNote')}</p>
    </div><div class="setup-col">
      ${this.d.rulesCard(s).replace('card o1', 'card o3')}
      ${this.d.optionsCard(s, timerRow, 'o4')}
    </div></form>`;
  }

  wireOnline() {
    const { $ } = this.d;
    const code = () => /** @type {HTMLInputElement} */ ($('join-code')).value.trim().toUpperCase();
    const nick = () => /** @type {HTMLInputElement} */ ($('nick')).value.trim();
    const withNick = (fn) => async () => {
      if (!nick()) { this.d.toast(t('needNick')); $('nick').focus(); return; }
      this.d.store.set('fxq.nick', nick());
      try { await fn(); } catch (e) { this.fail(e); }
    };
    $('btn-join').addEventListener('click', withNick(() => this.join(code(), false)));
    $('btn-watch').addEventListener('click', withNick(() => this.join(code(), true)));
    $('join-code').addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); $('btn-join').click(); } });
    $('join-code').addEventListener('input', (e) => {
      const i = /** @type {HTMLInputElement} */ (e.target);
      i.value = i.value.toUpperCase().replace(/[^A-Z0-9]/g, '');
    });
    document.getElementById('btn-back-room')?.addEventListener('click', withNick(() => {
      const saved = this.d.store.get('fxq.room', null);
      return this.join(saved.code, saved.spectate);
    }));
    $('btn-profile').addEventListener('click', () => this.openProfile(null));
    $('btn-leaderboard').addEventListener('click', () => this.openProfile(null, true));
    if (this.pendingCode) setTimeout(() => (nick() ? $('btn-join') : $('nick')).focus(), 0);
  }

  fail(e) {
    const code = e?.code;
    const key = 'err_' + code;
    const own = code ? t(key) : key;
    this.d.toast(own !== key ? own : t('error', { msg: e?.message || String(e) }));
  }

  /** `createRoom` (§7.2) from the online form. */
  createRoom() { return this.once('create', () => this.createRoomNow()); }

  async createRoomNow() {
    const { store, net } = this.d;
    try {
      await this.ensureLogin(store.get('fxq.nick', ''));
    } catch (e) { this.fail(e); document.getElementById('nick')?.focus(); return; }
    const s = this.d.loadSetup();
    const o = this.loadOnline();
    const slots = Array.from({ length: s.players }, (_, slot) => {
      if (slot === 0) return { kind: 'player' };
      const v = o.slots[slot] || 'open';
      return v === 'open' ? { kind: 'open' } : { kind: 'computer', level: v };
    });
    const clientSeed = newClientSeed();
    try {
      net.game = null;
      const j = await net.request({
        type: 'createRoom', rules: s.rules, players: s.players, options: this.d.optionsFrom(s), slots,
        turnTimerMs: o.timer || null, clientSeed,
      });
      store.set(`fxq.seed.${j.code}`, clientSeed);
      this.entered(j);
    } catch (e) { this.fail(e); }
  }

  /** `joinRoom` (§7.2): to play (first open slot, or my own slot again) or to watch. */
  async join(code, spectate) {
    const { net } = this.d;
    code = String(code || '').trim().toUpperCase();
    if (!CODE_RE.test(code)) { this.d.toast(t('badCode')); document.getElementById('join-code')?.focus(); return; }
    await this.ensureLogin(this.d.store.get('fxq.nick', ''));
    net.game = null;
    const j = await net.request({ type: 'joinRoom', code, spectate: !!spectate });
    this.entered(j);
  }

  /** After `roomJoined`: remember the room for reloads and reconnects (§7.5). */
  entered(j) {
    this.joined = j;
    this.pendingCode = '';
    this.d.net.room = { code: j.code, spectate: !!j.spectator };
    this.d.store.set('fxq.room', this.d.net.room);
    this.d.current.room = this.room;
    if (location.hash.startsWith('#room=')) history.replaceState(null, '', location.pathname + location.search);
  }

  /**
   * Whether this person may open the lobby again after the end (`again`, §7.2): the host, or
   * anyone seated while the host has gone; by `r`, the latest `room` message by default.
   * @param {any} [r]
   */
  canAgain(r = this.room) {
    const mine = this.mySlot(r);
    if (!r || r.status !== 'over' || !mine) return false;
    return r.host === mine.slot || !r.slots?.[r.host]?.connected;
  }

  /** `again`: the room's next game with the same people (everyone is taken to the lobby). */
  again() {
    return this.once('again', async () => {
      try { await this.d.net.request({ type: 'again' }, { settle: 2000 }); } catch (e) { this.fail(e); }
    });
  }

  /** Leaves, asking first when that hands a seat in play to 托管 (the button, or 新游戏). */
  leaveAsking() {
    if (this.room?.status === 'playing' && this.mySlot() && !confirm(t('leaveConfirm'))) return;
    this.leave();
  }

  /** Leaves the room (lobby: frees the slot; playing: the seat goes into 托管) and goes back. */
  async leave() {
    const { net, store } = this.d;
    // a seat left during the game stays this account's (in 托管): keep the way back to it
    const keep = this.room?.status === 'playing' && !!this.mySlot();
    try { await net.request({ type: 'leaveRoom' }, { settle: 1500 }); } catch { /* gone already */ }
    this.forget(keep);
    store.set('fxq.mode', 'online');
    this.d.showView('setup');
    this.d.renderSetup();
  }

  /**
   * Detaches this browser from the room (it closed, is over, or was left); `keepSaved` keeps the
   * code for the "back to room" button (a seat left in 托管).
   */
  forget(keepSaved = false) {
    const { net, store, current } = this.d;
    net.room = null;
    if (keepSaved) store.set('fxq.room', { code: this.room?.code, spectate: false }); else store.del('fxq.room');
    this.room = null;
    // a slot taken again later starts with no seed (the server's is empty): send this one again
    this.seedSent = '';
    current.room = null;
    this.stopTimer();
  }

  /** At boot: a share link, else the room this browser was in. Returns whether a room is shown. */
  async boot() {
    const { store } = this.d;
    const code = roomFromHash();
    if (code) {
      store.set('fxq.mode', 'online');
      if (store.get('fxq.nick', '')) {
        try { await this.join(code, false); return true; } catch (e) {
          if (e.code === 'room_full') { try { await this.join(code, true); return true; } catch (e2) { this.fail(e2); } } else this.fail(e);
        }
      }
      this.pendingCode = code;
      return false;
    }
    const saved = store.get('fxq.room', null);
    if (saved?.code && store.get('fxq.nick', '')) {
      try { await this.join(saved.code, saved.spectate); return true; } catch (e) {
        this.forget();
      }
    }
    return false;
  }

  // -------------------------------------------------------------------------------------------
  // `room` messages (§7.3)

  onRoom(r) {
    const { current, showView } = this.d;
    if (!this.active()) return;
    const prev = this.room;
    this.room = r;
    current.room = r;
    if (r.status === 'closed') {
      this.d.toast(t('roomClosed'));
      this.forget();
      if (current.view === 'room' || current.view === 'game') { showView('setup'); this.d.renderSetup(); }
      return;
    }
    if (r.status === 'lobby') {
      if (prev?.status === 'over') {
        // 再来一局 in the room (`again`): the end screen gives way to the lobby
        const end = /** @type {HTMLDialogElement|null} */ (document.getElementById('end'));
        if (end?.open) end.close();
        // a new game, a new client seed (sent by the lobby, as a newly seated player's is)
        this.d.store.set(`fxq.seed.${r.code}`, newClientSeed());
        this.seedSent = '';
        this.d.announce(t('roomAgain'));
      }
      if (current.view !== 'viewer' && current.view !== 'profile') showView('room');
      this.renderLobby(prev);
      return;
    }
    // playing or over: the game screen, drawn by the `state` messages
    if (current.view === 'room' || current.view === 'setup') {
      if (current.view === 'room') this.d.announce(t('roomStarted'));
      current.st = null;
      current.board = null;
      showView('game');
    }
    if (current.view === 'game' && current.st?.room) this.d.renderSide(current.st);
    // the seed is revealed by the room message of the end, which may come after the last state
    // and the host leaving lets the others 再来一局: the end screen gets the button
    const could = this.canAgain(prev);
    if (r.status === 'over' && (prev?.seed !== r.seed || could !== this.canAgain())) this.d.refreshEnd();
  }

  // -------------------------------------------------------------------------------------------
  // the lobby

  optionsSummary(r) {
    const o = r.options || {};
    const parts = [t(r.rules), t('nPlayers', { n: r.players }), t('piecesN', { n: o.pieces ?? 4, unit: unitOf(r.rules) })];
    if (r.rules === 'feixingqi') {
      parts.push(`${t('takeoff')} ${(o.takeoff || [6]).join('/')}`);
      if (o.tripleSixPenalty) parts.push(t('tripleSix'));
      if (o.sixStopsOnStack) parts.push(t('sixStops'));
      if (o.items) parts.push(t('itemMode'));
    }
    if (o.team) parts.push(t('team'));
    parts.push(`${t('firstPlayer')}: ${o.firstPlayer === 'roll' ? t('firstRoll') : t('firstSeat0')}`);
    const sc = o.scoring;
    parts.push(`${t('scoring')}: ${sc && typeof sc === 'object' ? `${t('scoreRoom')} ${sc.room}` : sc === 'perPiece50' ? t('scorePer', { unit: unitOf(r.rules) }) : t('scoreNone')}`);
    parts.push(`${t('turnTimer')}: ${r.turnTimerMs ? t('seconds', { n: Math.round(r.turnTimerMs / 1000) }) : t('timerOff')}`);
    return parts.join(' · ');
  }

  /** Why the host cannot start yet ('' when everything is ready; the host readies on start). */
  startBlocker(r) {
    if (r.slots.some((s) => s.kind === 'open')) return t('waitOpen');
    const waiting = r.slots.filter((s) => s.kind === 'player' && s.slot !== r.host && !s.ready).map((s) => s.nickname);
    return waiting.length ? t('waitReady', { names: waiting.join('、') }) : '';
  }

  shareUrl(code) { return `${location.origin}${location.pathname}#room=${code}`; }

  renderLobby(prev) {
    const { $, store } = this.d;
    const r = this.room;
    const host = $('view-room');
    const focused = document.activeElement?.id;
    const seedInput = /** @type {HTMLInputElement|null} */ (document.getElementById('my-seed'));
    const editingSeed = seedInput && document.activeElement === seedInput ? seedInput.value : null;
    const mine = this.mySlot();
    const iHost = !!mine && mine.slot === r.host;
    const mySeed = store.get(`fxq.seed.${r.code}`, '') || newClientSeed();
    if (mine && !store.get(`fxq.seed.${r.code}`, '')) store.set(`fxq.seed.${r.code}`, mySeed);
    // a newly seated player's seed is the one made in this browser (sent once, before ready)
    if (mine && !mine.ready && mine.clientSeed !== mySeed && this.seedSent !== `${r.code}:${mySeed}`) {
      this.seedSent = `${r.code}:${mySeed}`;
      this.sendReady(false, mySeed);
    }
    const slotRow = (s) => {
      const isMe = mine && s.slot === mine.slot;
      let who = '', state = '', ctl = '';
      if (s.kind === 'player') {
        // a face for the seat: the nickname's first letter
        who = `<span class="avatar" aria-hidden="true">${esc([...String(s.nickname || '?')][0] || '?')}<span class="dot ${s.connected ? 'on' : 'off'}" title="${s.connected ? t('online') : t('offlineDot')}"></span></span>
          <span class="sr-only">${s.connected ? t('online') : t('offlineDot')}</span><strong>${esc(s.nickname)}</strong>${s.slot === r.host ? ` <span class="tag">${t('host')}</span>` : ''}${isMe ? ` <span class="tag me">${t('you')}</span>` : ''}`;
        // the host gets ready by starting
        state = s.ready ? `<span class="ready yes">✓ ${t('ready')}</span>` : s.slot === r.host ? '' : `<span class="ready no">${t('notReady')}</span>`;
      } else if (iHost) {
        const v = s.kind === 'open' ? 'open' : s.level || 'normal';
        ctl = `<label class="sr-only" for="slot-kind-${s.slot}">${t('slotN', { n: s.slot + 1 })}</label><select id="slot-kind-${s.slot}" data-slot="${s.slot}">
          <option value="open" ${v === 'open' ? 'selected' : ''}>${t('slotOpen')}</option>
          ${LEVELS.map((l) => `<option value="${l}" ${v === l ? 'selected' : ''}>${t('controllerComputer')} · ${t(l)}</option>`).join('')}</select>`;
      } else {
        who = s.kind === 'open' ? `<span class="muted">${t('slotWaiting')}</span>` : `${t('controllerComputer')} · ${t(s.level || 'normal')}`;
      }
      return `<li class="slot ${s.kind}" data-slot="${s.slot}"><span class="slot-n" aria-label="${t('slotN', { n: s.slot + 1 })}">${s.slot + 1}</span>
        <span class="who">${who}${ctl}</span><span class="state">${state}</span><span class="bubble-anchor"></span></li>`;
    };
    const blocker = this.startBlocker(r);
    const url = this.shareUrl(r.code);
    // the dice's figures, folded: the commitment and every seat's client seed (opened, it stays
    // open as the lobby is written again)
    const verifyOpen = /** @type {HTMLDetailsElement|null} */ (document.getElementById('dice-verify'))?.open ?? false;
    const seeds = r.slots.filter((s) => s.kind === 'player' && s.clientSeed)
      .map((s) => `<li><span>${t('slotN', { n: s.slot + 1 })} · ${esc(s.nickname)}</span> <code class="seed" title="${t('clientSeed')}">${esc(s.clientSeed)}</code></li>`).join('');
    // the lobby's own actions (准备, 开始对局) come right under the code: last, a phone's guest
    // found 准备 some 1,000 px down, under the dice card, and the host 开始对局 under the fold
    host.innerHTML = `<div class="lobby">
      <div class="card code-card">
        <h2>${t('roomCode')}</h2>
        <div class="room-code" id="room-code" aria-hidden="true">${r.code}</div><p class="sr-only">${r.code.split('').join(' ')}</p>
        <div class="controls"><button type="button" class="primary invite" id="btn-copy-link" title="${t('copyShare')}"><svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round"><path d="M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1"/><path d="M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1"/></svg> ${t('invite')}</button><button type="button" id="btn-copy-code">${t('copyCode')}</button></div>
        <p class="invite-note">${t('inviteNote')}</p>
        <label class="muted share"><span>${t('shareLink')}</span> <input id="share-link" readonly value="${esc(url)}"></label>
        <p class="muted">${esc(this.optionsSummary(r))}</p>
        <p class="muted">${t('spectatorsN', { n: r.spectators ?? 0 })}</p>
      </div>
      <div class="card lobby-actions">
        ${mine && !iHost ? `<button type="button" id="btn-ready" class="${mine.ready ? '' : 'primary'}">${mine.ready ? t('unready') : t('readyBtn')}</button>` : mine ? '' : `<p><strong>${t('watching')}</strong></p>
          <button type="button" id="btn-sit" class="primary" ${r.slots.some((s) => s.kind === 'open') ? '' : 'disabled'}>${t('takeSeat')}</button>`}
        ${iHost ? `<button type="button" id="btn-room-start" class="primary" ${blocker ? 'disabled' : ''} aria-describedby="start-why">${t('startRoom')}</button>
          <span class="muted" id="start-why">${esc(blocker)}</span>` : mine ? `<span class="muted">${t('waitHost')}</span>` : ''}
        <button type="button" id="btn-leave-room">${t('leaveRoom')}</button>
      </div>
      <div class="card">
        <h2>${t('slots')}</h2>
        <ol class="slots" id="slots">${r.slots.map(slotRow).join('')}</ol>
        <p class="muted">${t('dealNote')}</p>
      </div>
      <details class="card dice-verify" id="dice-verify" ${verifyOpen ? 'open' : ''}>
        <summary id="dice-verify-summary">${t('diceCheck')}</summary>
        <p class="muted">${t('commitmentNote')}</p>
        <code class="hash" id="room-commitment">${esc(r.commitment)}</code>
        ${mine ? `<div class="row-line"><label for="my-seed">${t('yourSeed')}</label>
          <input id="my-seed" value="${esc(editingSeed ?? (mine.clientSeed || mySeed))}" maxlength="64" pattern="[A-Za-z0-9_\\-]{1,64}" spellcheck="false">
          <button type="button" id="btn-new-seed">${t('newSeed')}</button></div>
          <p class="muted">${t('seedHelp')}</p>` : ''}
        ${seeds ? `<h3>${t('seatSeeds')}</h3><ul class="seat-seeds" id="seat-seeds">${seeds}</ul>` : ''}
      </details>
      ${mine ? this.chatPanel('lobby') : ''}
    </div>`;
    this.wireLobby();
    if (focused) document.getElementById(focused)?.focus();
    if (!prev || prev.code !== r.code) this.d.announce(t('inRoom', { code: r.code }));
    else {
      const said = lobbyNews(prev, r, iHost, (room) => !this.startBlocker(room));
      if (said.length) this.d.announce(said.join(getLang() === 'zh' ? '。' : '. '));
    }
  }

  async sendReady(ready, seed) {
    try { await this.d.net.request({ type: 'ready', ready, clientSeed: seed }, { settle: 2000 }); } catch (e) { this.fail(e); }
  }

  wireLobby() {
    const { $, store } = this.d;
    const r = this.room;
    const copy = (/** @type {string} */ text) => this.d.copyText(text);
    $('btn-copy-code').addEventListener('click', () => copy(r.code));
    $('btn-copy-link').addEventListener('click', () => copy(this.shareUrl(r.code)));
    $('share-link').addEventListener('focus', (e) => /** @type {HTMLInputElement} */ (e.target).select());
    $('btn-leave-room').addEventListener('click', () => this.leave());
    // a spectator of the lobby takes a slot that is open (one freed, or the next game's)
    document.getElementById('btn-sit')?.addEventListener('click', () => this.once('sit', async () => {
      try { await this.join(r.code, false); } catch (e) { this.fail(e); }
    }));
    const seed = /** @type {HTMLInputElement|null} */ (document.getElementById('my-seed'));
    const readSeed = () => {
      const v = seed?.value.trim() || '';
      if (!SEED_RE.test(v)) {
        this.d.toast(t('badSeed'));
        // (folded under 骰子验证: opened, so the field can be seen and focused)
        const box = /** @type {HTMLDetailsElement|null} */ (document.getElementById('dice-verify'));
        if (box) box.open = true;
        seed?.focus();
        return null;
      }
      store.set(`fxq.seed.${r.code}`, v);
      return v;
    };
    seed?.addEventListener('change', () => { const v = readSeed(); if (v) this.sendReady(!!this.mySlot()?.ready, v); });
    document.getElementById('btn-new-seed')?.addEventListener('click', () => {
      if (!seed) return;
      seed.value = newClientSeed();
      const v = readSeed();
      if (v) this.sendReady(!!this.mySlot()?.ready, v);
    });
    document.getElementById('btn-ready')?.addEventListener('click', () => {
      const v = readSeed();
      if (v) this.sendReady(!this.mySlot()?.ready, v);
    });
    document.getElementById('btn-room-start')?.addEventListener('click', () => this.once('start', async () => {
      const v = readSeed();
      if (!v) return;
      try {
        if (!this.mySlot()?.ready || this.mySlot()?.clientSeed !== v) await this.d.net.request({ type: 'ready', ready: true, clientSeed: v }, { settle: 2000 });
        await this.d.net.request({ type: 'start' }, { settle: 3000 });
      } catch (e) { this.fail(e); }
    }));
    for (const sel of document.querySelectorAll('#slots select')) {
      sel.addEventListener('change', async () => {
        const v = /** @type {HTMLSelectElement} */ (sel).value;
        const slot = Number(/** @type {HTMLElement} */ (sel).dataset.slot);
        const msg = v === 'open' ? { type: 'setSlot', slot, kind: 'open' } : { type: 'setSlot', slot, kind: 'computer', level: v };
        try { await this.d.net.request(msg, { settle: 2000 }); } catch (e) { this.fail(e); }
      });
    }
    this.wireChat('lobby');
  }

  // -------------------------------------------------------------------------------------------
  // quick chat (§7.6)

  /** A quick-chat phrase in this room's game's words: a Ludo piece is 吃, a 飞行棋 plane 撞. */
  phrase(i) {
    const own = this.room?.rules === 'ludo' ? t(`chat${i}Ludo`) : '';
    return own && own !== `chat${i}Ludo` ? own : t('chat' + i);
  }

  /** The quick chat, closed again by Esc (focus back on its summary). @param {string} where */
  chatPanel(where) {
    const buttons = Array.from({ length: PHRASES }, (_, i) => `<button type="button" data-phrase="${i}">${esc(this.phrase(i))}</button>`).join('');
    return `<details class="chat card" id="chat-${where}"><summary id="chat-${where}-summary">${t('quickChat')}</summary><div class="phrases" role="group" aria-label="${t('quickChat')}">${buttons}</div></details>`;
  }

  wireChat(where) {
    const box = /** @type {HTMLDetailsElement|null} */ (document.getElementById(`chat-${where}`));
    if (!box) return;
    box.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape' || !box.open) return;
      e.preventDefault();
      e.stopPropagation();
      box.open = false;
      /** @type {HTMLElement|null} */ (box.querySelector('summary'))?.focus();
    });
    box.querySelectorAll('button[data-phrase]').forEach((b) => b.addEventListener('click', () => this.say(Number(/** @type {HTMLElement} */ (b).dataset.phrase))));
  }

  async say(phrase) {
    if (Date.now() < this.chatBlockedUntil) { this.d.toast(t('err_rate_limited')); return; }
    this.chatBlockedUntil = Date.now() + 2000;
    try { await this.d.net.request({ type: 'chat', phrase }, { settle: 1500 }); } catch (e) { this.fail(e); }
  }

  /** A chat message's log line, in the language of the moment. @param {{who: string, phrase: number}} c */
  chatLine(c) { return `${c.who}：${this.phrase(c.phrase)}`; }

  onChat(c) {
    if (!this.active() || !(c.phrase >= 0 && c.phrase < PHRASES)) return;
    const text = this.phrase(c.phrase);
    const who = c.nickname || (c.seat !== null && c.seat !== undefined ? this.nameOf(c.seat) : '') || '';
    const line = this.chatLine({ who, phrase: c.phrase });
    const { current } = this.d;
    this.d.announce(line);
    if (current.view === 'game' && c.seat !== null && c.seat !== undefined && current.board) {
      this.d.logLine(line);
      // kept with the game's frames, so a log rebuilt (a reload, a change of language) has it
      current.local?.chats?.push({ version: current.st?.version ?? 0, who, phrase: c.phrase });
      this.bubbleOnBoard(c.seat, text);
    } else {
      const anchor = document.querySelector(`#slots li[data-slot="${c.slot}"] .bubble-anchor`);
      if (anchor) this.bubble(/** @type {HTMLElement} */ (anchor), text, 'inline');
    }
  }

  /** Where a seat's hangar / yard is on the board, in percent of the board box. */
  basePoint(seat) {
    const geo = this.d.current.board?.geo;
    if (!geo) return null;
    const [r, c] = geo.bases[seat];
    const b = geo.baseSize;
    const n = geo.size + 0.3;
    return { x: ((c + b / 2 + 0.15) / n) * 100, y: ((r + b / 2 + 0.15) / n) * 100, top: r < geo.size / 2, left: c < geo.size / 2, r, c, b, n };
  }

  overlay() {
    const board = this.d.$('board');
    let o = /** @type {HTMLElement|null} */ (board.querySelector('.room-overlay'));
    if (!o) { o = document.createElement('div'); o.className = 'room-overlay'; o.setAttribute('aria-hidden', 'true'); board.appendChild(o); }
    return o;
  }

  bubbleOnBoard(seat, text) {
    const p = this.basePoint(seat);
    if (!p) return;
    const b = document.createElement('div');
    b.className = 'chat-bubble';
    b.style.left = `${p.x}%`;
    b.style.top = `${p.y}%`;
    this.bubble(b, text, 'board');
  }

  /** @param {HTMLElement} el @param {string} text @param {'board'|'inline'} kind */
  bubble(el, text, kind) {
    const b = kind === 'board' ? el : document.createElement('span');
    if (kind === 'inline') { b.className = 'chat-bubble inline'; el.replaceChildren(b); } else this.overlay().appendChild(b);
    b.textContent = text;
    requestAnimationFrame(() => b.classList.add('show'));
    setTimeout(() => { b.classList.remove('show'); setTimeout(() => b.remove(), 400); }, 3200);
  }

  // -------------------------------------------------------------------------------------------
  // the game screen in a room

  /** Called by renderSide for a room game: names, the timer, 托管, spectator mode, the room bar. */
  renderGame(st) {
    const { $, current } = this.d;
    const room = st.room || {};
    const auto = this.autoSeats(st);
    const mine = this.mySeats();
    const meAuto = mine.some((s) => auto.includes(s));
    const spectator = this.isSpectator();
    document.body.classList.add('in-room');
    document.body.classList.toggle('spectating', spectator);
    const bar = $('roombar');
    bar.hidden = false;
    const over = st.phase === 'over';
    bar.innerHTML = `<div class="room-status">
        <span class="muted">${t('roomCode')} <strong class="code-small">${esc(room.code || this.room?.code || '')}</strong></span>
        ${spectator ? `<span class="tag">${t('watching')}</span>` : ''}
        <span class="muted">${t('spectatorsN', { n: this.room?.spectators ?? 0 })}</span>
      </div>
      ${meAuto && !over ? `<div class="auto-note"><span class="tag auto">${t('auto')}</span> ${t('autoNote')} <button type="button" class="primary" id="btn-take-back">${t('takeBack')}</button></div>` : ''}
      ${!spectator && !over ? this.chatPanel('game') : ''}
      <div class="controls">${over ? '' : `<button type="button" id="btn-room-leave">${spectator ? t('stopWatching') : t('leaveAuto')}</button>`}</div>`;
    document.getElementById('btn-take-back')?.addEventListener('click', async () => {
      try { await this.d.net.request({ type: 'resume' }, { settle: 2000 }); } catch (e) { this.fail(e); }
    });
    document.getElementById('btn-room-leave')?.addEventListener('click', () => this.leaveAsking());
    this.wireChat('game');
    // the turn timer (§7.5): counted down here from what the state said
    const tm = room.timer;
    if (tm && !over) this.timer = { seat: tm.seat, end: performance.now() + tm.remainingMs, total: tm.totalMs };
    else this.timer = null;
    this.renderTags(st);
    this.tick();
    clearInterval(this.timerTick);
    if (this.timer) this.timerTick = window.setInterval(() => this.tick(), 250);
    void current;
  }

  stopTimer() {
    clearInterval(this.timerTick);
    this.timer = null;
    document.body.classList.remove('in-room', 'spectating');
    const bar = document.getElementById('roombar');
    if (bar) { bar.hidden = true; bar.innerHTML = ''; }
    const tt = document.getElementById('turn-timer');
    if (tt) tt.hidden = true;
    document.querySelector('#board .room-overlay')?.remove();
  }

  tick() {
    const el = this.d.$('turn-timer');
    const tm = this.timer;
    if (!tm) { el.hidden = true; return; }
    const left = Math.max(0, tm.end - performance.now());
    const secs = Math.ceil(left / 1000);
    el.hidden = false;
    el.style.setProperty('--left', String(tm.total ? left / tm.total : 0));
    el.classList.toggle('low', left < 5000);
    // said once, five seconds before 托管 plays one's own turn (the ring and its colour are seen only)
    const key = `${tm.seat}:${Math.round(tm.end)}`;
    if (left < 5000 && left > 0 && this.warned !== key && this.mySeats().includes(tm.seat)) {
      this.warned = key;
      this.d.announce(t('timeLeftWarn', { n: secs }));
    }
    el.querySelector('b').textContent = String(secs);
    el.setAttribute('aria-label', t('timeLeft', { n: secs }));
    const tag = document.querySelector(`#board .seat-tag[data-seat="${tm.seat}"] .tmr`);
    if (tag) tag.textContent = ` ${secs}${t('secondsShort')}`;
    if (left <= 0) clearInterval(this.timerTick);
  }

  /** Name tags on the board at each seat's hangar / yard, with the 托管 badge. */
  renderTags(st) {
    const o = this.overlay();
    o.querySelectorAll('.seat-tag').forEach((e) => e.remove());
    const auto = this.autoSeats(st);
    for (const s of st.seats) {
      const p = this.basePoint(s.seat);
      const name = this.nameOf(s.seat);
      if (!p || !name) continue;
      const tag = document.createElement('div');
      tag.className = 'seat-tag';
      tag.dataset.seat = String(s.seat);
      // in the hangar's middle, between its two rows of planes and no wider than the hangar: at
      // its top or bottom edge, centred and up to 30% of the board wide, it covered three of the
      // four own planes and stuck out of a phone's screen
      tag.style.left = `${p.x}%`;
      tag.style.top = `${p.y}%`;
      tag.style.maxWidth = `${((p.b - 0.2) / p.n) * 100}%`;
      tag.style.setProperty('--c', COLOURS[st.rules][s.seat]);
      // a long name gives way (ellipsis); the 托管 badge and the countdown show while the tag does
      tag.innerHTML = `<span class="nm">${esc(name)}</span>${auto.includes(s.seat) ? `<span class="tag auto">${t('auto')}</span>` : ''}<span class="tmr"></span>`;
      if (st.phase !== 'over' && st.turn === s.seat) tag.classList.add('turn');
      o.appendChild(tag);
    }
  }

  /** The words under a seat in the players list / turn bar of a room game. */
  seatLabel(st, seat) {
    const name = this.nameOf(seat) || '';
    return this.autoSeats(st).includes(seat) && st.phase !== 'over' ? `${name} · ${t('auto')}` : name;
  }

  // -------------------------------------------------------------------------------------------
  // the end of a room game

  /** Extra end-screen parts: points moved, the revealed seed, the verify page; filled in async. */
  endExtra(st) {
    const r = this.room;
    const seed = r?.seed;
    const clientSeeds = (r?.slots || []).filter((s) => s.kind === 'player' && s.clientSeed).map((s) => `${esc(s.nickname)}: <code>${esc(s.clientSeed)}</code>`);
    // a room without scoring moves no points: nothing to list
    const scored = !!r?.options?.scoring && r.options.scoring !== 'none';
    return `<section class="room-end">
      ${scored ? `<h3>${t('pointsMoved')}</h3><ul id="end-points"><li class="muted">${t('loading')}</li></ul>` : ''}
      <h3>${t('diceCheck')}</h3>
      <p class="muted">${t('commitmentWas')} <code class="hash">${esc(st.dice?.commitment || r?.commitment || '')}</code></p>
      <p class="muted">${seed ? `${t('seedIs')} <code class="hash" id="end-seed">${esc(seed)}</code>` : t('seedSoon')}</p>
      ${clientSeeds.length ? `<p class="muted">${t('clientSeeds')}: ${clientSeeds.join(' · ')}</p>` : ''}
    </section>`;
  }

  /** Reads each person's profile to show the points this game moved (§7.7 `recent[].delta`). */
  async fillPoints(st) {
    const list = document.getElementById('end-points');
    if (!list) return;
    const people = (this.room?.slots || []).filter((s) => s.kind === 'player' && s.playerId);
    const rows = await Promise.all(people.map(async (s) => {
      try {
        const p = await this.fetchJson(`/api/players/${encodeURIComponent(s.playerId)}`);
        const g = (p.recent || []).find((x) => x.gameId === st.gameId);
        const d = g?.delta ?? 0;
        // the online tab shows this account's points: keep them current
        if (this.me && s.playerId === this.me.id) this.me.points = p.points;
        return `<li><span style="color:${s.seat !== null && s.seat !== undefined ? TEXT_COLOURS[st.rules][s.seat] : 'inherit'};font-weight:700">${esc(s.nickname)}</span>
          ${g?.place ? t('place', { n: g.place }) + ' · ' : ''}<strong>${d > 0 ? '+' : ''}${d}</strong> → ${esc(t('pointsN', { n: p.points }))}</li>`;
      } catch { return `<li>${esc(s.nickname)}</li>`; }
    }));
    if (document.getElementById('end-points') === list) list.innerHTML = rows.join('') || `<li class="muted">—</li>`;
  }

  async fetchJson(url) {
    const r = await fetch(url);
    const j = await r.json().catch(() => ({}));
    if (!r.ok) throw Object.assign(new Error(j.message || `HTTP ${r.status}`), { code: j.code });
    return j;
  }

  // -------------------------------------------------------------------------------------------
  // profile and leaderboard (§7.7)

  /** @param {string|null} id a player id, or null for this browser's account @param {boolean} [toBoard] */
  async openProfile(id, toBoard = false) {
    const { $, showView } = this.d;
    const from = this.d.current.view;
    showView('profile');
    const host = $('view-profile');
    host.innerHTML = `<div class="profile"><div class="controls"><button type="button" id="btn-profile-back">← ${t('back')}</button></div>
      <div class="card" id="profile-card"><p class="muted">${t('loading')}</p></div>
      <div class="card" id="board-card"><h2>${t('leaderboard')}</h2><p class="muted">${t('loading')}</p></div></div>`;
    $('btn-profile-back').addEventListener('click', () => {
      if (from === 'game' || from === 'room') showView(from); else { showView('setup'); this.d.renderSetup(); }
    });
    const pid = id ?? this.meId();
    const card = $('profile-card');
    if (!pid) card.innerHTML = `<p class="muted">${t('noProfile')}</p>`;
    else {
      try { card.innerHTML = this.profileHtml(await this.fetchJson(`/api/players/${encodeURIComponent(pid)}`), pid === this.meId()); } catch (e) {
        card.innerHTML = `<p class="muted">${esc(t('error', { msg: e.message }))}</p>`;
      }
    }
    const bc = $('board-card');
    try {
      const lb = await this.fetchJson('/api/leaderboard');
      // guests may share a nickname: such rows also show the start of the account id
      const seen = new Map();
      for (const p of lb.players || []) seen.set(p.nickname, (seen.get(p.nickname) || 0) + 1);
      const who = (p) => esc(p.nickname) + (seen.get(p.nickname) > 1 ? ` <small class="muted">#${esc(String(p.id).slice(0, 4))}</small>` : '');
      bc.innerHTML = `<h2>${t('leaderboard')}</h2>${lb.players?.length ? `<table class="rank lb"><thead><tr><th>#</th><th>${t('nickname')}</th><th>${t('points')}</th><th>${t('gamesCol')}</th><th>${t('winsCol')}</th></tr></thead><tbody>
        ${lb.players.map((p, i) => `<tr class="${p.id === this.meId() ? 'me' : ''}"><td>${i + 1}</td><td><button type="button" class="linkish" data-player="${esc(p.id)}">${who(p)}</button></td><td>${p.points}</td><td>${p.games}</td><td>${p.wins}</td></tr>`).join('')}</tbody></table>` : `<p class="muted">${t('noLeaders')}</p>`}`;
      bc.querySelectorAll('button[data-player]').forEach((b) => b.addEventListener('click', () => this.openProfile(/** @type {HTMLElement} */ (b).dataset.player || null)));
    } catch (e) { bc.innerHTML = `<h2>${t('leaderboard')}</h2><p class="muted">${esc(t('error', { msg: e.message }))}</p>`; }
    if (toBoard) bc.scrollIntoView({ block: 'start' });
  }

  profileHtml(p, mine) {
    const rate = typeof p.winRate === 'number' ? `${Math.round(p.winRate * 100)}%` : '—';
    const date = (ms) => { try { return new Date(typeof ms === 'number' && ms < 1e12 ? ms * 1000 : ms).toLocaleString(getLang() === 'zh' ? 'zh-CN' : 'en'); } catch { return ''; } };
    const rows = (p.recent || []).map((g) => `<tr><td>${esc(date(g.endedAt))}</td><td>${esc(t(g.rules))} · ${t('nPlayers', { n: g.players })}</td>
      <td style="color:${TEXT_COLOURS[g.rules === 'ludo' ? 'ludo' : 'feixingqi'][g.seat] ?? 'inherit'}">${esc(seatName(g.rules, g.seat))}</td><td>${g.place ? t('place', { n: g.place }) : ''}</td>
      <td>${g.delta > 0 ? '+' : ''}${g.delta ?? 0}</td>
      <td><a href="#record=g:${encodeURIComponent(g.gameId)}">${t('replay')}</a> · <a href="verify.html#game=${encodeURIComponent(g.gameId)}">${t('verifyShort')}</a></td></tr>`).join('');
    return `<h2>${esc(p.nickname)}${mine ? ` <span class="tag me">${t('you')}</span>` : ''}</h2>
      <div class="stats-row"><div><b>${p.points}</b><span>${t('points')}</span></div><div><b>${p.games}</b><span>${t('gamesCol')}</span></div>
        <div><b>${p.wins}</b><span>${t('winsCol')}</span></div><div><b>${rate}</b><span>${t('winRate')}</span></div></div>
      <h3>${t('recentGames')}</h3>
      ${rows ? `<table class="rank"><thead><tr><th>${t('when')}</th><th>${t('game')}</th><th>${t('seat')}</th><th>${t('ranking')}</th><th>${t('points')}</th><th></th></tr></thead><tbody>${rows}</tbody></table>` : `<p class="muted">${t('noGames')}</p>`}`;
  }
}
