// @ts-check
// The one WebSocket of docs/protocol.md: connects, reconnects with backoff
// after a network loss, matches replies to requests by "id", and tells the
// app about every message and about its own state.

/** @import { Message, ServerError } from './types.js' */

/** @typedef {'idle' | 'connecting' | 'open' | 'reconnecting' | 'refused' | 'closed'} ConnState */

export class Connection {
  /**
   * @param {{onMessage: (msg: any) => void, onState?: (state: ConnState) => void, onAuthLost?: () => void}} handlers
   */
  constructor({ onMessage, onState, onAuthLost }) {
    this.onMessage = onMessage;
    this.onState = onState;
    this.onAuthLost = onAuthLost;
    /** @type {WebSocket | null} */
    this.socket = null;
    this.nextId = 1;
    /** Requests waiting for their reply, by id. @type {Map<string, {resolve: (msg: any) => void, reject: (err: ServerError) => void}>} */
    this.pending = new Map();
    this.retry = 0;
    this.closedOnPurpose = false;
    /** @type {ConnState} */
    this.state = 'idle';
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.beat = undefined;
    this.lastHeard = 0;
    /** The code of the last error the server sent without an id. @type {string | null} */
    this.lastError = null;
    /** Called once the socket opens (requests made while it was still connecting). @type {Array<() => void>} */
    this.onOpen = [];
  }

  url() {
    const base = new URL('ws', window.location.href);
    base.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:';
    return base.href;
  }

  /** @param {ConnState} state */
  setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.onState?.(state);
  }

  connect() {
    this.closedOnPurpose = false;
    clearTimeout(this.timer);
    this.setState(this.retry ? 'reconnecting' : 'connecting');
    const socket = new WebSocket(this.url());
    this.socket = socket;
    socket.addEventListener('open', () => {
      this.retry = 0;
      this.lastHeard = Date.now();
      this.setState('open');
      this.heartbeat();
      for (const waiting of this.onOpen.splice(0)) waiting();
    });
    socket.addEventListener('message', (event) => {
      if (this.socket !== socket) return;
      this.lastHeard = Date.now();
      let msg;
      try { msg = JSON.parse(event.data); } catch { return; }
      if (msg.type === 'error' && msg.id === undefined) this.lastError = msg.code;
      const waiting = msg.id === undefined ? undefined : this.pending.get(msg.id);
      if (waiting) {
        this.pending.delete(msg.id);
        if (msg.type === 'error') waiting.reject(msg); else waiting.resolve(msg);
      }
      this.onMessage(msg);
    });
    socket.addEventListener('close', (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      for (const { reject } of this.pending.values()) reject({ type: 'error', code: 'disconnected' });
      this.pending.clear();
      if (event.code === 4401) {
        this.setState('closed');
        this.onAuthLost?.();
        return;
      }
      if (this.closedOnPurpose) { this.setState('closed'); return; }
      // Too many connections of this player: trying again would only be refused
      // again, so the page stops and says why (a reload tries again).
      if (event.code === 4429 && this.lastError === 'too_many_connections') {
        this.setState('refused');
        return;
      }
      this.scheduleReconnect();
    });
    socket.addEventListener('error', () => { /* the close handler reconnects */ });
  }

  /** Try again now (the page came back to the foreground, or the network is back). */
  retryNow() {
    if (this.state === 'reconnecting' && !this.socket) this.connect();
  }

  scheduleReconnect() {
    this.retry += 1;
    this.setState('reconnecting');
    const delay = Math.min(5000, 300 * 2 ** Math.min(this.retry - 1, 4)) * (0.8 + Math.random() * 0.4);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** Give up on a silent socket at once (its close handshake may never come). */
  drop() {
    const socket = this.socket;
    this.socket = null;
    clearInterval(this.beat);
    for (const { reject } of this.pending.values()) reject({ type: 'error', code: 'disconnected' });
    this.pending.clear();
    try { socket?.close(4000); } catch { /* already closing */ }
    this.scheduleReconnect();
  }

  /** A ping every 15 s; a connection silent for 40 s is dead: drop it and reconnect. */
  heartbeat() {
    clearInterval(this.beat);
    this.beat = setInterval(() => {
      if (!this.socket || this.socket.readyState !== WebSocket.OPEN) { clearInterval(this.beat); return; }
      if (Date.now() - this.lastHeard > 40000) { this.drop(); return; }
      this.send({ type: 'ping' });
    }, 15000);
  }

  close() {
    this.closedOnPurpose = true;
    clearInterval(this.beat);
    clearTimeout(this.timer);
    if (this.socket) this.socket.close(1000);
    this.socket = null;
  }

  /**
   * Send a message; returns its id. Dropped (false) while disconnected.
   * @param {Message} msg
   * @returns {string | false}
   */
  send(msg) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    const id = typeof msg.id === 'string' ? msg.id : `c${this.nextId++}`;
    this.socket.send(JSON.stringify({ ...msg, id }));
    return id;
  }

  /**
   * Send and wait for the reply (or error) that carries the same id.
   * @param {Message} msg
   * @param {number} [timeoutMs]
   * @returns {Promise<any>}
   */
  request(msg, timeoutMs = 10000) {
    return new Promise((resolve, reject) => {
      const ask = () => {
        const id = this.send(msg);
        if (id === false) { reject({ type: 'error', code: 'disconnected' }); return; }
        this.pending.set(id, { resolve, reject });
        setTimeout(() => {
          if (this.pending.delete(id)) reject({ type: 'error', code: 'timeout' });
        }, timeoutMs);
      };
      if (this.state !== 'connecting' && this.state !== 'reconnecting') { ask(); return; }
      // Still connecting (a page just loaded, or the connection is coming back): the
      // request goes out once the socket is open, or fails when that takes too long.
      const waiting = () => { clearTimeout(giveUp); ask(); };
      const giveUp = setTimeout(() => {
        this.onOpen = this.onOpen.filter((w) => w !== waiting);
        reject({ type: 'error', code: 'disconnected' });
      }, timeoutMs);
      this.onOpen.push(waiting);
    });
  }
}
