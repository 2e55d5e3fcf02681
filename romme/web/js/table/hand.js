// @ts-check
// The own hand: kept in the player's order (sent with `arrange`), shown as a fan
// with the melds it holds marked, rearranged by dragging, keys or the sort buttons.

import { cardName, cardSVG, isJoker } from '../cards.js';
import { t } from '../i18n.js';
import { handMelds, sortByRank, sortBySuit } from '../preview.js';
import { clear, h } from '../ui.js';
import { animate, captureRects, keyed } from './anim.js';
import { renderControls } from './controls.js';

/** @import { Card } from '../types.js' */
/** @import { TableScreen } from './screen.js' */
/** @import { Segment } from './state.js' */

/**
 * The same cards, in any order.
 * @param {Card[]} a
 * @param {Card[]} b
 */
function sameCards(a, b) {
  if (a.length !== b.length) return false;
  return [...a].sort().join() === [...b].sort().join();
}

/**
 * Take the hand from the view, unless an order the player chose is on its way.
 * @param {TableScreen} screen
 */
export function syncHand(screen) {
  const state = screen.state;
  const v = state.view;
  const hand = v && v.seat !== null ? v.hand : [];
  if (state.pendingOrder) {
    if (sameCards(state.pendingOrder, hand)) {
      if (state.pendingOrder.join() === hand.join()) state.pendingOrder = null;
      else { state.hand = [...state.pendingOrder]; return; }
    } else {
      state.pendingOrder = null;
    }
  }
  state.hand = [...hand];
}

/** @param {TableScreen} screen */
export function renderHand(screen) {
  const state = screen.state;
  const v = state.view;
  if (!v) return;
  const box = screen.els.hand;
  const keys = keyed(state.hand, 'h:');
  const segments = /** @type {Segment[]} */ (handMelds(state.hand, v.rules));
  // A meld is known by its cards' keys: one the player left out stays out while it lasts.
  for (const seg of segments) seg.key = keys.slice(seg.from, seg.to).join('|');
  state.segments = segments;
  state.leftOut = new Set([...state.leftOut].filter((key) => segments.some((s) => s.key === key)));
  /** @type {Map<number, {first: boolean, last: boolean, key: string}>} */
  const inMeld = new Map();
  for (const seg of segments) {
    for (let i = seg.from; i < seg.to; i += 1) inMeld.set(i, { first: i === seg.from, last: i === seg.to - 1, key: seg.key ?? '' });
  }
  const active = document.activeElement;
  const focused = active instanceof HTMLElement && box.contains(active) ? active.dataset.key : null;
  const focusedAt = focused ? Number(/** @type {HTMLElement} */ (active).dataset.index) : -1;
  clear(box);
  state.hand.forEach((code, i) => {
    const m = inMeld.get(i);
    const el = h('button.card.face.hand-card', {
      html: cardSVG(code),
      type: 'button',
      id: `hand-${i}`,
      dataset: { index: i, key: keys[i], card: code },
      class: `${m ? 'in-meld' : ''} ${m?.first ? 'meld-first' : ''} ${m?.last ? 'meld-last' : ''} ${isJoker(code) ? 'joker' : ''}`,
      'aria-label': cardName(code, t) + (m ? `, ${t('table.in_meld')}` : ''),
      'aria-pressed': state.picked?.key === keys[i] ? 'true' : 'false',
    });
    if (m) {
      const out = state.leftOut.has(m.key);
      el.append(h('span.meld-line', { class: out ? 'out' : '', dataset: { meld: m.key }, 'aria-hidden': 'true',
        title: t(out ? 'table.meld_put_back' : 'table.meld_leave_out') }));
    }
    if (state.picked?.key === keys[i]) el.classList.add('picked');
    if (state.hint?.cards?.includes(code)) el.classList.add('hinted');
    box.append(el);
  });
  if (state.picked && !keys.includes(state.picked.key)) state.picked = null;
  layoutHand(screen);
  if (focused) {
    // The focused card stays focused; if it left the hand (laid with L, discarded), the
    // card now at its place takes the focus, so that the keyboard goes on from there.
    const again = box.querySelector(`[data-key="${focused}"]`)
      ?? box.querySelector(`[data-index="${Math.min(focusedAt, state.hand.length - 1)}"]`);
    if (again instanceof HTMLElement) again.focus();
  }
}

/** Below this width a long hand is laid in two rows, so that its cards stay readable. */
const TWO_ROWS_BELOW = 600;
/** The cards' top edge in the hand box (room for a hovered card to rise). */
const TOP = 14;

/**
 * Place the cards as a fan (two fans one above the other on a narrow screen),
 * and make the hand box tall enough for the turned outer cards, so that nothing
 * below it (the name plate) covers them; `gap` ({from, to}) previews a drag's
 * landing place.
 * @param {TableScreen} screen
 * @param {{from: number, to: number} | null} [gap]
 */
