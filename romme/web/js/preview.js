// @ts-check
// A preview of the meld rules of docs/rules.md, for highlighting only: which
// cards in the hand form melds, which meld ends a dragged card fits, which
// jokers it can replace, whether the hand can open. The server decides; this
// module never blocks an action the server might allow, it only marks.
//
// `rules` is view.rules (min_natural_cards, max_jokers_per_meld,
// opening_points, opening_single_meld, must_discard_to_go_out).

/** @import { Card, Meld, Rules, View } from './types.js' */

/**
 * A meld with its suit (null for a group), as this module works with it.
 * @typedef {Meld & {suit: string | null}} SuitedMeld
 */

/**
 * Cards of the hand, `from` to `to` (exclusive), that form `meld` worth `value`.
 * @typedef {{from: number, to: number, meld: SuitedMeld, value: number}} HandMeld
 */

const RANKS = 'A23456789TJQK';

/** @param {Card} code @returns {number} 1 (ace) to 13 (king); 0 for the joker */
export function rankOf(code) { return code === 'XX' ? 0 : RANKS.indexOf(code[0]) + 1; }
/** @param {Card} code @returns {string | null} */
export function suitOf(code) { return code === 'XX' ? null : code[1]; }
/** @param {Card} code */
const isJoker = (code) => code === 'XX';
/** @type {(code: Card, pos: number) => boolean} */
const matchesPosition = (code, pos) => {
  const r = rankOf(code);
  return r === pos || (r === 1 && pos === 14);
};

/**
 * Opening value of the card at a sequence position 1..14.
 * @param {number} pos
 */
export function positionValue(pos) {
  if (pos === 1) return 1;
  if (pos === 14) return 11;
  return pos >= 10 ? 10 : pos;
}
/** @type {(rank: number) => number} */
const groupRankValue = (rank) => (rank === 1 ? 11 : rank >= 10 ? 10 : rank);

/**
 * Why these cards cannot be a meld in any order (a short reason), or null.
 * @param {Card[]} cards
 * @param {Partial<Rules>} rules
 */
function basicReason(cards, rules) {
  if (cards.length < 3) return 'short';
  const naturals = cards.filter((c) => !isJoker(c));
  const jokers = cards.length - naturals.length;
  if (naturals.length < (rules.min_natural_cards ?? 2)) return 'naturals';
  if (rules.max_jokers_per_meld != null && jokers > rules.max_jokers_per_meld) return 'jokers';
  const ranks = new Set(naturals.map(rankOf));
  if (ranks.size === 1) {
    if (cards.length > 4) return 'group_size';
    const suits = naturals.map(suitOf);
    if (new Set(suits).size !== suits.length) return 'group_twice';
    return null;
  }
  if (new Set(naturals.map(suitOf)).size > 1) return 'suits';
  if (cards.length > 13) return 'long';
  return null;
}

/**
 * @param {Card[]} cards
 * @returns {SuitedMeld | null}
 */
function sequenceFrom(cards) {
  const index = cards.findIndex((c) => !isJoker(c));
  const first = cards[index];
  const starts = [rankOf(first) - index];
  if (rankOf(first) === 1) starts.push(14 - index);
  for (const start of starts) {
    if (start < 1 || start + cards.length - 1 > 14) continue;
    if (cards.every((c, i) => isJoker(c) || matchesPosition(c, start + i))) {
      return { kind: 'sequence', cards: [...cards], start, suit: suitOf(first) };
    }
  }
  return null;
}

/**
 * The meld these cards form in this order (a sequence also high to low), or null.
 * @param {Card[]} cards
 * @param {Partial<Rules>} rules
 * @returns {SuitedMeld | null}
 */
