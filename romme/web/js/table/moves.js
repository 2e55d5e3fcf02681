// @ts-check
// The player's moves: draw, discard, lay, lay off, exchange a joker, knock; and
// where a dragged or picked card may go (the discard pile, meld ends, jokers).

import { cardName, isJoker } from '../cards.js';
import { t } from '../i18n.js';
import { exchangePositions, layOffEnds, targetsFor } from '../preview.js';
import { toast } from '../ui.js';
import { renderPiles } from './board.js';
import { renderHand } from './hand.js';
import { clearHint } from './hint.js';
import { chooseDrop, choiceAction } from './choice.js';

/** @import { Card } from '../types.js' */
/** @import { TableScreen } from './screen.js' */
/** @import { DropChoice } from './choice.js' */
/** @typedef {{drop?: string, meld?: string, end?: string, pos?: string}} DropData a drop target's data attributes */

/**
 * @param {TableScreen} screen
 * @param {'stock' | 'discard'} source
 */
export function draw(screen, source) {
  const state = screen.state;
  const v = state.view;
  if (state.picked && source === 'discard' && state.discardTargetActive) {
    dropOn(screen, state.picked.code, screen.els.discard);
    return;
  }
  if (!v || !state.myTurn || v.phase !== 'draw' || state.busy) return;
  if (source === 'discard' && !v.discard_top) return;
  clearHint(screen);
  screen.send({ type: 'draw', source });
}

/**
 * A click or Enter on a hand card: discard it (or say why not).
 * @param {TableScreen} screen
 * @param {number} index
 * @param {string} how 'pointer' or 'keyboard'
 */
export function tapCard(screen, index, how) {
  const state = screen.state;
  const v = state.view;
  const code = state.hand[index];
  if (!v || code === undefined || state.busy) return;
  if (!state.myTurn) { nudge(screen, index, t('table.not_your_turn')); return; }
  if (v.phase === 'draw') { nudge(screen, index, t('table.draw_first')); return; }
  if (isJoker(code)) { nudge(screen, index, t(how === 'keyboard' ? 'table.joker_keyboard' : 'table.joker_drag')); return; }
  discard(screen, code);
}

/**
 * The card shakes and a toast says why nothing happened.
 * @param {TableScreen} screen
 * @param {number} index
 * @param {string} text
 */
function nudge(screen, index, text) {
  const el = screen.els.hand.querySelector(`[data-index="${index}"]`);
  if (el instanceof HTMLElement) { el.classList.remove('shake'); void el.offsetWidth; el.classList.add('shake'); }
  toast(text, 'info', 2200);
}

/**
 * @param {TableScreen} screen
 * @param {Card} code
 */
export function discard(screen, code) {
  clearHint(screen);
  screen.state.picked = null;
  screen.send({ type: 'discard', card: code });
}

/**
 * Lay the melds the hand shows side by side.
 * @param {TableScreen} screen
 */
export function layCards(screen) {
  const { chosen, hand } = screen.state;
  if (!chosen.length) return;
  clearHint(screen);
  screen.send({ type: 'lay', melds: chosen.map((s) => hand.slice(s.from, s.to)) });
}

/** @param {TableScreen} screen */
export function knock(screen) { screen.send({ type: 'knock' }); }

/**
 * Show where `code` may go: the discard pile, meld ends (blue arrows), jokers.
 * @param {TableScreen} screen
 * @param {Card | null | undefined} code
 * @param {boolean} on false: hide every target
 */
export function showTargets(screen, code, on) {
  const { state, els, root } = screen;
  const v = state.view;
  for (const el of root.querySelectorAll('[data-drop]')) { el.removeAttribute('data-drop'); el.classList.remove('target', 'drop-over'); }
  for (const el of root.querySelectorAll('.meld-arrow')) /** @type {HTMLElement} */ (el).hidden = true;
  state.discardTargetActive = false;
  if (!on || !code || !v) { if (v) renderPiles(screen); return; }
  const play = state.myTurn && v.phase === 'play';
  if (!play) return;
  state.discardTargetActive = true;
  const pile = els.discard;
  pile.dataset.drop = 'discard';
  pile.disabled = false;
  pile.classList.add('target');
  const targets = targetsFor(code, v);
  for (const { meld, end } of targets.ends) {
    const box = els.melds.querySelector(`#meld-${meld}`);
    if (!(box instanceof HTMLElement)) continue;
    box.dataset.drop = 'meld';
    box.classList.add('target');
    const arrow = box.querySelector(end === 'low' ? '.meld-arrow.low' : '.meld-arrow.high');
    if (!(arrow instanceof HTMLElement)) continue;
    arrow.hidden = false;
    arrow.dataset.drop = 'end';
  }
  for (const { meld, index } of targets.jokers) {
    const card = els.melds.querySelector(`#meld-${meld} [data-pos="${index}"]`);
    // The whole meld takes the card too (the joker alone is a narrow strip on a phone).
    const box = els.melds.querySelector(`#meld-${meld}`);
    if (!(card instanceof HTMLElement) || !(box instanceof HTMLElement)) continue;
    box.dataset.drop = 'meld';
    box.classList.add('target');
    card.dataset.drop = 'joker';
    card.classList.add('target');
    card.tabIndex = 0;
    card.setAttribute('role', 'button');
    card.setAttribute('aria-label', t('table.exchange_label', { card: cardName(code, t) }));
    card.onkeydown = (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); dropOn(screen, code, card); } };
    card.onclick = () => { if (state.picked) dropOn(screen, code, card); };
  }
}

/**
 * Play `code` onto a drop target, given by its data attributes (or the element).
 * @param {TableScreen} screen
 * @param {Card | null | undefined} code
 * @param {HTMLElement | DropData | null | undefined} target
 */
export function dropOn(screen, code, target) {
  const state = screen.state;
  const v = state.view;
  if (!code || !target || !v || v.seat === null) return;
  /** @type {DropData} */
  const data = target instanceof HTMLElement ? { ...target.dataset } : target;
  const kind = data.drop;
  state.picked = null;
  showTargets(screen, null, false);
  if (kind === 'discard') { discard(screen, code); return; }
  const meld = Number(data.meld);
  const laid = v.melds[meld];
  if (kind === 'end') {
    const end = data.end === 'low' || data.end === 'high' ? data.end : null;
    screen.send({ type: 'lay_off', card: code, meld, end });
  } else if ((kind === 'meld' || kind === 'joker') && laid) {
    // On a meld's body or on one of its jokers: what the card may do there. A drop
    // that can mean two things, or an exchange the player did not aim at the joker
    // itself, asks; the arrows and the joker are the direct ways.
    const at = kind === 'joker' ? Number(data.pos) : null;
    const jokers = v.opened[v.seat] ? exchangePositions(laid, code) : [];
    /** @type {DropChoice[]} */
    const choices = [
      ...layOffEnds(laid, code, v.rules).map((end) => /** @type {DropChoice} */ ({ type: 'lay_off', end })),
      ...jokers.filter((i) => at === null || i === at).slice(0, 1).map((index) => /** @type {DropChoice} */ ({ type: 'exchange_joker', index })),
    ];
    if (!choices.length) return;
    if (choices.length === 1 && (choices[0].type === 'lay_off' || at !== null)) {
      screen.send(choiceAction(code, meld, choices[0]));
    } else {
      chooseDrop({ card: code, meld: laid, index: meld, choices, jokerToHand: v.rules.joker_exchange_to_hand !== false },
        (choice) => { clearHint(screen); screen.send(choiceAction(code, meld, choice)); });
    }
  }
  clearHint(screen);
  renderHand(screen);
}
