// The dice verify page (verify.html): recomputes every roll of a game record in this browser with
// WebCrypto, trusting nothing the server computes (docs/PROTOCOL.md §8 "Verifying the dice"):
// SHA-256(seed) must equal the commitment, and roll k must equal
// 1 + (b mod 6) for the first byte b < 252 of HMAC-SHA256(seed, "feixingqi/dice" ‖ 0x00 ‖
// (u32 BE length ‖ UTF-8) per client seed ‖ k as u64 BE ‖ j as u32 BE), j = 0, 1, ….
// The record comes from a file, pasted JSON, `#game=ID` (GET /api/games/ID/record) or
// `#record=<base64url JSON>` (the replay viewer's link).

import { t, getLang, setLang, seatName, LEVELS } from './i18n.js';
import { esc } from './html.js';

const enc = new TextEncoder();

/** @param {Uint8Array} b */
export function toHex(b) { return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(''); }

/** @param {string} s 64 hex digits @returns {Uint8Array<ArrayBuffer>|null} */
export function fromHex(s) {
  if (typeof s !== 'string' || !/^[0-9a-fA-F]{64}$/.test(s)) return null;
  return Uint8Array.from(s.match(/../g) || [], (h) => parseInt(h, 16));
}

/** @param {Uint8Array[]} parts */
function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let i = 0;
  for (const p of parts) { out.set(p, i); i += p.length; }
  return out;
}

/** @param {number} n @param {number} bytes big-endian, 4 or 8 */
function be(n, bytes) {
  const out = new Uint8Array(bytes);
  let v = BigInt(n);
  for (let i = bytes - 1; i >= 0; i--) { out[i] = Number(v & 0xffn); v >>= 8n; }
  return out;
}

/**
 * The fixed start of every HMAC message: "feixingqi/" and the domain, 0x00, the length-prefixed
 * client seeds. @param {string[]} clientSeeds @param {string} [domain] `dice`, or `deal` (§7.4)
 */
export function messagePrefix(clientSeeds, domain = 'dice') {
  const parts = [enc.encode(`feixingqi/${domain}`), new Uint8Array([0])];
  for (const c of clientSeeds) { const b = enc.encode(c); parts.push(be(b.length, 4), b); }
  return concat(parts);
}

/** SHA-256 of bytes, as hex. @param {Uint8Array<ArrayBuffer>} b */
export async function sha256Hex(b) {
  return toHex(new Uint8Array(await crypto.subtle.digest('SHA-256', b)));
}

/**
 * The dice stream of a seed and client seeds: `die(k)` recomputes roll k, `below(k, n)` draw k
 * of a number in 0..n (the first 8-byte big-endian word v of block(k, 0), block(k, 1), … below
 * 2^64 − 1 − ((2^64 − 1) mod n), as v mod n).
 * @param {Uint8Array<ArrayBuffer>} seed @param {string[]} clientSeeds @param {string} [domain]
 */
