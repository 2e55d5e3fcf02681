// @ts-check
// Two small lobby panels: the player at a glance (level and the way to the next,
// rating, chips, a link to the own profile) and the five best players by rating
// with a link to the rankings. Both ask the server when the lobby is built.

import { playerName } from '../botname.js';
import { api } from '../api.js';
import { chipsText } from '../chips.js';
import { t } from '../i18n.js';
import { levelBadge, levelProgress } from '../levels.js';
import { profileLink } from '../rankings.js';
import { avatar, h } from '../ui.js';

/** @import { App } from '../types.js' */

/** How many players the rankings panel lists. */
const TOP = 5;

/**
 * The player's level, rating and chips. What the server says here is the newest the
 * page knows of the player (a game may have ended since the connection's `welcome`):
 * `fresh` gets it, so that every badge of the player's shows the same.
 * @param {App} app
 * @param {(player: import('../types.js').Player) => void} [fresh]
 */
export function glancePanel(app, fresh) {
  const body = h('div', { id: 'my-glance', 'aria-busy': 'true' }, h('p.muted', t('common.loading')));
  api.me().then((me) => {
    fresh?.(me.player);
    body.removeAttribute('aria-busy');
    body.replaceChildren(
      levelProgress(me.level, me.xp),
      h('dl.glance-figures',
        h('div', h('dt', t('info.rating')), h('dd', { id: 'glance-rating' }, me.player.guest ? '–' : `★ ${Math.round(me.player.rating)}`)),
        h('div', h('dt', t('lobby.balance')), h('dd', { id: 'glance-chips' }, t('chips.balance', { n: chipsText(me.chips) })))),
      profileLink(me.player.nickname, t('profile.open')));
  }, (err) => { body.removeAttribute('aria-busy'); body.replaceChildren(h('p.form-error', app.errorText(err))); });
  return h('section.panel.glance-panel', { 'aria-labelledby': 'glance-h' }, h('h2', { id: 'glance-h' }, t('lobby.you')), body);
}

/**
 * The five best players by rating, and the way to every ranking.
 * @param {App} app
 */
export function topPlayersPanel(app) {
  const list = h('ol.top-players', { id: 'top-players', 'aria-busy': 'true' }, h('li.muted', t('common.loading')));
  api.rankings('rating').then(({ rankings }) => {
    list.removeAttribute('aria-busy');
    list.replaceChildren(...(rankings.length ? rankings.slice(0, TOP).map((row) => h('li', { dataset: { nickname: row.nickname } },
      h('span.top-rank', String(row.rank)),
      row.bot ? avatar('bot', true) : avatar(row.nickname),
      profileLink(row.nickname, playerName(row.nickname)),
      row.bot ? h('span.badge.bot', t('rankings.computer')) : levelBadge(row.level),
      h('span.rating', `★ ${row.rating}`))) : [h('li.muted', t('rankings.empty'))]));
  }, (err) => { list.removeAttribute('aria-busy'); list.replaceChildren(h('li.form-error', app.errorText(err))); });
  return h('section.panel.top-panel', { 'aria-labelledby': 'top-h' },
    h('h2', { id: 'top-h' }, t('lobby.top_players')), list,
    h('a.all-rankings', { href: '#/rankings/rating', id: 'top-all' }, t('lobby.all_rankings')));
}
