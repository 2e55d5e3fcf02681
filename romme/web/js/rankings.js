// @ts-check
// The rankings (#/rankings/rating, #/rankings/level, #/rankings/chips_month) and
// the platform's card luck (#/cards). The rankings page is written over rows:
// each tab names the field it shows, so a new ranking is one more entry in TABS.

import { playerName } from './botname.js';
import { api } from './api.js';
import { t } from './i18n.js';
import { cardLuckNote, cardLuckTable, formatNumber, levelBadge } from './levels.js';
import { clear, h, languagePicker } from './ui.js';
import { backButton } from './replay/page.js';

/** @import { App } from './types.js' */
/** @import { CardLuck } from './levels.js' */

/**
 * A row of GET /api/rankings: the fields every ranking has, and its own (`xp`,
 * `level`, `chips`).
 * @typedef {{rank: number, nickname: string, rating: number, games_played: number,
 *   games_won: number, bot: boolean, xp?: number, level?: number, chips?: number}} RankingRow
 */

/**
 * The tabs: the `by` of the request, the label, and what the value column shows.
 * @type {{by: string, label: string, value: (row: RankingRow) => string}[]}
 */
export const TABS = [
  { by: 'rating', label: 'rankings.by_rating', value: (row) => String(row.rating) },
  { by: 'level', label: 'rankings.by_level', value: (row) => t('rankings.level_value', { level: row.level ?? 1, xp: formatNumber(row.xp ?? 0) }) },
  { by: 'chips_month', label: 'rankings.by_chips', value: (row) => formatNumber(row.chips ?? 0) },
];

/** A link to a player's profile. @param {string} nickname @param {Node | string} content */
export function profileLink(nickname, content) {
  return h('a.profile-link', { href: `#/profile/${encodeURIComponent(nickname)}` }, content);
}

/** The page's frame: the way back, a title, the language. @param {App} app @param {string} title @param {Node[]} body */
export function statsPage(app, title, body) {
  return h('div.replay.stats-page',
    h('header.topbar', backButton('stats-back', () => app.openLobby()),
      h('h1.replay-title', title), h('div.topbar-right', languagePicker())),
    h('section.panel.stats-panel', body));
}

export class RankingsScreen {
  /**
   * @param {App} app
   * @param {HTMLElement} root
   * @param {string} by one of TABS' `by`
   */
  constructor(app, root, by) {
    this.app = app;
    this.root = root;
    this.tab = TABS.find((tab) => tab.by === by) ?? TABS[0];
    /** @type {{rankings: RankingRow[], me: RankingRow | null} | null} */
    this.data = null;
    /** @type {string | null} */
    this.error = null;
    this.render();
    this.load();
  }

  destroy() { clear(this.root); }

  /** @param {string} what */
  update(what) { if (what === 'language') this.render(); }

  async load() {
    try {
      this.data = await api.rankings(this.tab.by);
      this.error = null;
    } catch (err) {
      this.error = this.app.errorText(/** @type {any} */ (err));
    }
    this.render();
  }

  /** @param {RankingRow} row @param {boolean} mine */
  row(row, mine) {
    return h('tr', { class: mine ? 'mine' : '', dataset: { nickname: row.nickname } },
      h('td.rank', String(row.rank)),
      h('td.who', profileLink(row.nickname, playerName(row.nickname)), row.bot ? h('span.badge.bot', t('rankings.computer')) : levelBadge(row.level)),
      h('td.value', this.tab.value(row)),
      h('td.games', formatNumber(row.games_played)));
  }

  render() {
    const tabs = h('div.tabs', { role: 'tablist' }, TABS.map((tab) => h('a.tab', {
      role: 'tab', href: `#/rankings/${tab.by}`, id: `rankings-tab-${tab.by}`,
      class: tab === this.tab ? 'active' : '', 'aria-selected': String(tab === this.tab),
    }, t(tab.label))));
    /** @type {Node[]} */
    const body = [tabs];
    const me = this.app.me?.nickname;
    if (this.error) body.push(h('p.form-error', { role: 'alert' }, this.error));
    else if (!this.data) body.push(h('p.muted', t('common.loading')));
    else if (!this.data.rankings.length) body.push(h('p.muted', { id: 'rankings-empty' }, t('rankings.empty')));
    else {
      const shown = this.data.rankings.some((r) => r.nickname === me);
      const mine = this.data.me && !shown ? this.data.me : null;
      body.push(h('div.table-scroll', h('table.stats-table.rankings-table', { id: 'rankings-table', dataset: { by: this.tab.by } },
        h('thead', h('tr', ['rankings.rank', 'rankings.player', this.tab.label, 'stats.games'].map((k) => h('th', { scope: 'col' }, t(k))))),
        h('tbody', this.data.rankings.map((r) => this.row(r, r.nickname === me))),
        mine ? h('tbody.my-position', { id: 'rankings-me' }, h('tr.gap', h('td', { colspan: 4 }, t('rankings.you'))), this.row(mine, true)) : null)));
    }
    body.push(h('p', h('a', { href: '#/cards', id: 'rankings-cards' }, t('luck.platform_title'))));
    this.root.replaceChildren(statsPage(this.app, t('rankings.title'), body));
  }
}

export class CardLuckScreen {
  /** @param {App} app @param {HTMLElement} root */
  constructor(app, root) {
    this.app = app;
    this.root = root;
    /** @type {CardLuck | null} */
    this.luck = null;
    /** @type {string | null} */
    this.error = null;
    this.render();
    api.cardLuck().then((luck) => { this.luck = luck; }, (err) => { this.error = app.errorText(err); })
      .finally(() => this.render());
  }

  destroy() { clear(this.root); }

  /** @param {string} what */
  update(what) { if (what === 'language') this.render(); }

  render() {
    /** @type {Node[]} */
    const body = [h('p', t('luck.platform_intro'))];
    if (this.error) body.push(h('p.form-error', { role: 'alert' }, this.error));
    else if (!this.luck) body.push(h('p.muted', t('common.loading')));
    else {
      body.push(h('p', { id: 'luck-summary' }, t('luck.platform_summary', { hands: formatNumber(this.luck.hands), players: formatNumber(this.luck.players ?? 0) })),
        cardLuckTable(this.luck));
    }
    body.push(cardLuckNote(), h('p', h('a', { href: '#/rankings/rating' }, t('rankings.title'))));
    this.root.replaceChildren(statsPage(this.app, t('luck.platform_title'), body));
  }
}
