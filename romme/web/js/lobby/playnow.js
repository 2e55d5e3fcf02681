// @ts-check
// "Play now": one click to a game. It takes a free seat at a waiting table that
// fits (open to all, free of stakes, passing the lobby's filters; the fullest
// first, as it starts soonest, then the one waiting longest); else it opens a new
// table of four against three computer opponents of the strength the player's
// rating suggests (see computerLevel), and starts it.

import { DEFAULT_BOT_LEVEL } from '../widgets.js';
import { passes } from './filters.js';
import { levelForRating } from './strength.js';

/** @import { App, Player, Settings, TableSummary } from '../types.js' */

/**
 * The turn time of a game Play now or "New game" opens (the server's own default is
 * 30 s): a minute, time enough for a newcomer to sort a hand and find a lay-off, on a
 * phone too. "New game" offers 15 s to 120 s.
 */
export const DEFAULT_TURN_SECONDS = 60;
/** @import { Filters } from './filters.js' */

/**
 * The computer opponents' level for a player's rating: the one whose own rating
 * is nearest to the player's, among the named levels and those between them in
 * steps of 10% (see strength.js). A guest, whose rating is not kept, gets the
 * default level; so does a player at a server whose levels are not the ones
 * strength.js knows.
 * @param {string[]} levels the server's named levels, weakest first
 * @param {Player | null} me
 */
export function computerLevel(levels, me) {
  const fallback = levels.includes(DEFAULT_BOT_LEVEL) ? DEFAULT_BOT_LEVEL : levels[0];
  if (!me || me.guest) return fallback;
  const level = levelForRating(me.rating);
  return levels.includes(level.split('+')[0]) ? level : fallback;
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
  const settings = {
    preset: three ? 'three-rounds' : 'classic', access: 'open', seats: 4,
    bots: { '1': level, '2': level, '3': level }, turn_seconds: DEFAULT_TURN_SECONDS,
  };
  if (!three) settings.point_limit = { upto100: 100, over100: 500 }[filters.limit] ?? 1;
  const res = await app.request({ type: 'create_table', settings });
  app.tables.set(res.table.id, res.table);
  app.send({ type: 'start_game', table: res.table.id });
  app.openTable(res.table.id);
}
