// @ts-check
// "Play now": one click to a game. It takes a free seat at a waiting table that
// fits (open to all, free of stakes, passing the lobby's filters; the fullest
// first, as it starts soonest, then the one waiting longest); else it opens a new
// table of four against three computer opponents of the level the player's rating
// suggests (see computerLevel), and starts it.

import { DEFAULT_BOT_LEVEL } from '../widgets.js';
import { passes } from './filters.js';

/** @import { App, Player, Settings, TableSummary } from '../types.js' */
/** @import { Filters } from './filters.js' */

/**
 * The computer opponents' level for a player's rating (the 1500 scale): below
 * 1500 the weakest, 1500 to 1699 the second, 1700 to 1899 the third, from 1900
 * the strongest (each band 200 points wide). A guest, whose rating is not kept,
 * gets the default level.
 * @param {string[]} levels the server's levels, weakest first
 * @param {Player | null} me
 */
export function computerLevel(levels, me) {
  if (!me || me.guest || !levels.length) return levels.includes(DEFAULT_BOT_LEVEL) ? DEFAULT_BOT_LEVEL : levels[0];
  const band = Math.floor((me.rating - 1300) / 200);
  return levels[Math.max(0, Math.min(levels.length - 1, band))];
}

/**
 * The waiting table Play now would sit at, or null.
 * @param {App} app
 * @param {Filters} filters
 * @returns {TableSummary | null}
 */
export function tableToJoin(app, filters) {
  const me = app.me?.nickname;
  const friends = new Set(app.friends.friends.map((f) => f.nickname));
  const open = app.lobby.tables.filter((x) => x.status === 'waiting' && x.free_seats > 0
    && (x.settings.access ?? 'open') === 'open' && !(x.settings.stake ?? 0)
    && !x.seats.some((s) => s.nickname === me) && passes(x, filters, friends));
  open.sort((a, b) => a.free_seats - b.free_seats || a.id - b.id);
  return open[0] ?? null;
}

/**
 * Sit at a fitting table or start a new one against the computer.
 * @param {App} app
 * @param {Filters} filters
 */
export async function playNow(app, filters) {
  await app.welcomed;
  const table = tableToJoin(app, filters);
  if (table) {
    const res = await app.request({ type: 'join_table', table: table.id });
    if (res.table) app.tables.set(res.table.id, res.table);
    app.openTable(table.id);
    return;
  }
  const level = computerLevel(app.botLevels, app.me);
  const three = filters.preset === 'three-rounds';
  /** @type {Settings} */
  const settings = { preset: three ? 'three-rounds' : 'classic', access: 'open', seats: 4, bots: { '1': level, '2': level, '3': level } };
  if (!three) settings.point_limit = { upto100: 100, over100: 500 }[filters.limit] ?? 1;
  const res = await app.request({ type: 'create_table', settings });
  app.tables.set(res.table.id, res.table);
  app.send({ type: 'start_game', table: res.table.id });
  app.openTable(res.table.id);
}
