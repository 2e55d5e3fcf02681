// @ts-check
// Tables of results shared by the table and the replay: the score sheet of every
// round (each seat's penalty points per round, then the totals or scores) and one
// round's summary (the cards each seat was left with, the penalty, the total).

import { cardName, cardSVG } from '../cards.js';
import { t } from '../i18n.js';
import { h } from '../ui.js';
import { scoreNumber } from '../table/state.js';

/** @import { RoundResult } from '../types.js' */

/**
 * The score sheet of these rounds: one row per round, one column per seat.
 * @param {RoundResult[]} results at least one
 * @param {number} seats
 * @param {(seat: number) => string} seatName
 * @param {boolean} rounds scored by rounds (scores shown negative)
 * @returns {HTMLTableElement}
 */
export function sheetTable(results, seats, seatName, rounds) {
  const columns = [...Array(seats).keys()];
  const last = results[results.length - 1];
  return /** @type {HTMLTableElement} */ (h('table.summary-table.sheet-table',
    h('thead', h('tr', h('th', t('sheet.round')), columns.map((s) => h('th.num', { scope: 'col' }, seatName(s))))),
    h('tbody', results.map((r) => h('tr', h('th', { scope: 'row' }, String(r.round_no)),
      columns.map((s) => h('td.num', { class: r.winner === s ? 'winner' : '' }, String(r.penalties[s])))))),
    h('tfoot', h('tr', h('th', { scope: 'row' }, t(rounds ? 'summary.score' : 'summary.total')),
      columns.map((s) => h('td.num.total', scoreNumber(last.totals[s], rounds)))))));
}

/**
 * How a round ended, in one sentence.
 * @param {RoundResult} result
 * @param {(seat: number) => string} seatName
 * @param {number} stallTurns the rules' stall_turns
 * @returns {string}
 */
export function roundOutcome(result, seatName, stallTurns) {
  if (result.winner === null && result.ended === 'stall') return t('summary.stalled', { n: stallTurns });
  if (result.winner === null) return t('summary.no_winner');
  if (result.hand_rummy) return t('summary.hand_rummy', { name: seatName(result.winner) });
  return t('summary.winner', { name: seatName(result.winner) });
}

/**
 * One round's summary: each seat's cards left, penalty and total.
 * @param {RoundResult} result
 * @param {number} seats
 * @param {(seat: number) => string} seatName
 * @param {boolean} rounds scored by rounds
 * @returns {HTMLTableElement}
 */
export function roundTable(result, seats, seatName, rounds) {
  const rows = [...Array(seats).keys()].map((s) => h('tr', { class: result.winner === s ? 'winner' : '' },
    h('th', { scope: 'row' }, h('span.name', seatName(s), result.winner === s ? h('span.badge.win', t('summary.went_out')) : null)),
    h('td', h('div.summary-cards', (result.hands[s] || []).map((c) => h('span.card.face.mini', { html: cardSVG(c), role: 'img', 'aria-label': cardName(c, t) })))),
    h('td.num', String(result.penalties[s])),
    h('td.num.total', scoreNumber(result.totals[s], rounds))));
  return /** @type {HTMLTableElement} */ (h('table.summary-table',
    h('thead', h('tr', h('th', t('summary.player')), h('th', t('summary.cards_left')), h('th.num', t('summary.penalty')),
      h('th.num', t(rounds ? 'summary.score' : 'summary.total')))),
    h('tbody', rows)));
}
