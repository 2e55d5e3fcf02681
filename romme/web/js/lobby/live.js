// @ts-check
// The lobby's running games: every game being played that the player does not
// sit at, newest first, with its players and rules and a button to watch it. The
// list follows the lobby as games start and end; a game's entry is built once and
// kept while its players and rules stay the same.

import { t } from '../i18n.js';
import { levelBadge } from '../levels.js';
import { keyedList } from '../keyed.js';
import { avatar, h } from '../ui.js';
import { settingsChips } from '../widgets.js';
import { botName } from '../botname.js';

/** @import { App, TableSummary } from '../types.js' */

/**
 * Fill `box` with the running games among `tables`.
 * @param {App} app
 * @param {HTMLElement} box
 * @param {TableSummary[]} tables the running tables to show
 */
export function renderLive(app, box, tables) {
  if (!tables.length) {
    box.replaceChildren(h('p.empty', { id: 'live-empty' }, t('lobby.no_live')));
    return;
  }
  const watch = (/** @type {TableSummary} */ table) => app.request({ type: 'watch_table', table: table.id })
    .then((res) => { if (res.table) app.tables.set(res.table.id, res.table); app.openTable(table.id); })
    .catch((err) => app.showError(err));
  let list = box.querySelector(':scope > ul.live-list');
  if (!list) {
    list = h('ul.live-list');
    box.replaceChildren(list);
  }
  const newestFirst = [...tables].sort((a, b) => b.id - a.id);
  keyedList(list, newestFirst, (table) => String(table.id),
    (table) => JSON.stringify([table.seats, table.settings, document.documentElement.lang]),
    (table) => h('li.live-game', { dataset: { table: table.id } },
      h('span.live-dot', { 'aria-hidden': 'true' }),
      h('div.live-main',
        h('ul.live-players', table.seats.map((s) => h('li',
          s.bot ? [avatar(s.bot, true), botName(s.bot)] : [avatar(s.nickname ?? '?'), s.nickname ?? '', levelBadge(s.level)]))),
        h('ul.chips.small', settingsChips(table.settings).map((c) => h('li', c)))),
      h('button', { dataset: { watch: table.id }, onclick: () => watch(table) }, t('lobby.watch'))));
}