export function parseMeld(cards, rules) {
  if (basicReason(cards, rules)) return null;
  const naturals = cards.filter((c) => !isJoker(c));
  if (new Set(naturals.map(rankOf)).size === 1) {
    return { kind: 'group', cards: [...cards], start: rankOf(naturals[0]), suit: null };
  }
  return sequenceFrom(cards) || sequenceFrom([...cards].reverse());
}

/**
 * Like parseMeld, but natural cards of a joker-free sequence may come in any order.
 * @param {Card[]} cards
 * @param {Partial<Rules>} rules
 */
export function checkMeld(cards, rules) {
  const meld = parseMeld(cards, rules);
  if (meld || cards.some(isJoker)) return meld;
  for (const aceRank of [1, 14]) {
    const key = (/** @type {Card} */ c) => (rankOf(c) === 1 ? aceRank : rankOf(c));
    const sorted = [...cards].sort((a, b) => key(a) - key(b));
    const m = parseMeld(sorted, rules);
    if (m) return m;
  }
  return null;
}

/**
 * A meld from the view's JSON ({kind, cards, start}) with its suit.
 * @param {Meld} meld
 * @returns {SuitedMeld}
 */
export function fromView(meld) {
  const natural = meld.cards.find((c) => !isJoker(c));
  const suit = meld.kind === 'sequence' && natural ? suitOf(natural) : null;
  return { kind: meld.kind, cards: meld.cards, start: meld.start, suit };
}

/**
 * The opening value of a meld.
 * @param {Meld} meld
 */
export function meldValue(meld) {
  if (meld.kind === 'group') return groupRankValue(meld.start) * meld.cards.length;
  let sum = 0;
  for (let p = meld.start; p < meld.start + meld.cards.length; p += 1) sum += positionValue(p);
  return sum;
}

/**
 * The suits a group may still take.
 * @param {Meld} meld
 * @returns {(string | null)[]}
 */
function openSuits(meld) {
  const taken = new Set(meld.cards.filter((c) => !isJoker(c)).map(suitOf));
  return ['C', 'D', 'H', 'S'].filter((s) => !taken.has(s));
}

/**
 * Where a card fits a table meld: [] or some of 'low', 'high', or [null] for a group.
 * @param {Meld | SuitedMeld} meld
 * @param {Card} card
 * @param {Partial<Rules>} rules
 * @returns {('low' | 'high' | null)[]}
 */
export function layOffEnds(meld, card, rules) {
  const m = 'suit' in meld ? meld : fromView(meld);
  const jokers = m.cards.filter(isJoker).length;
  if (isJoker(card) && rules.max_jokers_per_meld != null && jokers >= rules.max_jokers_per_meld) return [];
  if (m.kind === 'group') {
    if (m.cards.length >= 4) return [];
    if (isJoker(card) || (rankOf(card) === m.start && openSuits(m).includes(suitOf(card)))) return [null];
    return [];
  }
  if (m.cards.length >= 13) return [];
  const end = m.start + m.cards.length - 1;
  /** @type {('low' | 'high')[]} */
  const ends = [];
  if (m.start > 1 && (isJoker(card) || (suitOf(card) === m.suit && matchesPosition(card, m.start - 1)))) ends.push('low');
  if (end < 14 && (isJoker(card) || (suitOf(card) === m.suit && matchesPosition(card, end + 1)))) ends.push('high');
  return ends;
}

/**
 * Indices of the jokers in a table meld that a natural card can replace.
 * @param {Meld | SuitedMeld} meld
 * @param {Card} card
 * @returns {number[]}
 */
export function exchangePositions(meld, card) {
  if (isJoker(card)) return [];
  const m = 'suit' in meld ? meld : fromView(meld);
  /** @type {number[]} */
  const found = [];
  m.cards.forEach((c, i) => {
    if (!isJoker(c)) return;
    if (m.kind === 'sequence') {
      if (suitOf(card) === m.suit && matchesPosition(card, m.start + i)) found.push(i);
    } else if (rankOf(card) === m.start && openSuits(m).includes(suitOf(card))) {
      found.push(i);
    }
  });
  return found;
}