export function layoutHand(screen, gap = null) {
  const box = screen.els.hand;
  const cards = /** @type {HTMLElement[]} */ ([...box.children]);
  const n = cards.length;
  if (!n) return;
  const width = box.clientWidth;
  const cw = cards[0].offsetWidth || 80;
  const ch = cw * 1.4;
  // (Not on a phone held sideways: its height is too short for two rows.)
  const rows = width < TWO_ROWS_BELOW && n > 8 && window.innerHeight > 500 ? 2 : 1;
  const perRow = Math.ceil(n / rows);
  const mid = (perRow - 1) / 2;
  const angle = Math.min(2.6, (width < 500 ? 18 : 26) / perRow);
  const rad = (angle * mid * Math.PI) / 180;
  // The outermost cards turn about a point below them: leave room for their swing.
  const swing = 1.96 * cw * Math.sin(rad);
  const step = perRow > 1 ? Math.max(4, Math.min(cw * 0.62, (width - cw - 2 * swing - 4) / (perRow - 1))) : 0;
  const total = cw + step * (perRow - 1);
  const left0 = (width - total) / 2;
  // A second row covers the lower part of the first; the top corners stay in view.
  const rowStep = rows > 1 ? ch * 0.56 : 0;
  const liftOf = (/** @type {number} */ off) => off * off * 0.9 * (cw / 90);
  // How far the outermost card's lower corner comes below its place.
  const drop = liftOf(mid) + (cw / 2) * Math.sin(rad) + 0.4 * ch * (1 - Math.cos(rad));
  box.style.height = `${Math.ceil(TOP + rowStep * (rows - 1) + ch + drop + 4)}px`;
  // With a gap, the dragged card is taken out and the others close ranks around `to`.
  const slots = cards.map((_, i) => i);
  if (gap) {
    const order = cards.map((_, i) => i).filter((i) => i !== gap.from);
    order.splice(gap.to, 0, gap.from);
    order.forEach((cardIndex, slot) => { slots[cardIndex] = slot; });
  }
  screen.state.fan = { left0, step, cw, n, perRow, rowStep, rect: box.getBoundingClientRect() };
  box.style.setProperty('--step', `${step}px`);
  cards.forEach((el, i) => {
    const slot = slots[i];
    const row = Math.floor(slot / perRow);
    const col = slot - row * perRow;
    const off = col - mid;
    el.style.left = `${left0 + col * step}px`;
    el.style.top = `${TOP + row * rowStep}px`;
    el.style.zIndex = String(slot + 1);
    el.style.setProperty('--rot', `${off * angle}deg`);
    el.style.setProperty('--lift', `${liftOf(off)}px`);
  });
}

/**
 * The place in the fan under the pointer at (x, y), or null away from the hand.
 * @param {TableScreen} screen
 * @param {number} x
 * @param {number} y
 */
export function insertionIndex(screen, x, y) {
  const f = screen.state.fan;
  if (!f) return null;
  const r = screen.els.hand.getBoundingClientRect();
  if (y < r.top - 60 || y > r.bottom + 40 || x < r.left - 40 || x > r.right + 40) return null;
  const row = f.rowStep && y > r.top + TOP + f.rowStep ? 1 : 0;
  const col = Math.max(0, Math.min(f.perRow - 1, Math.round((x - r.left - f.left0 - f.cw / 2) / (f.step || 1))));
  return Math.max(0, Math.min(f.n - 1, row * f.perRow + col));
}

/**
 * Move the card at `from` to the place `to`.
 * @param {TableScreen} screen
 * @param {number} from
 * @param {number} to
 */
export function reorder(screen, from, to) {
  if (from === to) { layoutHand(screen); return; }
  const order = [...screen.state.hand];
  const [card] = order.splice(from, 1);
  order.splice(to, 0, card);
  setOrder(screen, order);
}

/**
 * Show the hand in `order` at once and tell the server (`arrange`).
 * @param {TableScreen} screen
 * @param {Card[]} order
 */
export function setOrder(screen, order) {
  const state = screen.state;
  const before = captureRects(screen);
  state.hand = order;
  state.pendingOrder = [...order];
  renderHand(screen);
  renderControls(screen);
  animate(screen, before, []);
  screen.send({ type: 'arrange', cards: order });
}

/**
 * @param {TableScreen} screen
 * @param {'suit' | 'rank'} how
 */
export function sortHand(screen, how) {
  if (!screen.state.view) return;
  const hand = screen.state.hand;
  setOrder(screen, how === 'suit' ? sortBySuit(hand) : sortByRank(hand));
}

/**
 * The meld whose blue line was pressed is left out of "Lay cards", or put back.
 * @param {TableScreen} screen
 * @param {string} key the meld's cards' keys
 */
export function toggleMeld(screen, key) {
  const out = screen.state.leftOut;
  if (out.has(key)) out.delete(key); else out.add(key);
  renderHand(screen);
  renderControls(screen);
}
