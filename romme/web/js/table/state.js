// @ts-check
// What the table screen knows besides the server's `table`: the hand in the
// player's order, the card picked up, the hint shown, what the summary shows.
// Every field is declared here with its default; the other modules read and
// change it, and render from it.

import { t } from '../i18n.js';
import { botName } from '../botname.js';

/** @import { Card, GameEvent, Table, View } from '../types.js' */

/**
 * @typedef {object} Segment a run of hand cards that forms a meld
 * @property {number} from
 * @property {number} to one past the last card
 * @property {number} value
 * @property {string} [key] its cards' keys, which stay while the meld stays in the hand
 */

/**
 * @typedef {object} Fan where the hand's cards lie, for dropping between them
 * @property {number} left0
 * @property {number} step
 * @property {number} cw a card's width
 * @property {number} n
 * @property {number} perRow cards in a row (all of them, or half in two rows)
 * @property {number} rowStep how far the second row lies below the first (0: one row)
 * @property {DOMRect} rect
 */

/** @typedef {{key: string, seat: number, card?: Card | null, n?: number, timeout?: boolean}} LastMove */

export class TableState {
  /** The table as the server sent it (null while it loads). @type {Table | null} */
  table = null;
  /** The own hand in the order shown. @type {Card[]} */
  hand = [];
  /** An order sent with `arrange` that the server has not confirmed yet. @type {Card[] | null} */
  pendingOrder = null;
  /** The melds the hand shows side by side (what "Lay cards" lays). @type {Segment[]} */
  segments = [];
  /** The melds of the hand the player left out of "Lay cards" (their keys). @type {Set<string>} */
  leftOut = new Set();

  /** The melds "Lay cards" lays: those of the hand the player did not leave out. */
  get chosen() { return this.segments.filter((s) => !s.key || !this.leftOut.has(s.key)); }

  /** The fan's geometry after the last layout. @type {Fan | null} */
  fan = null;
  /** The card picked up with the keyboard or a tap, to play it onto a target. @type {{key: string, code: Card} | null} */
  picked = null;
  /** The cards of the hint shown. @type {{cards: Card[]} | null} */
  hint = null;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  hintTimer = undefined;
  /** A move was sent and not answered yet: a second one is not sent. */
  busy = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  busyTimer = undefined;
  /** The events of updates that came while a hand card was held (pressed or dragged), drawn when it is let go. @type {GameEvent[] | null} */
  deferred = null;
  /** The last of the player's final seconds a tick sounded for. @type {number | null} */
  tickSecond = null;
  /** The discard pile takes a dragged or picked card (it is a drop target). */
  discardTargetActive = false;
  /** The latest move of another player, for the status line. @type {LastMove | null} */
  lastMove = null;
  /** How many chat messages the player has seen (the menu shows a dot for more). @type {number | null} */
  seenChat = null;
  /** The summary the player opened again with "Results". */
  reopened = false;
  /** The player is out and chose to watch the others play on. */
  watchingOn = false;
  /** The round for which "Next" was sent. @type {number | null} */
  nextSent = null;
  /** The summary's content when drawn (to draw it only when it changes). @type {string | null} */
  summaryContent = null;
  /** The summary that got the focus last (round, phase, why). @type {string | null} */
  summaryFor = null;
  /** The score sheet under the summary is open. */
  sheetOpen = false;

  /** @returns {View | null} */
  get view() { return this.table?.view || null; }

  /** @returns {number | null} */
  get mySeat() { return this.table?.my_seat ?? null; }

  /** It is the player's turn (to draw or to play). */
  get myTurn() {
    const v = this.view;
    return !!v && v.seat !== null && v.seat === v.current && (v.phase === 'draw' || v.phase === 'play');
  }

  /** Three rounds: the score is minus the penalties (the highest wins). */
  get scoredByRounds() { return this.view?.rules?.scoring === 'rounds'; }

  /**
   * A seat's name: the player's nickname, the computer opponent's level, or "free".
   * @param {number} seat
   */
  seatName(seat) {
    const info = this.table?.seats?.[seat];
    if (!info) return t('table.seat_n', { n: seat + 1 });
    if (info.nickname) return info.nickname;
    if (info.bot) return t('table.bot_name', { level: botName(info.bot), n: seat + 1 });
    return t('lobby.free_seat');
  }

  /**
   * A seat's running total, the same in the seats, the own label and the summary.
   * @param {number} total
   */
  totalText(total) {
    return t('table.points_n', { n: scoreNumber(total, this.scoredByRounds) });
  }
}

/**
 * One sign convention: penalty points are counted up (classic: the total of
 * penalty points); a three-rounds score is minus the penalties, shown negative.
 * @param {number} penalties
 * @param {boolean} rounds
 */
export function scoreNumber(penalties, rounds) {
  return rounds && penalties ? `−${penalties}` : String(penalties);
}