export async function diceStream(seed, clientSeeds, domain = 'dice') {
  const key = await crypto.subtle.importKey('raw', seed, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const prefix = messagePrefix(clientSeeds, domain);
  const block = async (k, j) => new Uint8Array(await crypto.subtle.sign('HMAC', key, concat([prefix, be(k, 8), be(j, 4)])));
  return {
    block,
    /** @param {number} k */
    async die(k) {
      for (let j = 0; ; j++) {
        for (const b of await block(k, j)) if (b < 252) return 1 + (b % 6);
      }
    },
    /** @param {number} k @param {number} n */
    async below(k, n) {
      const N = BigInt(Math.max(1, n));
      const max = (1n << 64n) - 1n;
      const zone = max - (max % N);
      for (let j = 0; ; j++) {
        const b = await block(k, j);
        for (let i = 0; i < 32; i += 8) {
          let v = 0n;
          for (let x = 0; x < 8; x++) v = (v << 8n) | BigInt(b[i + x]);
          if (v < zone) return Number(v % N);
        }
      }
    },
  };
}

/**
 * An online room's deal of colours (docs/PROTOCOL.md §7.4): from the seats in play in
 * increasing order, for i = n − 1 down to 1, draw k = n − 1 − i of the domain `deal` picks
 * j = below(k, i + 1) and swaps places i and j; lobby slot s gets the seat at place s.
 * @param {Uint8Array<ArrayBuffer>} seed @param {string[]} clientSeeds @param {number[]} seats
 */
export async function dealOf(seed, clientSeeds, seats) {
  const draws = await diceStream(seed, clientSeeds, 'deal');
  const order = [...seats].sort((a, b) => a - b);
  for (let i = order.length - 1, k = 0; i >= 1; i--, k++) {
    const j = await draws.below(k, i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

/** Pearson's χ² of six face counts against n/6 each; null without rolls. @param {number[]} c */
export function chiSquare(c) {
  const n = c.reduce((a, b) => a + b, 0);
  if (!n) return null;
  const e = n / 6;
  return c.reduce((s, x) => s + (x - e) * (x - e) / e, 0);
}

/** erfc for z ≥ 0: series with positive terms below 3, continued fraction above (as the engine). @param {number} z */
function erfc(z) {
  if (z < 3) {
    let term = z, sum = z;
    for (let n = 1; term > 1e-17 * sum; n++) { term *= 2 * z * z / (2 * n + 1); sum += term; }
    return 1 - 2 / Math.sqrt(Math.PI) * Math.exp(-z * z) * sum;
  }
  let f = z;
  for (let n = 80; n >= 1; n--) f = z + n / 2 / f;
  return Math.exp(-z * z) / Math.sqrt(Math.PI) / f;
}

/** P(X ≥ x) for X χ² with 5 degrees of freedom (docs/PROTOCOL.md §8). @param {number} x */
export function chiSquareP(x) {
  if (!(x > 0)) return 1;
  const r = Math.sqrt(x);
  const p = erfc(Math.sqrt(x / 2)) + Math.sqrt(2 / Math.PI) * Math.exp(-x / 2) * (r + x * r / 3);
  return Math.min(1, Math.max(0, p));
}

/** A p-value for people: 3 decimals, or scientific below 0.001. @param {number} p */
export function formatP(p) { return p >= 0.001 ? p.toFixed(3) : p.toExponential(1); }

/**
 * Checks a record's dice, and a room's deal of colours. Pure computation in this browser; nothing
 * from the server is trusted.
 * @param {any} record
 * @returns {Promise<{status: 'ok'|'notRecord'|'unrevealed'|'noCommitment'|'commitment'|'roll'|'deal', msg?: string,
 *   commitment?: string, computed?: string, rolls?: number, mismatch?: {index:number,k:number,recorded:number,expected:number},
 *   values?: {index:number,k:number,die:number}[], clientSeeds?: string[], deal?: number[]|null, dealt?: any}>}
 */
export async function verifyDice(record) {
  if (!record || typeof record !== 'object' || record.format !== 'feixingqi-record') return { status: 'notRecord', msg: 'format' };
  if (!Array.isArray(record.plies)) return { status: 'notRecord', msg: 'plies' };
  const dice = record.dice || {};
  const clientSeeds = dice.clientSeeds ?? [];
  if (!Array.isArray(clientSeeds) || clientSeeds.some((c) => typeof c !== 'string')) return { status: 'notRecord', msg: 'dice.clientSeeds' };
  const commitment = typeof dice.commitment === 'string' ? dice.commitment.trim().toLowerCase() : null;
  if (dice.seed === undefined || dice.seed === null) return { status: 'unrevealed', commitment };
  const seed = fromHex(dice.seed);
  if (!seed) return { status: 'notRecord', msg: 'dice.seed' };
  if (!commitment) return { status: 'noCommitment' };
  const computed = await sha256Hex(seed);
  if (computed !== commitment) return { status: 'commitment', commitment, computed };
  const stream = await diceStream(seed, clientSeeds);
  const rolls = [];
  record.plies.forEach((p, index) => { if (p && p.roll !== undefined) rolls.push({ index, k: rolls.length, recorded: p.roll }); });
  // Every roll's first block at once (WebCrypto is asynchronous), then in record order.
  const first = await Promise.all(rolls.map((r) => stream.block(r.k, 0)));
  const values = [];
  for (const r of rolls) {
    const b = first[r.k].find((x) => x < 252);
    const expected = b === undefined ? await stream.die(r.k) : 1 + (b % 6);
    if (expected !== r.recorded) return { status: 'roll', commitment, computed, rolls: r.k, mismatch: { index: r.index, k: r.k, recorded: r.recorded, expected }, clientSeeds };
    values.push({ index: r.index, k: r.k, die: expected });
  }
  // a room's record: the seat each lobby slot was dealt, from the same seed
  let deal = null;
  if (record.deal !== undefined && record.deal !== null) {
    const seats = Array.isArray(record.seats) ? record.seats : [0, 1, 2, 3];
    deal = await dealOf(seed, clientSeeds, seats);
    if (JSON.stringify(record.deal) !== JSON.stringify(deal)) return { status: 'deal', commitment, computed, rolls: rolls.length, values, clientSeeds, deal, dealt: record.deal };
  }
  return { status: 'ok', commitment, computed, rolls: rolls.length, values, clientSeeds, deal };
}

/** The server replayed the record and refused it: a ply breaks the rules (its `bad_record` text). */
export class RecordRejected extends Error {}

/**
 * Per-seat face counts of verified rolls, and whether the game is over. Which seat rolled follows
 * from the rules (bonus rolls, skipped seats), so it comes from the server's replay frames; every
 * value counted was recomputed here, and a frame whose roll differs from it is refused. Opening
 * rolls are not counted. Throws `RecordRejected` when the server answers that the record does not
 * replay (its options, rules or plies are not a legal game), any other error when it cannot be
 * asked.
 * @param {any} record @param {{index:number,die:number}[]} values
 * @returns {Promise<{seats: {seat:number, counts:number[]}[], over: boolean}>}
 */
export async function seatCounts(record, values) {
  const r = await fetch('/api/replay', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(record) });
  const replay = await r.json().catch(() => ({}));
  if (r.status === 400 && replay.code === 'bad_record') throw new RecordRejected(replay.message);
  if (!r.ok) throw new Error(replay.message || replay.code || `HTTP ${r.status}`);
  const frames = replay.frames || [];
  if (frames.length !== record.plies.length) throw new Error('frames');
  /** @type {Map<number, number[]>} */
  const counts = new Map();
  for (const s of replay.start?.seats || []) counts.set(s.seat, [0, 0, 0, 0, 0, 0]);
  for (const v of values) {
    const f = frames[v.index];
    const before = v.index === 0 ? replay.start : frames[v.index - 1];
    if (f.ply?.roll !== v.die) throw new Error(`plies[${v.index}]`);
    if (before.phase === 'opening') continue;
    if (!counts.has(f.seat)) counts.set(f.seat, [0, 0, 0, 0, 0, 0]);
    counts.get(f.seat)[v.die - 1]++;
  }
  const seats = [...counts.entries()].sort((a, b) => a[0] - b[0]).map(([seat, c]) => ({ seat, counts: c }));
  return { seats, over: (frames.at(-1) ?? replay.start)?.phase === 'over' };
}

// ---------------------------------------------------------------------------------------------
// the page

const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
/**
 * The last check: `game` is the server's replay (`over`: the record reaches the end of the game),
 * `seatsError` why it could not be asked.
 * @type {{record:any, result:any, seats:any, game:{over:boolean}|null, seatsError:string|null, error:string|null}|null}
 */
let last = null;

function applyI18n() {
  document.querySelectorAll('[data-t]').forEach((e) => { e.textContent = t(/** @type {HTMLElement} */ (e).dataset.t || ''); });
  $('btn-lang').textContent = getLang() === 'zh' ? 'EN' : '中文';
  $('btn-lang').lang = getLang() === 'zh' ? 'en' : 'zh'; // its name is its text, in its own language
  document.title = `${t('verifyTitle')} · ${t('title')}`;
}

function statsRow(label, c) {
  const n = c.reduce((a, b) => a + b, 0);
  const x = chiSquare(c);
  return `<tr><th scope="row">${label}</th>${c.map((v) => `<td>${v}</td>`).join('')}<td>${n}</td>
    <td>${x === null ? '–' : x.toFixed(2)}</td><td class="p">${x === null ? '–' : formatP(chiSquareP(x))}</td></tr>`;
}

function render() {
  const host = $('vf-result');
  if (!last) { host.innerHTML = ''; return; }
  const { record, result: r, seats, game, seatsError, error } = last;
  if (error) {
    host.dataset.status = 'notRecord';
    host.innerHTML = `<p class="verdict bad" id="vf-verdict">${esc(t('verifyFail'))}</p><p>${esc(t('verifyNotRecord', { msg: error }))}</p>`;
    return;
  }
  host.dataset.status = r.status;
  const ok = r.status === 'ok';
  const lines = [];
  if (r.status === 'notRecord') lines.push(t('verifyNotRecord', { msg: r.msg }));
  else if (r.status === 'unrevealed') lines.push(t('verifyUnrevealed', { c: r.commitment || '–' }));
  else if (r.status === 'noCommitment') lines.push(t('verifyNoCommit'));
  else if (r.status === 'commitment') lines.push(t('verifyCommitBad', { h: r.computed, c: r.commitment }));
  else lines.push(t('verifyCommitOk', { c: r.computed }));
  let rolls = '';
  if (r.status === 'ok') rolls = t('verifyRollsOk', { n: r.rolls, last: Math.max(0, r.rolls - 1), m: r.clientSeeds.length });
  if (r.status === 'roll') rolls = t('verifyRollBad', { i: r.mismatch.index, k: r.mismatch.k, r: r.mismatch.recorded, e: r.mismatch.expected, n: r.rolls });
  if (r.status === 'game' || r.status === 'deal') rolls = t('verifyRollsOk', { n: r.rolls, last: Math.max(0, r.rolls - 1), m: r.clientSeeds.length });
  const seatList = (v) => (Array.isArray(v) ? v : []).map((s) => whoSat(record, s)).join(getLang() === 'zh' ? '、' : ', ');
  let dealt = '';
  if (r.status === 'deal') dealt = t('verifyDealBad', { r: seatList(r.dealt), e: seatList(r.deal) });
  else if (ok && r.deal) dealt = t('verifyDealOk', { s: seatList(r.deal) });
  let plies = '';
  if (r.status === 'game') plies = t('verifyGameBad', { msg: r.msg });
  else if (ok && game) plies = t(game.over ? 'verifyGameOk' : 'verifyGameOpen', { n: record.plies.length });
  let table = '';
  if (ok) {
    const rules = record.rules === 'ludo' ? 'ludo' : 'feixingqi';
    const all = [0, 0, 0, 0, 0, 0];
    for (const v of r.values) all[v.die - 1]++;
    const head = `<tr><th>${esc(t('seat'))}</th>${[1, 2, 3, 4, 5, 6].map((f) => `<th>${f}</th>`).join('')}<th>n</th><th>χ²</th><th>p</th></tr>`;
    const rows = (seats || []).map((s) => statsRow(`<span class="sw" style="--c:var(--s${s.seat})"></span>${esc(whoSat(record, s.seat))}`, s.counts)).join('');
    table = `<h2>${esc(t('verifyStats'))}</h2>
      <div class="tablewrap"><table id="vf-stats" class="${rules === 'ludo' ? 'ludo-colours' : ''}"><thead>${head}</thead><tbody>${rows}${statsRow(esc(t('verifyAll')), all)}</tbody></table></div>
      ${seatsError ? `<p class="muted">${esc(t('verifyNoSeats', { msg: seatsError }))}</p>` : ''}
      <p class="muted">${esc(t('verifyStatsNote'))}</p>`;
  }
  host.innerHTML = `<p class="verdict ${ok ? 'ok' : 'bad'}" id="vf-verdict">${esc(ok ? t('verifyOk') : t('verifyFail'))}</p>
    <p id="vf-commit" class="mono">${esc(lines.join(' '))}</p>
    ${rolls ? `<p id="vf-rolls">${esc(rolls)}</p>` : ''}
    ${dealt ? `<p id="vf-deal">${esc(dealt)}</p>` : ''}
    ${plies ? `<p id="vf-game">${esc(plies)}</p>` : ''}
    ${table}`;
}

/**
 * A seat's colour and who sat there, as the record says (a room's `names`, a game's computer
 * `levels`, both in the order of `seats`): 红方（小明）, 黄方（电脑·困难）. Words the record
 * carries, not checked by the dice: they only say whose rows these are.
 * @param {any} record @param {number} seat
 */
export function whoSat(record, seat) {
  const colour = seatName(record?.rules === 'ludo' ? 'ludo' : 'feixingqi', seat);
  const at = Array.isArray(record?.seats) ? record.seats.indexOf(seat) : -1;
  const nick = at >= 0 && Array.isArray(record.names) ? record.names[at] : null;
  const level = at >= 0 && Array.isArray(record.levels) ? record.levels[at] : null;
  const who = typeof nick === 'string' && nick ? nick
    : typeof level === 'string' && LEVELS.includes(level) ? `${t('controllerComputer')}·${t(level)}` : '';
  return who ? (getLang() === 'zh' ? `${colour}（${who}）` : `${colour} (${who})`) : colour;
}

/** @param {any} record */
async function check(record) {
  last = null;
  $('vf-result').dataset.status = 'working';
  $('vf-result').innerHTML = `<p class="muted">${esc(t('verifyWorking'))}</p>`;
  /** @type {any} */ let result = await verifyDice(record);
  let seats = null, game = null, seatsError = null;
  if (result.status === 'ok') {
    try {
      const replayed = await seatCounts(record, result.values);
      seats = replayed.seats;
      game = { over: replayed.over };
    } catch (e) {
      // Rolls that match the seed do not make a record honest when its game cannot be played.
      if (e instanceof RecordRejected) result = { ...result, status: 'game', msg: e.message };
      else seatsError = e.message;
    }
  }
  last = { record, result, seats, game, seatsError, error: null };
  render();
}

/** @param {string} text */
async function checkText(text) {
  let record;
  try { record = JSON.parse(text); } catch (e) { last = { record: null, result: null, seats: null, game: null, seatsError: null, error: e.message }; render(); return; }
  await check(record);
}

async function fromHash() {
  const g = /#game=([0-9A-Za-z_-]+)/.exec(location.hash);
  const rec = /#record=([^&]+)/.exec(location.hash);
  if (g) {
    $('vf-result').dataset.status = 'working';
    $('vf-result').innerHTML = `<p class="muted">${esc(t('verifyLoading'))}</p>`;
    try {
      const r = await fetch(`/api/games/${g[1]}/record`);
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      const text = await r.text();
      /** @type {HTMLTextAreaElement} */ ($('vf-text')).value = text;
      await checkText(text);
    } catch (e) { last = { record: null, result: null, seats: null, game: null, seatsError: null, error: e.message }; render(); }
  } else if (rec) {
    try {
      const b64 = decodeURIComponent(rec[1]).replace(/-/g, '+').replace(/_/g, '/');
      const text = new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
      /** @type {HTMLTextAreaElement} */ ($('vf-text')).value = text;
      await checkText(text);
    } catch (e) { last = { record: null, result: null, seats: null, game: null, seatsError: null, error: e.message }; render(); }
  }
}

function init() {
  setLang(getLang());
  applyI18n();
  $('btn-lang').addEventListener('click', () => { setLang(getLang() === 'zh' ? 'en' : 'zh'); applyI18n(); render(); });
  $('vf-form').addEventListener('submit', (e) => { e.preventDefault(); checkText(/** @type {HTMLTextAreaElement} */ ($('vf-text')).value); });
  $('vf-file').addEventListener('change', async (e) => {
    const f = /** @type {HTMLInputElement} */ (e.target).files?.[0];
    if (!f) return;
    const text = await f.text();
    /** @type {HTMLTextAreaElement} */ ($('vf-text')).value = text;
    await checkText(text);
  });
  window.addEventListener('hashchange', fromHash);
  fromHash();
}

if (typeof document !== 'undefined' && document.getElementById('vf-form')) init();

/** A link to this page carrying the record itself (`#record=` base64url of its JSON). @param {any} record */
export function verifyHref(record) {
  const bytes = enc.encode(JSON.stringify(record));
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `verify.html#record=${btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
}
