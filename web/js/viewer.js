// The replay viewer: a game record, replayed by the server into one frame per ply
// (POST /api/replay, docs/PROTOCOL.md "Front-end requests" 1), stepped, played and scrubbed.

import { t, seatName, getLang } from './i18n.js';
import { decisionWords } from './end.js';
import { createBoard } from './board.js';
import { verifyHref, whoSat } from './verify.js';

/** How many plies before the position the log shows after a jump. */
const RELOG_PLIES = 30;

export class Viewer {
  /** @param {any} deps */
  constructor(deps) {
    this.d = deps;
    this.frames = [];
    this.start = null;
    this.i = 0;
    this.board = null;
    /** @type {{rules:string, n:number, plies:number, seed:boolean, local:boolean, failed:string|undefined, record:any}|null} */
    this.info = null;
    /** @type {any} the graded decision shown (复盘), to say again in another language */
    this.decision = null;
    /** where to go once the record has loaded (a jump asked for while it loads) */
    this.wanted = 0;
    this.playing = false;
    this.busy = false;
    /** the position the step being animated ends at */
    this.landing = 0;
    this.anim = 1;
    this.onBack = () => {};
    /** 道具模式: the replay's own item bars (to look at, not to use) */
    this.items = { bars: new Map(), key: '' };
    const $ = deps.$;
    $('v-back').addEventListener('click', () => { this.stop(); this.onBack(); });
    $('v-first').addEventListener('click', () => this.seek(0));
    $('v-prev').addEventListener('click', () => this.seek(this.i - 1));
    $('v-next').addEventListener('click', () => this.next());
    $('v-last').addEventListener('click', () => this.seek(Infinity));
    $('v-play').addEventListener('click', () => this.toggle());
    this.rate = 1;
    for (const b of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll('#v-rate button'))) {
      b.addEventListener('click', () => {
        this.rate = Number(b.dataset.rate) || 1;
        for (const o of document.querySelectorAll('#v-rate button')) o.setAttribute('aria-pressed', String(o === b));
        this.setSpeed(this.base ?? 1);
      });
    }
    // (the slider says its own value: the jump is not announced twice)
    $('v-range').addEventListener('input', (e) => this.seek(Number(/** @type {HTMLInputElement} */ (e.target).value), false));
  }

  /** The game's animation factor `a` (its 电脑速度), quickened by the replay's own 1× / 2× / 4×. */
  setSpeed(a) { this.base = a; this.anim = a / (this.rate || 1); this.board?.setSpeed(this.anim); }

  /**
   * 道具模式: every replay frame carries its items (PROTOCOL.md §9): on the board, and the bars,
   * round and weather beside it, as the game screen shows them. @param {any} f
   */
  showItems(f) {
    this.board?.setItems(f.items ?? null);
    const seats = (f.seats || []).map((/** @type {any} */ s) => s.seat);
    this.d.drawItemPanel(this.d.$('v-items'), this.items, { gameId: this.gameId, rules: this.rules, items: f.items }, seats, null);
  }

  /** Everything the viewer wrote again, in the language of the moment. */
  relang() {
    this.board?.relabel();
    this.relog();
    this.update();
    this.showInfo();
    if (this.decision) this.showNote(this.decision);
    if (this.start) this.showItems(this.stateAt(this.i));
  }

  /**
   * The line above the board: what the record is, and how it is replayed (`this.info`, kept so
   * that a change of language can write it again).
   */
  showInfo() {
    const o = this.info;
    if (!o) return;
    let text = t('recordInfo', { rules: t(o.rules), n: o.n, plies: o.plies });
    // who sat where, as the record names them (a room's nicknames, the computers' levels)
    const seats = Array.isArray(o.record?.seats) ? o.record.seats.filter((/** @type {any} */ s) => typeof s === 'number') : [];
    if (seats.length) text += ' · ' + seats.map((/** @type {number} */ s) => whoSat(o.record, s)).join(getLang() === 'zh' ? '、' : ', ');
    if (o.seed) text += ' · ' + t('seedRevealed');
    if (o.local) text += ' · ' + t('localReplay');
    if (o.failed !== undefined) text += ' — ' + t('replayUnavailable', { msg: o.failed });
    this.d.$('v-info').textContent = text;
  }

  /** Stops playing (leaving the viewer). */
  stop() { this.playing = false; }

  /** @param {any} record @param {any} [local] frames this browser saw, if the server cannot replay */
  async load(record, local) {
    const $ = this.d.$;
    this.epoch = (this.epoch ?? 0) + 1; // a step still animating from the last record must not land on this one
    this.playing = false;
    // a jump asked for while the record loads (结尾 at once) is made when it has loaded
    this.start = null;
    this.wanted = 0;
    this.frames = [];
    this.perPly = false;
    this.i = 0;
    $('v-log').innerHTML = '';
    const rules = record.rules === 'ludo' ? 'ludo' : 'feixingqi';
    this.rules = rules;
    // the header names the game replayed ("Aeroplane Chess" stood over a Ludo record in English)
    this.d.showTitle(rules);
    this.gameId = String(record.gameId ?? '');
    const geo = await this.d.getGeo(rules);
    // pieces are named as on the game screen (colour, shape, number, square), not "1 2"
    this.board = createBoard($('viewer-board'), geo, { label: (seat, piece, p, all) => this.d.pieceLabel(rules, seat, piece, p, all), itemName: (k) => this.d.itemName(k) });
    this.board.svg.setAttribute('aria-label', `${t('replay')} · ${t(rules)}`);
    this.board.setSpeed(this.anim);
    this.d.markBoard();
    const plies = Array.isArray(record.plies) ? record.plies.length : 0;
    const n = Array.isArray(record.seats) ? record.seats.length : record.players ?? 4;
    this.info = { rules, n, plies, seed: !!record.dice?.seed, local: false, failed: undefined, record };
    this.showInfo();
    // the verify page recomputes the dice of exactly this record in the browser
    /** @type {HTMLAnchorElement} */ ($('v-verify')).href = verifyHref(record);
    let replay;
    try {
      // 道具模式 before the end: the items come from the seed, still secret, so no one can replay
      // them from the record (the game's own frames can); no request is made to be refused
      if (record.options?.items && !record.dice?.seed) throw new Error(t('itemsNeedSeed'));
      const r = await fetch('/api/replay', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(record) });
      replay = await r.json().catch(() => ({}));
      if (!r.ok) throw new Error(replay.message || replay.code || `HTTP ${r.status}`);
    } catch (e) {
      if (local && local.frames.length) {
        // the game this browser played: replay the states and events it received
        this.info.local = true;
        this.showInfo();
        this.start = local.start;
        this.frames = local.frames;
        this.seek(this.wanted);
        return;
      }
      this.info.failed = e.message;
      this.showInfo();
      const pieces = record.options?.pieces ?? 4;
      const seats = Array.isArray(record.seats) && typeof record.seats[0] === 'number' ? record.seats : [0, 1, 2, 3].slice(0, n);
      const st = [[], [], [], []];
      for (const s of seats) st[s] = Array(pieces).fill(-1);
      this.board.setPieces(st, seats);
      this.update();
      return;
    }
    this.start = replay.start;
    this.frames = replay.frames || [];
    this.perPly = true;
    this.seek(this.wanted);
  }

  /**
   * 复盘: shows a graded decision of the end screen (docs/PROTOCOL.md §3 `over.analysis`) — the
   * position it was made in, the Master's best piece and landing square marked, and a note
   * saying what was played and what the Master would have played. Only on the server's replay,
   * whose frames are one per ply (this browser's own frames need not be).
   * @param {any} d
   */
  showDecision(d) {
    if (!this.perPly || !this.board || !(d.ply >= 0 && d.ply < this.frames.length)) return false;
    this.seek(d.ply);
    this.board.setHint({ seat: d.seat, piece: d.best, to: d.bestTo ?? -1 });
    this.showNote(d);
    return true;
  }

  /** The note of a graded decision, in the language of the moment. @param {any} d */
  showNote(d) {
    this.decision = d;
    const why = getLang() === 'zh' ? d.zh : d.en;
    const note = this.d.$('v-note');
    note.textContent = t('reviewNote', { ...decisionWords(this.rules, d), name: seatName(this.rules, d.seat), grade: t('grade_' + d.grade), why: why ?? '' });
    note.hidden = false;
  }

  /** Takes away what `showDecision` marked. */
  clearDecision() {
    this.decision = null;
    this.board?.setHint(null);
    this.d.$('v-note').hidden = true;
  }

  stateAt(i) {
    const f = i === 0 ? this.start : this.frames[i - 1];
    return f;
  }

  /** Jump to the position after `i` plies, without animation; `say`: announce where it went. */
  seek(i, say = true) {
    if (!this.board || !this.start) { this.wanted = i; return; }
    this.epoch = (this.epoch ?? 0) + 1; // a step still animating must not move on from here
    if (this.busy) this.board.skip(); // nor draw its last squares over this position
    this.playing = false;
    this.clearDecision();
    this.i = Math.max(0, Math.min(this.frames.length, i));
    const f = this.stateAt(this.i);
    this.board.setPieces(this.d.progressOf(f), this.d.seatsOf(f));
    this.showItems(f);
    this.board.setTurn(f.phase === 'over' ? -1 : f.turn);
    this.relog();
    this.update();
    if (say) this.d.announce(this.d.$('v-pos').textContent ?? '');
  }

  /**
   * The log as it reads at this position: the words of the last plies before it, without their
   * sounds. A log kept across a jump would show what was played somewhere else as if it had
   * just happened here.
   */
  relog() {
    this.d.$('v-log').innerHTML = '';
    this.d.logFrames(this.frames.slice(Math.max(0, this.i - RELOG_PLIES), this.i), this.rules, { log: (text, imp, colour) => this.log(text, imp, colour) });
  }

  /**
   * One ply on, animated. Pressed again while a step animates, it ends that step at once and
   * goes one ply further without animation (a press is one ply, as many times as it is pressed;
   * presses during a step were dropped).
   */
  async next() {
    if (!this.board || this.i >= this.frames.length) return false;
    if (this.busy) { this.seek(Math.max(this.i, this.landing) + 1); return false; }
    this.busy = true;
    this.landing = this.i + 1;
    this.clearDecision();
    const epoch = this.epoch;
    const f = this.frames[this.i];
    const said = [];
    // told as the log rebuilt after a jump tells it (logFrames), with the animation
    await this.board.animate(this.d.withMoveLines(f.events || []), this.d.narrator(f, this.rules, said, { log: (text, imp, colour) => this.log(text, imp, colour), anim: this.anim }));
    this.busy = false;
    if (epoch !== this.epoch) {
      // the user scrubbed (or opened another record) while this step was animating: where they
      // went wins; redraw it over whatever the animation left
      if (this.frames.length > 0) this.seek(this.i);
      return false;
    }
    this.board.setPieces(this.d.progressOf(f), this.d.seatsOf(f));
    this.showItems(f);
    this.board.setTurn(f.phase === 'over' ? -1 : f.turn);
    this.i++;
    this.update();
    // told as the game screen tells a ply (a screen reader heard nothing of the replay)
    if (said.length) this.d.announce(this.d.speech(said));
    return true;
  }

  async toggle() {
    this.playing = !this.playing;
    this.update();
    while (this.playing && await this.next()) { /* keep going */ }
    this.playing = false;
    this.update();
  }

  /**
   * One line of the replay's log (the game's `logLine`, its own list, 200 lines kept).
   * @param {string} text @param {boolean} [imp] @param {string} [colour]
   */
  log(text, imp, colour) {
    this.d.logLine(text, imp, colour, this.d.$('v-log'), 200);
  }

  update() {
    const $ = this.d.$;
    const n = this.frames.length;
    const r = /** @type {HTMLInputElement} */ ($('v-range'));
    r.max = String(n);
    r.value = String(this.i);
    $('v-pos').textContent = t('ply', { i: this.i, n });
    $('v-play').textContent = this.playing ? t('pause') : t('play');
    const f = this.i > 0 ? this.frames[this.i - 1] : null;
    if (f?.ply && f.seat !== undefined) r.setAttribute('aria-valuetext', `${t('ply', { i: this.i, n })}, ${seatName(this.rules, f.seat)}`);
  }

  /** @param {KeyboardEvent} e */
  key(e) {
    // a focused control keeps its own keys: Space and Enter press a button, the slider moves
    // with the arrows by itself
    const at = e.target instanceof HTMLElement ? e.target : null;
    if (at?.closest('input, select') && e.key !== 'Escape') return;
    if (at?.closest('button, a, summary') && (e.key === ' ' || e.key === 'Enter')) return;
    if (e.key === 'ArrowRight') { e.preventDefault(); this.next(); }
    else if (e.key === 'ArrowLeft') { e.preventDefault(); this.seek(this.i - 1); }
    else if (e.key === 'Home') { e.preventDefault(); this.seek(0); }
    else if (e.key === 'End') { e.preventDefault(); this.seek(Infinity); }
    else if (e.key === ' ') { e.preventDefault(); this.toggle(); }
    else if (e.key === 'Escape') { e.preventDefault(); this.stop(); this.onBack(); }
  }
}
