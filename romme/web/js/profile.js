// @ts-check
// A player's profile (#/profile/NICKNAME), for any player: level and the way to
// the next, rating, statistics overall and per preset, card luck, recent games
// with their replays.

import { gameResult } from './widgets.js';
import { playerName } from './botname.js';
import { api } from './api.js';
import { t } from './i18n.js';
import { cardLuckNote, cardLuckTable, chipsWonAndLost, levelProgress, statisticsTable } from './levels.js';
import { statsPage } from './rankings.js';
import { avatar, clear, h } from './ui.js';

/** @import { App } from './types.js' */
/** @import { PlayerInfo } from './api.js' */

export class ProfileScreen {
  /**
   * @param {App} app
   * @param {HTMLElement} root
   * @param {string} nickname
   */
  constructor(app, root, nickname) {
    this.app = app;
    this.root = root;
    this.nickname = nickname;
    /** @type {PlayerInfo | null} */
    this.info = null;
    /** @type {string | null} */
    this.error = null;
    this.render();
    api.player(nickname).then((info) => { this.info = info; }, (err) => { this.error = app.errorText(err); })
      .finally(() => this.render());
  }

  destroy() { clear(this.root); }

  /** @param {string} what */
  update(what) { if (what === 'language') this.render(); }

  /** @param {PlayerInfo} info */
  recent(info) {
    if (!info.recent.length) return h('p.muted', t('info.no_games'));
    return h('ul.recent', { id: 'profile-recent' }, info.recent.map((g) => h('li',
      h('a.recent-replay', { href: `#/replay/${g.game}` },
        h('span', new Date(g.finished_at).toLocaleDateString()),
        gameResult(g)))));
  }

  render() {
    /** @type {Node[]} */
    const body = [];
    const info = this.info;
    if (this.error) body.push(h('p.form-error', { role: 'alert' }, this.error));
    else if (!info) body.push(h('p.muted', t('common.loading')));
    else {
      body.push(
        h('div.info-head', avatar(info.nickname), h('div', h('strong', { id: 'profile-name' }, playerName(info.nickname)),
          h('div.muted', info.guest ? t('info.guest') : t('info.registered')))),
        levelProgress(info.level, info.xp),
        h('dl.info-stats',
          h('dt', t('info.rating')), h('dd', { id: 'profile-rating' }, info.guest ? '–' : String(info.rating)),
          ...chipsWonAndLost(info.stats, 'profile')),
        h('h2', t('stats.title')), statisticsTable(info.stats),
        h('h2', t('luck.title')), cardLuckTable(info.stats.card_luck), cardLuckNote(),
        h('h2', t('info.recent')), this.recent(info),
        h('p.profile-links',
          h('a', { href: `#/history/${encodeURIComponent(info.nickname)}`, id: 'profile-all-games' }, t('replay.all_games')),
          h('a', { href: '#/rankings/rating' }, t('rankings.title')),
          h('a', { href: '#/cards' }, t('luck.platform_title'))));
    }
    const name = playerName(info ? info.nickname : this.nickname);
    this.root.replaceChildren(statsPage(this.app, t('profile.title', { name }), body));
  }
}
