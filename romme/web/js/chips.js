// @ts-check
// Play money on the page: the balance in the lobby's header with the bonus claim,
// a table's stake, pot and operating cost, the stake choice of "New game", and the
// player's chip history (#/chips). The rules: docs/protocol.md, "Chips and stakes".

import { api } from './api.js';
import { currentLanguage, t } from './i18n.js';
import { PagedScreen } from './paged.js';
import { h, toast } from './ui.js';

/** @import { App } from './types.js' */

/** The stakes "New game" offers (0: a free game), besides a custom one. */
export const STAKES = [0, 10, 50, 100, 500, 1000];
/** The largest stake a table may ask (the server's limit). */
export const STAKE_MAX = 1_000_000;

/**
 * @typedef {{chips: number, bonus: {amount: number, below: number, next_at: string | null, due: boolean}}} BonusState
 * @typedef {{id: number, at: string, reason: string, amount: number, balance: number, game: number | null}} Movement
 */

/** @param {number} n */
export function chipsText(n) { return n.toLocaleString(currentLanguage()); }

/**
 * The balance with a link to the history and, when due, the bonus button. It
 * asks the server now and after a claim; the lobby builds it anew after each game.
 * @param {App} app
 */
export function chipBalance(app) {
  const box = h('span.chip-balance', { id: 'chip-balance' });
  const load = () => api.bonus().then((state) => render(state)).catch(() => box.replaceChildren());
  /** @param {BonusState} state */
  const render = (state) => {
    const claim = state.bonus.due ? h('button.small.primary', {
      id: 'claim-bonus',
      onclick: async () => {
        try {
          const after = await api.claimBonus();
          toast(t('chips.bonus_claimed', { n: chipsText(after.claimed) }));
          render(after);
        } catch (err) { app.showError(/** @type {any} */ (err)); load(); }
      },
    }, t('chips.claim_bonus', { n: chipsText(state.bonus.amount) })) : null;
    box.replaceChildren(h('a.chip-link', { href: '#/chips', id: 'chip-count', title: t('chips.history') },
      t('chips.balance', { n: chipsText(state.chips) })), claim ?? '');
  };
  load();
  return box;
}

/** @typedef {{settings: {stake?: number, seats?: number}, operating_cost?: {percent: number, amount: number}}} StakedTable */

/**
 * A full staked table's pot (every seat's stake) and the house's operating cost
 * of it; null for a free game.
 * @param {StakedTable} table
 */
function potOf(table) {
  const stake = table.settings.stake ?? 0;
  if (!stake || !table.operating_cost) return null;
  return { pot: stake * (table.settings.seats ?? 2), cost: table.operating_cost };
}

/**
 * What a staked table costs and pays, shown in the lobby and before the start:
 * the stake, the pot and the house's operating cost of a full table.
 * @param {StakedTable} table
 * @returns {string | null}
 */
export function potText(table) {
  const p = potOf(table);
  return p && t('chips.pot', { pot: chipsText(p.pot), cost: chipsText(p.cost.amount), percent: p.cost.percent });
}

/**
 * A running staked game's pot as the table shows it: the pot, the operating cost
 * and what the winner takes (shared evenly on a tie).
 * @param {StakedTable} table
 * @returns {string | null}
 */
export function gamePotText(table) {
  const p = potOf(table);
  return p && t('chips.pot_game', { pot: chipsText(p.pot), cost: chipsText(p.cost.amount), prize: chipsText(p.pot - p.cost.amount) });
}

/**
 * The stake choice of "New game": the usual stakes and a custom one.
 * @returns {{field: HTMLElement, value: () => number | null}} `value`: the stake, or null if invalid
 */
export function stakeField() {
  const custom = h('input', { type: 'number', name: 'custom_stake', id: 'ng-custom-stake', min: 1, max: STAKE_MAX, step: 1, value: 200, 'aria-label': t('newgame.stake_custom') });
  const radios = STAKES.map((n) => h('label.radio', h('input', { type: 'radio', name: 'stake', value: String(n), checked: n === 0 }),
    h('span', n ? chipsText(n) : t('newgame.stake_free'))));
  const other = h('label.radio', h('input', { type: 'radio', name: 'stake', value: 'custom' }), h('span', t('newgame.custom')), custom);
  const field = h('fieldset', { id: 'ng-stake' }, h('legend', t('newgame.stake')), ...radios, other, h('p.field-help', t('newgame.stake_help')));
  const chooseCustom = () => { /** @type {HTMLInputElement} */ (field.querySelector('input[name=stake][value=custom]')).checked = true; };
  custom.addEventListener('input', chooseCustom);
  custom.addEventListener('pointerdown', chooseCustom);
  const value = () => {
    const checked = /** @type {HTMLInputElement | null} */ (field.querySelector('input[name=stake]:checked'));
    const raw = checked?.value === 'custom' ? custom.value : checked?.value ?? '0';
    const n = Number(raw);
    return Number.isInteger(n) && n >= 0 && n <= STAKE_MAX ? n : null;
  };
  return { field, value };
}

/**
 * The player's own chip history (#/chips), newest first, a page at a time.
 * @extends {PagedScreen<Movement>}
 */
export class ChipsScreen extends PagedScreen {
  /**
   * @param {App} app
   * @param {HTMLElement} root
   */
  constructor(app, root) {
    super(app, root);
    /** The movement id the next page starts before (the server's `next`). @type {number | null} */
    this.next = null;
    this.chips = /** @type {number | null} */ (null);
    this.loadMore();
  }

  /** @override */
  async fetchPage() {
    const me = this.app.me;
    if (!me) return { items: [], more: false };
    const page = await api.ledger(me.nickname, this.items.length ? this.next ?? undefined : undefined);
    this.next = page.next;
    this.chips = page.chips;
    return { items: page.movements, more: page.next !== null };
  }

  /** @param {Movement} m */
  row(m) {
    const when = new Date(m.at).toLocaleString(currentLanguage(), { dateStyle: 'short', timeStyle: 'short' });
    return h('tr', { dataset: { movement: m.id } },
      h('td', when),
      h('td', t(`chips.reason_${m.reason}`)),
      h('td', m.game ? h('a', { href: `#/replay/${m.game}` }, t('chips.game_n', { n: m.game })) : ''),
      h('td.num', { class: m.amount < 0 ? 'lost' : 'won' }, `${m.amount > 0 ? '+' : '−'}${chipsText(Math.abs(m.amount))}`),
      h('td.num', chipsText(m.balance)));
  }

  /** @override */
  render() {
    const content = [];
    if (this.chips !== null) content.push(h('p', { id: 'chips-now' }, t('chips.balance', { n: chipsText(this.chips) })));
    if (this.items.length) {
      content.push(h('div.chip-table-wrap', h('table.chip-table', { id: 'chip-history' },
        h('thead', h('tr', ['when', 'reason', 'game', 'amount', 'after'].map((c) => h('th', t(`chips.col_${c}`))))),
        h('tbody', this.items.map((m) => this.row(m))))));
    }
    this.renderPage({ back: 'chips-back', title: t('chips.history'), content, moreId: 'chips-more', moreText: t('chips.more') });
  }
}
