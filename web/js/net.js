// The WebSocket client of docs/PROTOCOL.md: requests with ids, replies matched to promises,
// broadcast states to a listener, and a reconnect that re-joins the game.

export class Net {
  /** @param {{onState:(s:any)=>void, onStatus?:(s:string)=>void}} handlers */
  constructor(handlers) {
    this.h = handlers;
    this.nextId = 1;
    /** @type {Map<number, {resolve:(v:any)=>void, reject:(e:any)=>void}>} */
    this.pending = new Map();
    /** @type {WebSocket|null} */
    this.ws = null;
    this.open = null;
    /** @type {{gameId:string, token:string}|null} */
    this.game = null;
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
      if (this.game) {
        const st = await this.request({ type: 'join', ...this.game });
        this.h.onStatus?.('rejoined');
        return st;
      }
    } catch {
      setTimeout(() => this.reconnect(), 1500);
    }
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

  /** Sends a message and resolves with its reply (a `state`, `hint`, `pong`) or rejects with an `error`. */
  async request(msg) {
    await this.connect();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.ws?.send(JSON.stringify({ ...msg, id }));
    });
  }

  close() { this.closedByUs = true; this.ws?.close(); }
}
