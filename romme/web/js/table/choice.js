// @ts-check
// A drop that can mean two things: the card laid off at an end of the meld, or
// exchanged for a joker of it (in three rounds the joker must then be laid in a new
// meld). The player chooses; an exchange is never made for them unasked.

import { cardName, cardSVG } from '../cards.js';
import { t } from '../i18n.js';
import { dialog, h } from '../ui.js';

/** @import { Action, Card, Meld } from '../types.js' */

/**
 * What a card dropped on a meld may do there.
 * @typedef {{type: 'lay_off', end: 'low' | 'high' | null} | {type: 'exchange_joker', index: number}} DropChoice
 */

/**
 * The action of a choice, for `send`.
 * @param {Card} card
 * @param {number} meld
 * @param {DropChoice} choice
 * @returns {Action}
 */
export function choiceAction(card, meld, choice) {
  return choice.type === 'lay_off'
    ? { type: 'lay_off', card, meld, end: choice.end }
    : { type: 'exchange_joker', card, meld, index: choice.index };
}

/**
 * Ask where `card` goes on `meld`: one button per choice and Cancel; Escape cancels.
 * @param {{card: Card, meld: Meld, index: number, choices: DropChoice[], jokerToHand: boolean}} drop
 * @param {(choice: DropChoice) => void} onChoose
 */
export function chooseDrop({ card, meld, index, choices, jokerToHand }, onChoose) {
  /** @param {DropChoice} c */
  const label = (c) => {
    if (c.type === 'exchange_joker') return t('table.exchange_label', { card: cardName(card, t) });
    if (c.end === 'low') return t('table.lay_off_low');
    if (c.end === 'high') return t('table.lay_off_high_end');
    return t('table.lay_off_group');
  };
  const exchange = choices.some((c) => c.type === 'exchange_joker');
  const dlg = dialog(t('table.drop_choice', { card: cardName(card, t) }), h('div.drop-choice',
    h('div.drop-choice-meld', { 'aria-hidden': 'true' },
      meld.cards.map((code) => h('span.card.face', { html: cardSVG(code) }))),
    exchange ? h('p.muted', t(jokerToHand ? 'table.joker_to_hand' : 'table.status_joker_pending')) : null,
    h('div.dialog-buttons',
      choices.map((c) => h('button.primary', {
        class: c.type === 'exchange_joker' ? 'exchange' : `lay-off ${c.end ?? 'group'}`,
        dataset: { choice: c.type === 'exchange_joker' ? 'exchange' : `lay_off:${c.end ?? ''}`, meld: index },
        onclick: () => { dlg.close(); onChoose(c); },
      }, label(c))),
      h('button', { onclick: () => dlg.close() }, t('common.cancel')))), { className: 'drop-choice-dialog' });
}
