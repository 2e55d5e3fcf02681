// @ts-check
// The lobby's tables and players kept current from the server's changes
// (docs/protocol.md, "Lobby deltas"): the client asks for `lobby_delta`s once
// connected; a whole list (`lobby`, `lobby_update`) with a `version` is the base,
// each delta of the next version changes it, and a missing version makes the
// client ask for the whole lists again.

/** @import { App, Player, TableSummary } from './types.js' */

/** Whether the whole lists were asked for and have not come yet. */
let asked = false;

/**
 * The order of the lobby's players, by nickname as the server lists them.
 * @param {Player} a
 * @param {Player} b
 */
function byNickname(a, b) {
  const x = a.nickname.toLowerCase();
  const y = b.nickname.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Ask for deltas (on each new connection; the reply is the whole lists).
 * @param {App} app
 */
export function subscribeLobby(app) {
  asked = true;
  app.send({ type: 'lobby_subscribe', deltas: true });
}

/**
 * A whole lobby list (`lobby` or `lobby_update`): the lists, and the base of the next delta.
 * @param {App} app
 * @param {{tables: TableSummary[], players: Player[], version?: number}} msg
 */
export function takeWholeLobby(app, msg) {
  app.lobby.tables = msg.tables;
  app.lobby.players = msg.players;
  app.lobby.version = msg.version ?? null;
  if (app.lobby.version !== null) asked = false;
}

/**
 * A `lobby_delta`; whether it changed the lists (a gap asks for the whole lists).
 * @param {App} app
 * @param {{version: number, tables: TableSummary[], removed: number[], players: Player[], left: string[]}} msg
 */
export function applyLobbyDelta(app, msg) {
  const lobby = app.lobby;
  const version = lobby.version ?? null;
  if (version !== null && msg.version <= version) return false; // older than the lists we have
  if (version === null || msg.version !== version + 1) {
    if (!asked) subscribeLobby(app);
    return false;
  }
  lobby.version = msg.version;
  const changed = new Set(msg.tables.map((table) => table.id));
  const gone = new Set(msg.removed);
  lobby.tables = [...lobby.tables.filter((table) => !changed.has(table.id) && !gone.has(table.id)), ...msg.tables];
  const came = new Set(msg.players.map((player) => player.nickname));
  const left = new Set(msg.left);
  lobby.players = [...lobby.players.filter((player) => !came.has(player.nickname) && !left.has(player.nickname)), ...msg.players]
    .sort(byNickname);
  return true;
}
