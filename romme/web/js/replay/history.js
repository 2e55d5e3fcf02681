// @ts-check
// A player's game history (#/history/NICKNAME): their finished games, newest first,
// a page at a time ("Older games"), each with the players, the result and a link to
// its replay.

import { botName, playerName } from '../botname.js';
import { api } from '../api.js';
import { currentLanguage, t } from '../i18n.js';
import { PagedScreen } from '../paged.js';
import { h } from '../ui.js';

/** @import { App } from '../types.js' */
/** @import { HistoryGame } from './types.js' */

/** How many games one page asks for. */
const PAGE = 20;

/** @extends {PagedScreen<HistoryGame>} */
export class HistoryScreen extends PagedScreen {
  /**
   * @param {App} app
   * @param {HTMLElement} root
   * @param {string} nickname
   */
  constructor(app, root, nickname) {
    super(app, root);
    this.nickname = nickname;
    this.loadMore();
  }

  /** The games after the last one shown. @override */
  async fetchPage() {
    const last = this.items.at(-1);
    const page = await api.history(this.nickname, last?.game, PAGE);
    this.nickname = page.nickname;
    return { items: page.games, more: page.more };
  }

  /**
   * One game: when, who played (the winners marked), the result for the player.
   * @param {HistoryGame} game
   */
  entry(game) {
    const when = new Date(game.finished_at).toLocaleString(currentLanguage(), { dateStyle: 'medium', timeStyle: 'short' });
    const players = game.seats.map((s) => {
      // A computer opponent as the table named it ("Casual 3"), a person by the nickname.
      const name = s.bot ? t('table.bot_name', { level: botName(s.bot), n: s.seat + 1 })
        : s.nickname ? playerName(s.nickname) : t('replay.deleted_player');
      return h('span.history-player', { class: game.winners.includes(s.seat) ? 'winner' : '' },
        game.winners.includes(s.seat) ? `★ ${name}` : name, h('span.muted', ` ${game.totals[s.seat]}`));
    });
    return h('li.history-game', { 'data-game': game.game },
      h('a.history-link', { href: `#/replay/${game.game}` },
        h('span.history-when', when),
        h('span.history-result', { class: game.won ? 'won' : '' }, game.won ? t('info.won') : t('replay.lost')),
        h('span.history-players', players),
        h('span.muted', t('replay.rounds', { n: game.rounds })),
        h('span.history-open', t('replay.open'))));
  }

  /** @override */
  render() {
    const content = [];
    if (this.items.length) content.push(h('ul.history-list', { id: 'history-list' }, this.items.map((g) => this.entry(g))));
    else if (!this.loading && !this.error) content.push(h('p.muted', { id: 'history-empty' }, t('info.no_games')));
    this.renderPage({ back: 'history-back', title: t('replay.history_title', { name: playerName(this.nickname) }), content,
      moreId: 'history-more', moreText: t('replay.older') });
  }
}
