// @ts-check
// Movement: every card element has a stable key (data-key); after a render each
// card glides from where it was (FLIP), a new one from the pile or seat it came
// from (an opponent's discard from the seat to the pile, an opponent's melds from
// the seat onto the felt), and a card an opponent drew flies from the pile to that
// seat. All at the speed the player set (settings.js); none with the speed off or
// when the system asks for reduced motion.

import { cardSVG } from '../cards.js';
import { motionFactor } from '../settings.js';
import { h } from '../ui.js';

/** @import { Card, GameEvent } from '../types.js' */
/** @import { TableScreen } from './screen.js' */
/** @typedef {Map<string, {rect: DOMRect, code: string | undefined}>} Rects */

const FLIP_MS = 320;
const FLY_MS = 420;
/** An opponent's melds come one after the other, this far apart. */
const MELD_STAGGER_MS = 90;

/**
 * Stable keys for a list of card codes: the n-th copy of a card keeps its key
 * when other cards come and go.
 * @param {Card[]} list
 * @param {string} prefix
 */
export function keyed(list, prefix) {
  /** @type {Record<string, number>} */
  const seen = {};
  return list.map((code) => {
    seen[code] = (seen[code] || 0) + 1;
    return `${prefix}${code}:${seen[code]}`;
  });
}

/**
 * Where every keyed card is now, before a render.
 * @param {TableScreen} screen
 * @returns {Rects}
 */
export function captureRects(screen) {
  const map = new Map();
  for (const el of screen.root.querySelectorAll('[data-key]')) {
    if (!(el instanceof HTMLElement) || el.dataset.key === undefined) continue;
    map.set(el.dataset.key, { rect: el.getBoundingClientRect(), code: el.dataset.card });
  }
  return map;
}

/**
 * A card flying from a pile to the opponent who drew it (face down from the stock).
 * @param {TableScreen} screen
 * @param {GameEvent[]} events
 * @param {number} speed the duration's factor
 */
function flyToOpponents(screen, events, speed) {
  for (const e of events) {
    if (e.type !== 'drew' || e.seat === screen.state.view?.seat) continue;
    const pile = e.source === 'discard' ? screen.els.discard : screen.els.stock;
    const seat = screen.root.querySelector(`#seat-${e.seat} .mini-fan`) || screen.root.querySelector(`#seat-${e.seat}`);
    if (!seat) continue;
    const from = pile.getBoundingClientRect();
    const to = seat.getBoundingClientRect();
    const fly = h('span.card.flying', { html: cardSVG(e.source === 'discard' ? e.card ?? null : null), 'aria-hidden': 'true' });
    Object.assign(fly.style, { left: `${from.left}px`, top: `${from.top}px`, width: `${from.width}px` });
    document.body.append(fly);
    const dx = to.left + to.width / 2 - (from.left + from.width / 2);
    const dy = to.top + to.height / 2 - (from.top + from.height / 2);
    fly.animate([
      { translate: '0 0', scale: '1', opacity: 1 },
      { translate: `${dx}px ${dy}px`, scale: '0.55', opacity: 0.3 },
    ], { duration: FLY_MS * speed, easing: 'cubic-bezier(.3,.6,.3,1)' }).onfinish = () => fly.remove();
  }
}

/**
 * Move every card from where it was (`before`) to where it is now.
 * @param {TableScreen} screen
 * @param {Rects} before
 * @param {GameEvent[]} events
 */
export function animate(screen, before, events) {
  const speed = motionFactor();
  if (!before.size || !speed) return;
  flyToOpponents(screen, events, speed);
  const after = /** @type {HTMLElement[]} */ ([...screen.root.querySelectorAll('[data-key]')]);
  const keys = new Set(after.map((el) => el.dataset.key));
  const vanished = [];
  for (const [key, info] of before) if (!keys.has(key) && info.code) vanished.push({ ...info, used: false });
  const dealt = events.some((e) => e.type === 'round_started');
  const actor = [...events].reverse().find((e) => typeof e.seat === 'number' && e.type !== 'turn_started')?.seat;
  let dealIndex = 0;
  const oldMelds = meldsBefore(before);
  for (const el of after) {
    if (el.closest('.drag-ghost')) continue;
    const key = el.dataset.key ?? '';
    /** @type {DOMRect | undefined} */
    let from = before.get(key)?.rect;
    let delay = 0;
    if (!from) {
      const match = vanished.find((x) => !x.used && x.code === el.dataset.card);
      if (match) { match.used = true; from = match.rect; }
      else if (key.startsWith('h:')) {
        from = screen.els.stock.getBoundingClientRect();
        if (dealt) delay = 40 * dealIndex++;
      } else if (actor !== undefined && actor !== screen.state.view?.seat) {
        from = screen.root.querySelector(`#seat-${actor}`)?.getBoundingClientRect();
        const meld = Number(el.dataset.meld);
        if (!Number.isNaN(meld)) delay = MELD_STAGGER_MS * speed * Math.max(0, meld - oldMelds);
      }
      if (!from) { el.animate([{ opacity: 0 }, { opacity: 1 }], { duration: 200 * speed }); continue; }
    }
    const to = el.getBoundingClientRect();
    const dx = from.left - to.left;
    const dy = from.top - to.top;
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1 && Math.abs(from.width - to.width) < 1) continue;
    const s = to.width ? from.width / to.width : 1;
    el.animate([
      { translate: `${dx}px ${dy}px`, scale: `${s}` },
      { translate: '0 0', scale: '1' },
    ], { duration: FLIP_MS * speed, delay, easing: 'cubic-bezier(.2,.75,.25,1)', fill: 'backwards' });
  }
}

/**
 * How many melds lay on the table before this render (their cards' keys are m:<index>:...).
 * @param {Rects} before
 */
function meldsBefore(before) {
  let n = 0;
  for (const key of before.keys()) {
    const m = /^m:(\d+):/.exec(key);
    if (m) n = Math.max(n, Number(m[1]) + 1);
  }
  return n;
}

/**
 * The own area flashes when the turn comes.
 * @param {TableScreen} screen
 */
export function flashTurn(screen) {
  const me = screen.els.me;
  me.classList.remove('flash');
  void me.offsetWidth;
  me.classList.add('flash');
}
