// @ts-check
// The app: entry (guest / login / register, the form in entry.js), then one
// WebSocket that feeds the lobby and the table screens. State lives here;
// screens render from it.

import { AccountScreen } from './account.js';
import { api } from './api.js';
import { showEntryForm } from './entry.js';
import { Connection } from './ws.js';
import { detectLanguage, formatTime, hasKey, onLanguageChange, setLanguage, t, translateDom } from './i18n.js';
import { toast } from './ui.js';
import { friendOnline, noFriends, takeFriends } from './friends.js';
import { followHelpRoute } from './help.js';
import { LobbyScreen } from './lobby.js';
import { applyLobbyDelta, subscribeLobby, takeWholeLobby } from './lobbyfeed.js';
import { ModerationScreen } from './moderation.js';
import { TableScreen } from './table/screen.js';
import { HistoryScreen } from './replay/history.js';
import { CardLuckScreen, RankingsScreen } from './rankings.js';
import { ProfileScreen } from './profile.js';
import { ChipsScreen } from './chips.js';
import { ReplayScreen } from './replay/page.js';
import { limitChat } from './widgets.js';
import { applyPrefs } from './settings.js';

/** @import { App, Invitation, Player, Table } from './types.js' */
/** @import { ConnState } from './ws.js' */

/** Resolves `app.welcomed` with the first `welcome`. @type {() => void} */
let markWelcomed = () => {};

/**
 * The app's state: who plays, the lobby, the tables this connection knows.
 * @type {App & {conn: Connection | null, serverOffset: number, screen: 'entry' | 'lobby' | 'table' | 'replay' | 'moderation' | 'account' | null,
 *   connState: ConnState, i18nReady: boolean}}
 */
export const app = {
  me: null,
  conn: null,
  serverOffset: 0,
  lobby: { tables: [], players: [], chat: [], invitations: [] },
  friends: noFriends(),
  friendsChanged() {
    lobbyScreen?.update('friends');
    tableScreen?.update('chat');
  },
  tables: new Map(),
  tableId: null,
  botLevels: [],
  welcomed: new Promise((resolve) => { markWelcomed = resolve; }),
  chatMax: null,
  screen: null,
  connState: 'idle',
  i18nReady: false,
  now() { return Date.now() + this.serverOffset; },
  send(msg) {
    const id = this.conn?.send(msg);
    if (id === false || id === undefined) toast(t('conn.offline'), 'error');
    return id;
  },
  request(msg) {
    return this.conn ? this.conn.request(msg) : Promise.reject({ type: 'error', code: 'disconnected' });
  },
  errorText(err) {
    if (!err) return t('error.unknown');
    const key = `error.${err.code}`;
    // A mute says when it ends (`until`, ms).
    const params = err.until ? { until: formatTime(err.until) } : undefined;
    return hasKey(key) ? t(key, params) : (err.message || err.code || t('error.unknown'));
  },
  showError(err) { toast(this.errorText(err), 'error'); },
  openTable(id) {
    if (location.hash !== `#/table/${id}`) location.hash = `#/table/${id}`;
    else route();
  },
  openLobby() {
    if (location.hash !== '#/lobby') location.hash = '#/lobby';
    else route();
  },
  async logout() {
    try { await api.logout(); } catch { /* the cookie may be gone already */ }
    this.conn?.close();
    this.conn = null;
    this.me = null;
    localStorage.removeItem(SESSION_KEY);
    this.tables.clear();
    // The address names no screen of the player who left (the lobby, the account).
    if (location.hash) history.replaceState(null, '', location.pathname + location.search);
    showEntry();
  },
};
applyPrefs();
window.__romme = app;

const main = () => /** @type {HTMLElement} */ (document.getElementById('main'));
/** @type {LobbyScreen | null} */
let lobbyScreen = null;
/** @type {TableScreen | null} */
let tableScreen = null;
/** A page: a game history, a replay, the rankings, a profile, the card luck, the chip
 * history (#/history/NICK, #/replay/ID[/MOVE], #/rankings/BY, #/profile/NICK, #/cards, #/chips).
 * @type {HistoryScreen | ReplayScreen | RankingsScreen | ProfileScreen | CardLuckScreen | ChipsScreen | null} */
