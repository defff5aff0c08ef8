// The WebSocket client of docs/PROTOCOL.md: requests with ids, replies matched to promises,
// broadcast states to a listener, and a reconnect that re-joins the game — or, in an online room
// (§7.5), logs in again with the account token and re-joins the room.

export class Net {
  /**
   * @param {{onState:(s:any)=>void, onStatus?:(s:string)=>void, onRoom?:(r:any)=>void,
   *   onChat?:(c:any)=>void}} handlers
   */
  constructor(handlers) {
    this.h = handlers;
    this.nextId = 1;
    /** @type {Map<number, {resolve:(v:any)=>void, reject:(e:any)=>void, type:string}>} */
    this.pending = new Map();
    /** @type {WebSocket|null} */
    this.ws = null;
    this.open = null;
    /** @type {{gameId:string, token:string}|null} */
    this.game = null;
    /** The account of §7.1 once logged in on this connection: the token and the nickname. */
    /** @type {{token:string, nickname:string}|null} */
    this.account = null;
    /** The room this browser sits in or watches (§7.5: re-joined on every new connection). */
    /** @type {{code:string, spectate:boolean}|null} */
    this.room = null;
    this.loggedIn = false;
    this.closedByUs = false;
  }

  url() {
    const u = new URL('/ws', location.href);
    u.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
    return u.href;
  }

  connect() {
    if (this.open) return this.open;
    this.open = new Promise((resolve, reject) => {
      const ws = new WebSocket(this.url());
      this.ws = ws;
      let ok = false;
      ws.onopen = () => { ok = true; this.h.onStatus?.('open'); resolve(ws); };
      ws.onerror = () => { if (!ok) reject(new Error('websocket')); };
      ws.onclose = () => {
        this.open = null;
        this.loggedIn = false;
        for (const p of this.pending.values()) p.reject(Object.assign(new Error('closed'), { code: 'closed' }));
        this.pending.clear();
        if (!this.closedByUs) {
          this.h.onStatus?.('closed');
          setTimeout(() => this.reconnect(), 800);
        }
      };
      ws.onmessage = (ev) => this.onMessage(ev.data);
    });
    return this.open;
  }

  async reconnect() {
    try {
      await this.connect();
      if (this.room && this.account) {
        await this.login(this.account.nickname);
        await this.request({ type: 'joinRoom', code: this.room.code, spectate: this.room.spectate });
        this.h.onStatus?.('rejoined');
      } else if (this.game) {
        const st = await this.request({ type: 'join', ...this.game });
        this.h.onStatus?.('rejoined');
        return st;
      }
    } catch (e) {
      // a room that is gone or an account the server no longer knows: stop trying, say so
      if (e && ['room_not_found', 'room_closed', 'bad_token', 'game_not_found'].includes(e.code)) { this.h.onStatus?.('lost:' + e.code); return; }
      setTimeout(() => this.reconnect(), 1500);
    }
  }

  /**
   * `login` (§7.1) on this connection: with the stored token when there is one; a new guest account
   * otherwise, whose token `welcome` returns once. Resolves with the `welcome` message.
   * @param {string} nickname
   */
  async login(nickname) {
    /** @type {any} */
    const msg = { type: 'login', nickname };
    if (this.account?.token) msg.token = this.account.token;
    const w = await this.request(msg);
    this.account = { token: w.token || this.account?.token || '', nickname: w.player?.nickname || nickname };
    this.loggedIn = true;
    this.player = w.player;
    return w;
  }

  /** @param {string} text */
  onMessage(text) {
    let m;
    try { m = JSON.parse(text); } catch { return; }
    const p = m.id !== undefined ? this.pending.get(m.id) : undefined;
    if (m.type === 'state') {
      // every state goes to the listener, in order; the reply also resolves its request
      this.h.onState(m);
      if (p) { this.pending.delete(m.id); p.resolve(m); }
      return;
    }
    if (m.type === 'room') {
      this.h.onRoom?.(m);
      // a room message that answers a lobby request (ready, setSlot, start, …) resolves it
      if (p && p.type !== 'createRoom' && p.type !== 'joinRoom') { this.pending.delete(m.id); p.resolve(m); }
      return;
    }
    if (m.type === 'chat') {
      this.h.onChat?.(m);
      if (p) { this.pending.delete(m.id); p.resolve(m); }
      return;
    }
    if (!p) return;
    if (m.type === 'created' || m.type === 'joined') {
      if (m.type === 'created') this.game = { gameId: m.gameId, token: m.token };
      this.created = m;
      return; // the state that follows answers the request
    }
    this.pending.delete(m.id);
    if (m.type === 'error') p.reject(Object.assign(new Error(m.message || m.code), m));
    else p.resolve(m);
  }

  /**
   * Sends a message and resolves with its reply (a `state`, `hint`, `pong`, `welcome`,
   * `roomJoined`, `room`) or rejects with an `error`. With `settle` (ms), a request whose accepted
   * form has no direct reply (§7.2 lobby actions answered by the `room` broadcast) resolves with
   * null after that long unless an error came first.
   * @param {any} msg @param {{settle?:number}} [o]
   */
  async request(msg, o = {}) {
    await this.connect();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, type: msg.type });
      this.ws?.send(JSON.stringify({ ...msg, id }));
      if (o.settle) setTimeout(() => { if (this.pending.delete(id)) resolve(null); }, o.settle);
    });
  }

  close() { this.closedByUs = true; this.ws?.close(); }
}
