// @ts-check
// The rematch in the game-over summary: offer it, accept or decline the others'
// offer, and see who is waited for, who declined, that the time ran out or that
// the new table could not start (docs/protocol.md, "Rematch"). When everyone has
// said yes, main.js opens the new table.

import { t } from '../i18n.js';
import { h } from '../ui.js';

/** @import { TableScreen } from './screen.js' */

/**
 * The rematch part of the game-over summary (null for a spectator with nothing to see).
 * @param {TableScreen} screen
 */
export function rematchPart(screen) {
  const { state, app } = screen;
  const table = state.table;
  if (!table) return null;
  const me = table.my_seat;
  const offer = table.rematch ?? null;
  const mine = me !== null && table.seats[me] && !table.seats[me].bot;
  /** @param {boolean} accept */
  const answer = (accept) => app.send({ type: 'rematch', table: table.id, accept });
  /** @param {number[]} seats */
  const names = (seats) => seats.map((s) => state.seatName(s)).join(', ');
  if (offer === null) {
    return mine ? h('button.big', { id: 'summary-rematch', onclick: () => answer(true) }, t('rematch.offer')) : null;
  }
  const note = (/** @type {string} */ text) => h('p.rematch-status', { id: 'rematch-status', role: 'status' }, text);
  if (offer.status === 'declined') return note(t('rematch.declined', { name: names(offer.declined) }));
  if (offer.status === 'expired') return note(t('rematch.expired'));
  if (offer.status === 'failed') return note(t('rematch.failed'));
  if (offer.status === 'accepted') return note(t('rematch.starting'));
  if (me !== null && offer.waiting_for.includes(me)) {
    return h('div.rematch-offer',
      note(t('rematch.offered', { n: offer.accepted.length, names: names(offer.accepted) })),
      h('button.primary', { id: 'rematch-accept', onclick: () => answer(true) }, t('rematch.accept')),
      h('button', { id: 'rematch-decline', onclick: () => answer(false) }, t('rematch.decline')));
  }
  return note(t('rematch.waiting', { n: offer.waiting_for.length, names: names(offer.waiting_for) }));
}
