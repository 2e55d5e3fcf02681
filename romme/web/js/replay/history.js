// @ts-check
// A player's game history (#/history/NICKNAME): their finished games, newest first,
// a page at a time ("Older games"), each with the players, the result and a link to
// its replay.

import { api } from '../api.js';
import { currentLanguage, t } from '../i18n.js';
import { clear, h, languagePicker } from '../ui.js';
import { backButton } from './page.js';

/** @import { App } from '../types.js' */
/** @import { HistoryGame } from './types.js' */

/** How many games one page asks for. */
const PAGE = 20;

export class HistoryScreen {
  /**
   * @param {App} app
   * @param {HTMLElement} root
   * @param {string} nickname
   */
  constructor(app, root, nickname) {
    this.app = app;
    this.root = root;
    this.nickname = nickname;
    /** @type {HistoryGame[]} */
    this.games = [];
    this.more = false;
    this.loading = false;
    /** @type {string | null} */
    this.error = null;
    this.render();
    this.loadMore();
  }

  destroy() { clear(this.root); }

  /** @param {string} what */
  update(what) {
    if (what === 'language') this.render();
  }

  /** The next page: the games after the last one shown. */
  async loadMore() {
    if (this.loading) return;
    this.loading = true;
    this.render();
    try {
      const before = this.games.length ? this.games[this.games.length - 1].game : undefined;
      const page = await api.history(this.nickname, before, PAGE);
      this.nickname = page.nickname;
      this.games.push(...page.games);
      this.more = page.more;
      this.error = null;
    } catch (err) {
      this.error = this.app.errorText(/** @type {any} */ (err));
    } finally {
      this.loading = false;
      this.render();
    }
  }

  /**
   * One game: when, who played (the winners marked), the result for the player.
   * @param {HistoryGame} game
   */
  entry(game) {
    const when = new Date(game.finished_at).toLocaleString(currentLanguage(), { dateStyle: 'medium', timeStyle: 'short' });
    const players = game.seats.map((s) => {
      const name = s.nickname ?? t('replay.deleted_player');
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

  render() {
    const header = h('header.topbar',
      backButton('history-back', () => this.app.openLobby()),
      h('h1.replay-title', t('replay.history_title', { name: this.nickname })),
      h('div.topbar-right', languagePicker()));
    const body = [];
    if (this.games.length) body.push(h('ul.history-list', { id: 'history-list' }, this.games.map((g) => this.entry(g))));
    else if (!this.loading && !this.error) body.push(h('p.muted', { id: 'history-empty' }, t('info.no_games')));
    if (this.error) body.push(h('p.form-error', { role: 'alert' }, this.error));
    if (this.loading) body.push(h('p.muted', t('common.loading')));
    else if (this.more) body.push(h('button', { id: 'history-more', onclick: () => this.loadMore() }, t('replay.older')));
    this.root.replaceChildren(h('div.replay', header, h('section.panel.history', { 'aria-busy': String(this.loading) }, body)));
  }
}
