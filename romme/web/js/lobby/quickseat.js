// @ts-check
// Quick seat by stake: the waiting tables the player may join, grouped by their
// stake (free games first, then the stakes from low to high), one row a stake with
// how many tables wait and how many seats are free there, and "Sit down", which
// takes a seat at the fullest of them (it starts soonest; the one waiting longest
// on a tie) through the table list's own join. A stake above the player's chips
// shows its row disabled, with the reason. The lobby hands over the tables it lists
// (after its filters) on every change; with none the panel hides, the table list
// under it saying so beside "New game".

import { api } from '../api.js';
import { chipsText, potText } from '../chips.js';
import { t } from '../i18n.js';
import { keyedList } from '../keyed.js';
import { h } from '../ui.js';

/** @import { TableSummary } from '../types.js' */

/**
 * The tables of one stake.
 * @typedef {{stake: number, tables: TableSummary[], seats: number, best: TableSummary}} StakeRow
 */

/** @param {TableSummary} table @returns {number} the table's stake, 0 for a free game */
export function stakeOf(table) { return table.settings.stake ?? 0; }

/**
 * The rows for `tables` (every one a table the player may join): one a stake,
 * cheapest first, each with its fullest table first.
 * @param {TableSummary[]} tables
 * @returns {StakeRow[]}
 */
export function stakeRows(tables) {
  /** @type {Map<number, TableSummary[]>} */
  const byStake = new Map();
  for (const table of tables) {
    const stake = stakeOf(table);
    byStake.set(stake, [...(byStake.get(stake) ?? []), table]);
  }
  const taken = (/** @type {TableSummary} */ x) => x.seats.length - x.free_seats;
  return [...byStake.entries()].sort(([a], [b]) => a - b).map(([stake, list]) => {
    const sorted = [...list].sort((a, b) => a.free_seats - b.free_seats || taken(b) - taken(a) || a.id - b.id);
    return { stake, tables: sorted, seats: sorted.reduce((sum, x) => sum + x.free_seats, 0), best: sorted[0] };
  });
}

/** @param {number} stake @returns {string} the stake as the lobby writes it ("Free", "100 chips") */
function stakeText(stake) { return stake ? t('chips.balance', { n: chipsText(stake) }) : t('quickseat.free'); }

/**
 * The panel, to place in the lobby, and `render`, to call with the tables the
 * player may join whenever the lobby's list changes. The player's chips come from
 * the server when the panel is made (the lobby is made anew after each game).
 * @param {(table: TableSummary) => void} join the table list's join
 * @returns {{element: HTMLElement, render: (tables: TableSummary[]) => void}}
 */
export function quickSeatPanel(join) {
  /** The player's chips; null until known (then no row is held back: the server judges). */
  let chips = /** @type {number | null} */ (null);
  /** @type {TableSummary[]} */
  let last = [];
  const list = h('ul.quick-seat-rows', { id: 'quick-seat-rows' });
  const element = h('section.quick-seat', { id: 'quick-seat', 'aria-labelledby': 'quick-seat-h', hidden: true, 'aria-busy': 'true' },
    h('h3', { id: 'quick-seat-h', 'data-i18n': 'quickseat.title' }), list);
  const render = (/** @type {TableSummary[]} */ tables) => {
    last = tables;
    const rows = stakeRows(tables);
    element.hidden = !rows.length;
    const lang = document.documentElement.lang;
    keyedList(list, rows, (row) => String(row.stake),
      (row) => JSON.stringify([row.tables.length, row.seats, row.best.id, chips, lang]),
      (row) => stakeRow(row, chips, join));
  };
  api.bonus().then((state) => { chips = state.chips; }, () => { /* unknown: the server judges each join */ })
    .finally(() => { element.removeAttribute('aria-busy'); render(last); });
  return { element, render };
}

/**
 * One stake's row.
 * @param {StakeRow} row
 * @param {number | null} chips the player's chips, if known
 * @param {(table: TableSummary) => void} join
 */
function stakeRow(row, chips, join) {
  const short = chips !== null && row.stake > chips;
  const why = short ? t('quickseat.too_high', { balance: t('chips.balance', { n: chipsText(chips ?? 0) }) }) : null;
  const stake = stakeText(row.stake);
  return h('li.quick-seat-row', { class: short ? 'short' : '', dataset: { stake: row.stake }, title: why ?? undefined },
    h('span.quick-seat-coin', { class: row.stake ? '' : 'free', 'aria-hidden': 'true' }),
    h('strong.quick-seat-stake', stake),
    // Two halves that keep together: a narrow row breaks between them only.
    h('span.quick-seat-meta', h('span', `${t('quickseat.tables', { n: row.tables.length })} ·`), ' ', h('span', t('lobby.free_seats', { n: row.seats }))),
    why ? h('small.quick-seat-why', why) : null,
    h('button.quick-seat-sit', {
      type: 'button', disabled: short, dataset: { sit: row.stake },
      'aria-label': t('quickseat.sit_label', { stake }),
      title: why ?? potText(row.best) ?? undefined,
      onclick: () => join(row.best),
    }, t('quickseat.sit')));
}
