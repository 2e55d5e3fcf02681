// @ts-check
// The keyboard: arrows move the focus in the hand (with Shift or Alt they move the
// card), Space picks a card up to play it onto a target, M leaves the focused
// card's meld out of "Lay cards", letters for the moves.

import { cardName } from '../cards.js';
import { t } from '../i18n.js';
import { dialog, h, toast } from '../ui.js';
import { renderHand, reorder, toggleMeld } from './hand.js';
import { askHint } from './hint.js';
import { draw, knock, layCards, showTargets } from './moves.js';

/** @import { TableScreen } from './screen.js' */

export const KEY_HELP = ['keys.draw', 'keys.take_discard', 'keys.move_focus', 'keys.move_card', 'keys.discard', 'keys.pick', 'keys.lay', 'keys.leave_out', 'keys.knock', 'keys.hint'];

/**
 * A key on a hand card.
 * @param {TableScreen} screen
 * @param {KeyboardEvent} e
 */
export function handKey(screen, e) {
  const state = screen.state;
  const el = e.target instanceof HTMLElement ? e.target.closest('[data-index]') : null;
  if (!(el instanceof HTMLElement)) return;
  const i = Number(el.dataset.index);
  const last = state.hand.length - 1;
  /** @param {number} j */
  const focus = (j) => {
    const card = screen.els.hand.querySelector(`[data-index="${Math.max(0, Math.min(last, j))}"]`);
    if (card instanceof HTMLElement) card.focus();
  };
  if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
    e.preventDefault();
    const d = e.key === 'ArrowLeft' ? -1 : 1;
    if (e.shiftKey || e.altKey) {
      const to = i + d;
      if (to < 0 || to > last) return;
      reorder(screen, i, to);
      focus(to);
    } else focus(i + d);
  } else if (e.key === 'Home') { e.preventDefault(); focus(0); }
  else if (e.key === 'End') { e.preventDefault(); focus(last); }
  else if (e.key === ' ') {
    e.preventDefault();
    pick(screen, i);
  } else if (e.key.toLowerCase() === 'm' && !e.ctrlKey && !e.metaKey && !e.altKey) {
    // The meld of the focused card is left out of "Lay cards" (or put back).
    const seg = state.segments.find((s) => i >= s.from && i < s.to);
    if (seg?.key) { e.preventDefault(); toggleMeld(screen, seg.key); }
  } else if (e.key === 'Escape' && state.picked) {
    state.picked = null;
    showTargets(screen, null, false);
    renderHand(screen);
  }
}

/**
 * Pick the card at `i` up (or put it back): its targets light up.
 * @param {TableScreen} screen
 * @param {number} i
 */
function pick(screen, i) {
  const state = screen.state;
  const hand = screen.els.hand;
  const key = /** @type {HTMLElement | null} */ (hand.querySelector(`[data-index="${i}"]`))?.dataset.key;
  if (key === undefined || state.picked?.key === key) {
    state.picked = null;
    showTargets(screen, null, false);
  } else {
    state.picked = { key, code: state.hand[i] };
    showTargets(screen, state.hand[i], true);
    toast(t('table.picked', { card: cardName(state.hand[i], t) }), 'info', 2500);
  }
  for (const el of /** @type {HTMLElement[]} */ ([...hand.children])) {
    el.classList.toggle('picked', el.dataset.key === state.picked?.key);
    el.setAttribute('aria-pressed', String(el.dataset.key === state.picked?.key));
  }
}

/**
 * The letters anywhere on the screen (not while typing, nor under a dialog).
 * @param {TableScreen} screen
 * @param {KeyboardEvent} e
 */
export function globalKey(screen, e) {
  if (e.target instanceof Element && e.target.closest('input, textarea, select')) return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (document.querySelector('.backdrop')) return;
  if (e.key === 'Tab' && screen.state.picked && tabAmongTargets(screen, e.shiftKey)) { e.preventDefault(); return; }
  const els = screen.els;
  const k = e.key.toLowerCase();
  if (k === 's' && !e.shiftKey) draw(screen, 'stock');
  else if (k === 'd') draw(screen, 'discard');
  else if (k === 'l' && !els.lay.disabled && !els.lay.hidden) layCards(screen);
  else if (k === 'k' && !els.knock.hidden) knock(screen);
  else if (k === 'h') askHint(screen);
  else if (k === '?') keysDialog();
  else return;
  e.preventDefault();
}

/**
 * With a card picked up, Tab goes round the card and the places it may go (the blue
 * arrows, the jokers it replaces, the discard pile), not through the whole page.
 * @param {TableScreen} screen
 * @param {boolean} back Shift+Tab
 * @returns {boolean} the focus moved
 */
function tabAmongTargets(screen, back) {
  const { root, els, state } = screen;
  const card = els.hand.querySelector(`[data-key="${CSS.escape(state.picked?.key ?? '')}"]`);
  const targets = /** @type {HTMLElement[]} */ ([...root.querySelectorAll('#melds .meld-arrow[data-drop]:not([hidden]), #melds .card[data-drop="joker"]'),
    ...(els.discard.dataset.drop ? [els.discard] : [])]);
  if (!(card instanceof HTMLElement) || !targets.length) return false;
  const ring = [card, ...targets];
  const at = ring.indexOf(/** @type {HTMLElement} */ (document.activeElement));
  const next = ring[(at < 0 ? (back ? ring.length - 1 : 1) : at + (back ? -1 : 1) + ring.length) % ring.length];
  next.focus();
  return true;
}

/** The list of keys. */
export function keysDialog() {
  const dlg = dialog(t('keys.title'), h('div', h('ul.keys', KEY_HELP.map((r) => h('li', t(r)))),
    h('div.dialog-buttons', h('button', { onclick: () => dlg.close() }, t('common.close')))));
}