let pageScreen = null;
/** @type {ModerationScreen | null} */
let moderationScreen = null;
/** @type {AccountScreen | null} */
let accountScreen = null;

// ------------------------------------------------------------------ entry

/** @param {string} [error] why the player is asked again */
function showEntry(error) {
  app.screen = 'entry';
  document.body.dataset.screen = 'entry';
  showEntryForm(main(), app, startSession, error);
}

// --------------------------------------------------------------- session

const SESSION_KEY = 'romme.session';

/** @param {Player | null} player null: a known browser, told by the `welcome` */
function startSession(player) {
  app.me = player;
  localStorage.setItem(SESSION_KEY, '1');
  if (app.conn) app.conn.close();
  app.conn = new Connection({
    onMessage: handle,
    onState: (state) => {
      app.connState = state;
      showConnState();
    },
    onAuthLost: () => {
      app.me = null;
      app.conn = null;
      localStorage.removeItem(SESSION_KEY);
      if (app.i18nReady) showEntry(t('error.not_authenticated'));
    },
  });
  app.conn.connect();
  if (!app.i18nReady) return;
  if (/^#\/(table|replay|history|rankings|profile)\//.test(location.hash) || ['#/moderation', '#/account', '#/cards', '#/chips'].includes(location.hash)) route(); else app.openLobby();
}

/** The banner over the page while the socket is not open. Its text waits for the
 * catalog: a known session connects while the catalog still loads. */
function showConnState() {
  const state = app.connState;
  const banner = /** @type {HTMLElement} */ (document.getElementById('conn-banner'));
  /** @type {Record<string, string>} */
  const keys = { connecting: 'conn.connecting', refused: 'error.too_many_connections' };
  banner.dataset.i18n = keys[state] ?? 'conn.reconnecting';
  banner.hidden = !app.i18nReady || state === 'open' || state === 'idle' || state === 'closed';
  if (app.i18nReady) banner.textContent = t(banner.dataset.i18n);
}

/**
 * @param {Invitation[]} list
 * @param {Invitation} item
 */
function upsert(list, item) {
  const i = list.findIndex((x) => x.id === item.id);
  if (i >= 0) list[i] = item; else list.push(item);
}

/**
 * The times of the round's moves after an update: those known, and the update's own
 * moves made now (marked when the turn clock made them, `by: "timeout"`).
 * @param {Table} table the table before the update
 * @param {import('./types.js').View} view the update's view
 * @param {string | undefined} by
 * @param {number} now
 * @returns {import('./types.js').HistoryMeta[]}
 */
function historyMeta(table, view, by, now) {
  const sameRound = table.view?.round_no === view.round_no;
  const meta = sameRound ? [...(table.history_meta || [])] : [];
  const before = sameRound ? table.view?.history?.length ?? 0 : 0;
  const length = view.history?.length ?? 0;
  while (meta.length < before) meta.push({});
  meta.length = Math.min(meta.length, length);
  while (meta.length < length) meta.push(by === 'timeout' ? { at: now, by: 'timeout' } : { at: now });
  return meta;
}

/**
 * Every message from the server (docs/protocol.md), in one switch.
 * @param {any} msg
 */
function handle(msg) {
  switch (msg.type) {
    case 'welcome':
      app.me = msg.player;
      app.serverOffset = msg.server_time - Date.now();
      app.botLevels = msg.bot_levels;
      app.chatMax = msg.chat_max;
      markWelcomed();
      subscribeLobby(app);
      limitChat(main(), app.chatMax);
      lobbyScreen?.update('all');
      break;
    case 'lobby':
      app.lobby = { tables: msg.tables, players: msg.players, chat: msg.chat, invitations: msg.invitations };
      takeWholeLobby(app, msg);
      lobbyScreen?.update('all');
      break;
    case 'lobby_update':
    case 'lobby_delta':
      if (msg.type === 'lobby_update') takeWholeLobby(app, msg);
      else if (!applyLobbyDelta(app, msg)) break;
      lobbyScreen?.update('tables');
      tableScreen?.update('lobby');
      break;
    case 'lobby_chat':
      app.lobby.chat.push(msg.message);
      if (app.lobby.chat.length > 200) app.lobby.chat.shift();
      lobbyScreen?.update('chat');
      break;
    case 'invitation':
    case 'invitation_update': {
      upsert(app.lobby.invitations, msg.invitation);
      const inv = msg.invitation;
      if (msg.type === 'invitation' && inv.to === app.me?.nickname && inv.status === 'open') {
        toast(t('invite.received_toast', { from: inv.from }), 'info', 6000);
      }
      lobbyScreen?.update('invitations');
      tableScreen?.update('invitations');
      break;
    }
    case 'friends':
      takeFriends(app, msg);
      app.friendsChanged();
      break;
    case 'friend_online':
      friendOnline(app, msg);
      lobbyScreen?.update('friends');
      break;
    case 'player_info':
      break; // answered through request()
    case 'pong':
      if (msg.server_time) app.serverOffset = msg.server_time - Date.now();
      break;
    case 'table': {
      /** @type {Table} */
      const table = msg.table;
      const known = app.tables.has(table.id);
      app.tables.set(table.id, table);
      if (tableScreen && app.tableId === table.id) tableScreen.setTable(table, []);
      // A reconnect brings back the tables we sit at: go back to a running game.
      if (!known && app.screen !== 'table' && table.my_seat !== null && table.status === 'playing'
          && !location.hash.startsWith('#/table/')) {
        app.openTable(table.id);
      }
      lobbyScreen?.update('tables');
      break;
    }
    case 'update': {
      const table = app.tables.get(msg.table);
      if (!table) break;
      // An update of the version we have is a stale copy, unless it answers our own
      // `arrange` that replaced the last one (the view then holds the new order).
      const events = /** @type {{type: string}[]} */ (msg.events || []);
      const rearranged = msg.version === table.version && msg.view && events.length > 0
        && events.every((e) => e.type === 'hand_arranged');
      if (msg.version <= table.version && !rearranged) break;
      if (msg.version > table.version + 1) {
        app.send({ type: 'resync', table: msg.table, since: table.version });
        break;
      }
      table.version = msg.version;
      if (msg.view) table.history_meta = historyMeta(table, msg.view, msg.by, app.now());
      table.view = msg.view;
      table.timer = msg.timer ?? null;
      if (msg.next_round !== undefined) table.next_round = msg.next_round;
      else if (msg.view?.phase !== 'round_over') table.next_round = null;
      if (msg.view && ['playing', 'waiting'].includes(table.status) && msg.view.phase !== 'not_started') {
        table.status = msg.view.phase === 'game_over' ? 'finished' : 'playing';
      }
      if (app.tableId === msg.table) tableScreen?.setTable(table, msg.events || []);
      break;
    }
    case 'table_chat': {
      const table = app.tables.get(msg.table);
      if (!table) break;
      table.chat = table.chat || [];
      table.chat.push(msg.message);
      if (app.tableId === msg.table) tableScreen?.update('chat');
      break;
    }
    case 'seat_update': {
      const table = app.tables.get(msg.table);
      if (!table) break;
      table.seats = msg.seats;
      if (app.tableId === msg.table) tableScreen?.update('seats');
      break;
    }
    case 'next_round': {
      const table = app.tables.get(msg.table);
      if (!table) break;
      table.next_round = msg.next_round ?? msg;
      if (app.tableId === msg.table) tableScreen?.update('seats');
      break;
    }
    case 'game_over': {
      const table = app.tables.get(msg.table);
      if (!table) break;
      table.game_over = msg;
      table.status = 'finished';
      if (app.tableId === msg.table) tableScreen?.update('game_over');
      break;
    }
    case 'rematch': {
      const table = app.tables.get(msg.table);
      if (!table) break;
      table.rematch = msg.rematch;
      // Everyone said yes: the new table is there (its `table` came first).
      if (msg.rematch.table !== null && app.tableId === msg.table && app.tables.has(msg.rematch.table)) {
        app.openTable(msg.rematch.table);
      } else if (app.tableId === msg.table) tableScreen?.update('game_over');
      break;
    }
    case 'hint':
      tableScreen?.showHint(msg);
      break;
    case 'table_closed': {
      app.tables.delete(msg.table);
      if (app.tableId === msg.table) { toast(t('table.closed'), 'info'); app.openLobby(); }
      break;
    }
    case 'error':
      if (msg.code === 'not_authenticated') break;
      app.showError(msg);
      tableScreen?.onError();
      break;
    default:
      break;
  }
}

// ---------------------------------------------------------------- routing

/**
 * Take the screen down to make room for `name` (the entry form replaces the page itself).
 * @param {'lobby' | 'table' | 'account' | 'replay' | 'moderation'} name
 */
function enterScreen(name) {
  lobbyScreen?.destroy();
  lobbyScreen = null;
  tableScreen?.destroy();
  tableScreen = null;
  accountScreen?.destroy();
  accountScreen = null;
  app.screen = name;
  document.body.dataset.screen = name;
}

function route() {
  if (location.hash === '#/help') return; // over the screen below (help.js)
  if (!app.conn || !app.i18nReady) return;
  if (!location.hash.startsWith('#/')) { app.openLobby(); return; }
  document.getElementById('boot')?.remove();
  const match = location.hash.match(/^#\/table\/(\d+)/);
  const root = main();
  pageScreen?.destroy();
  pageScreen = null;
  const replay = location.hash.match(/^#\/replay\/(\d+)(?:\/(\d+))?$/);
  const history = location.hash.match(/^#\/history\/([^/]+)$/);
  if (replay || history || location.hash === '#/chips') {
    enterScreen('replay');
    app.tableId = null;
    pageScreen = replay ? new ReplayScreen(app, root, Number(replay[1]), replay[2] ? Number(replay[2]) : null)
      : history ? new HistoryScreen(app, root, decodeURIComponent(history[1]))
        : new ChipsScreen(app, root);
    return;
  }
  const rankings = location.hash.match(/^#\/rankings(?:\/(\w+))?$/);
  const profile = location.hash.match(/^#\/profile\/([^/]+)$/);
  if (rankings || profile || location.hash === '#/cards') {
    enterScreen('replay');
    app.tableId = null;
    pageScreen = rankings ? new RankingsScreen(app, root, rankings[1] ?? 'rating')
      : profile ? new ProfileScreen(app, root, decodeURIComponent(profile[1])) : new CardLuckScreen(app, root);
    return;
  }
  moderationScreen = null;
  if (location.hash === '#/moderation') {
    enterScreen('moderation');
    app.tableId = null;
    moderationScreen = new ModerationScreen(app, root);
    return;
  }
  if (match) {
    const id = Number(match[1]);
    app.tableId = id;
    if (app.screen !== 'table') {
      enterScreen('table');
      tableScreen = new TableScreen(app, root);
      window.__rommeTable = tableScreen;
    }
    const table = app.tables.get(id);
    if (table) tableScreen?.setTable(table, []);
    else tableScreen?.waitFor(id);
    return;
  }
  app.tableId = null;
  if (location.hash === '#/account') {
    if (app.screen !== 'account') {
      enterScreen('account');
      accountScreen = new AccountScreen(app, root);
    }
    return;
  }
  if (app.screen !== 'lobby') {
    enterScreen('lobby');
    lobbyScreen = new LobbyScreen(app, root);
  }
  lobbyScreen?.update('all');
}

window.addEventListener('hashchange', () => { followHelpRoute(); route(); });
window.addEventListener('online', () => app.conn?.retryNow());
document.addEventListener('visibilitychange', () => { if (!document.hidden) app.conn?.retryNow(); });
onLanguageChange(() => {
  if (app.screen === 'entry') translateDom(main());
  lobbyScreen?.update('language');
  tableScreen?.update('language');
  pageScreen?.update('language');
  moderationScreen?.update('language');
  accountScreen?.update('language');
});

async function boot() {
  // A browser that has logged in before connects at once: the WebSocket's
  // "welcome" says who we are, and a stale session ends in the entry form.
  // A fresh visitor goes straight to the entry form.
  const known = localStorage.getItem(SESSION_KEY);
  if (known) startSession(null);
  await setLanguage(detectLanguage(), { save: false });
  app.i18nReady = true;
  showConnState();
  if (app.conn) route(); else showEntry();
  followHelpRoute();
}

boot();
