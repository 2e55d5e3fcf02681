// @ts-check
// The hint: the server's suggestion (the strong level's move) shown on the table,
// the cards and the pile or meld it concerns marked for a few seconds.

import { cardShort } from '../cards.js';
import { t } from '../i18n.js';
import { toast } from '../ui.js';
import { setOrder } from './hand.js';

/** @import { Action, Card } from '../types.js' */
/** @import { TableScreen } from './screen.js' */

/** @param {TableScreen} screen */
export function askHint(screen) {
  const table = screen.state.table;
  if (!screen.state.myTurn || !table) return;
  screen.app.send({ type: 'hint', table: table.id });
}

/**
 * Show the server's `hint`.
 * @param {TableScreen} screen
 * @param {{action: Action | null}} msg
 */
export function showHint(screen, msg) {
  const { state, els } = screen;
  const a = msg.action;
  if (!a) { toast(t('hint.none')); return; }
  let text;
  /** @type {Card[]} */
  let cards = [];
  clearHint(screen);
  switch (a.type) {
    case 'draw':
      text = t(a.source === 'discard' ? 'hint.draw_discard' : 'hint.draw_stock');
      (a.source === 'discard' ? els.discard : els.stock).classList.add('hinted');
      break;
    case 'lay': {
      cards = a.melds.flat();
      text = t('hint.lay', { melds: a.melds.map((m) => m.map(cardShort).join(' ')).join(' · ') });
      // Show it in the hand: the melds side by side (blue lines), "Lay cards" ready.
      const rest = [...state.hand];
      for (const c of cards) {
        const i = rest.indexOf(c);
        if (i >= 0) rest.splice(i, 1);
      }
      if (rest.length + cards.length === state.hand.length) setOrder(screen, [...cards, ...rest]);
      break;
    }
    case 'lay_off':
      cards = [a.card];
      text = t('hint.lay_off', { card: cardShort(a.card), n: a.meld + 1 });
      els.melds.querySelector(`#meld-${a.meld}`)?.classList.add('hinted');
      break;
    case 'exchange_joker':
      cards = [a.card];
      text = t('hint.exchange', { card: cardShort(a.card), n: a.meld + 1 });
      els.melds.querySelector(`#meld-${a.meld}`)?.classList.add('hinted');
      break;
    case 'discard':
      cards = [a.card];
      text = t('hint.discard', { card: cardShort(a.card) });
      break;
    case 'knock':
      text = t('hint.knock');
      break;
    default:
      text = t('hint.none');
  }
  state.hint = { cards };
  for (const el of /** @type {HTMLElement[]} */ ([...els.hand.children])) {
    if (el.dataset.card !== undefined && cards.includes(el.dataset.card)) el.classList.add('hinted');
  }
  toast(text, 'hint', 5000);
  clearTimeout(state.hintTimer);
  state.hintTimer = setTimeout(() => clearHint(screen), 6000);
}

/** @param {TableScreen} screen */
export function clearHint(screen) {
  screen.state.hint = null;
  for (const el of screen.root.querySelectorAll('.hinted')) el.classList.remove('hinted');
}