/**
 * The melds the hand shows in its current order: runs of neighbouring cards
 * that form a meld, chosen to cover as many cards (then as many points) as
 * possible. Returns [{from, to, meld, value}] with `to` exclusive.
 * @param {Card[]} hand
 * @param {Partial<Rules>} rules
 * @returns {HandMeld[]}
 */
export function handMelds(hand, rules) {
  const n = hand.length;
  // best[i] = [cardsCovered, value, segments] for hand[i..]
  /** @type {[number, number, HandMeld[]][]} */
  const best = new Array(n + 1);
  best[n] = [0, 0, []];
  for (let i = n - 1; i >= 0; i -= 1) {
    let choice = best[i + 1];
    for (let j = i + 3; j <= Math.min(n, i + 13); j += 1) {
      const meld = parseMeld(hand.slice(i, j), rules);
      if (!meld) continue;
      const value = meldValue(meld);
      const rest = best[j];
      /** @type {[number, number, HandMeld[]]} */
      const cand = [rest[0] + (j - i), rest[1] + value, [{ from: i, to: j, meld, value }, ...rest[2]]];
      if (cand[0] > choice[0] || (cand[0] === choice[0] && cand[1] > choice[1])) choice = cand;
    }
    best[i] = choice;
  }
  return best[0][2];
}

/**
 * Whether "Lay cards" may be offered for these hand melds: the seat must be in
 * its play phase; before opening, their value must reach the opening points.
 * @param {{from: number, to: number, value: number}[]} segments
 * @param {View} view
 */
export function canLay(segments, view) {
  if (!segments.length || view.seat == null) return false;
  if (view.phase !== 'play' || view.current !== view.seat) return false;
  const rules = view.rules;
  const cards = segments.reduce((s, g) => s + g.to - g.from, 0);
  if (rules.must_discard_to_go_out && cards >= view.hand.length) return false;
  if (view.opened[view.seat]) return true;
  if (rules.opening_single_meld) return segments.some((g) => g.value >= rules.opening_points);
  return segments.reduce((s, g) => s + g.value, 0) >= rules.opening_points;
}

/**
 * Every way a hand card can go onto the table now: lay-offs and joker exchanges.
 * @param {Card} card
 * @param {View} view
 */
export function targetsFor(card, view) {
  /** @type {{ends: {meld: number, end: 'low' | 'high' | null}[], jokers: {meld: number, index: number}[]}} */
  const out = { ends: [], jokers: [] };
  if (view.seat == null || !view.opened[view.seat]) return out;
  view.melds.forEach((meld, index) => {
    for (const end of layOffEnds(meld, card, view.rules)) out.ends.push({ meld: index, end });
    for (const pos of exchangePositions(meld, card)) out.jokers.push({ meld: index, index: pos });
  });
  return out;
}

// Sorting: suits alternate colours; jokers go last.
/** @type {Record<string, number>} */
const SUIT_ORDER = { C: 0, H: 1, S: 2, D: 3 };
/** @param {Card} code */
const suitRank = (code) => SUIT_ORDER[code[1]];
/** @param {Card} a @param {Card} b */
const jokersLast = (a, b) => Number(isJoker(a)) - Number(isJoker(b));

/** @param {Card[]} hand @returns {Card[]} */
export function sortBySuit(hand) {
  return [...hand].sort((a, b) => {
    if (isJoker(a) || isJoker(b)) return jokersLast(a, b);
    return suitRank(a) - suitRank(b) || rankOf(a) - rankOf(b);
  });
}

/** @param {Card[]} hand @returns {Card[]} */
export function sortByRank(hand) {
  return [...hand].sort((a, b) => {
    if (isJoker(a) || isJoker(b)) return jokersLast(a, b);
    return rankOf(a) - rankOf(b) || suitRank(a) - suitRank(b);
  });
}
