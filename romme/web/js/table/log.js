// @ts-check
// The table's log, shown in the chat pane among the players' messages: every public
// move (who drew from which pile, laid which melds, laid off, took a joker, discarded,
// knocked), how each round ended with its penalty points, the game's end, and who took
// a seat, left, went away or came back. It is read from what the client gets anyway:
// the view's public history of the round (whole after a reload), its results and the
// seats, so that a line is never told twice and a reload loses none of the round.

import { cardShort } from '../cards.js';
import { t } from '../i18n.js';

/** @import { Card, SeatInfo, Table, View } from '../types.js' */
/** @import { TextParams } from '../i18n.js' */

/**
 * A line of the log, told in the language shown when it is drawn.
 * @typedef {object} LogLine
 * @property {number} at when it happened (the server's clock): a move's time as the table gave it
 *   (`history_meta`), else when the client learned of it
 * @property {'move' | 'round' | 'seat'} kind
 * @property {string} key the text's key
 * @property {number} [seat] the seat it is about (its name is looked up when drawn)
 * @property {string} [name] the nickname, where the seat may have changed hands since
 * @property {Card[]} [cards] the cards (of a lay-down, its melds one after the other)
 * @property {number} [n] a count
 * @property {number} [round] which round
 * @property {number[]} [seats] several seats (the winners)
 * @property {number[]} [points] each seat's penalty points
 * @property {boolean} [timeout] the turn clock made the move: the seat's time ran out
 */

/** The history's moves, by the texts that tell them. */
const MOVE_TEXT = /** @type {Record<string, string>} */ ({
  draw_stock: 'move.drew', draw_discard: 'move.took', discard: 'move.discarded', lay: 'log.laid',
  lay_off: 'move.laid_off', exchange_joker: 'move.exchanged', knock: 'move.knocked',
});

/** The lines kept of a table (the oldest go first). */
const MAX_LINES = 300;

export class TableLog {
  /** @type {LogLine[]} */
  lines = [];
  /** The round whose history is being told (0: none yet). */
  round = 0;
  /** How many of that round's moves are told. */
  told = 0;
  /** The last round whose result is told. */
  resultsTold = 0;
  over = false;
  /** The seats as last seen. @type {SeatInfo[] | null} */
  seats = null;

  /**
   * Take in the table as it is now; what is new since the last look becomes lines.
   * @param {Table} table
   * @param {number} now
   */
  observe(table, now) {
    this.observeSeats(table.seats, now);
    const v = table.view;
    if (!v || v.phase === 'not_started') return;
    const meta = table.history_meta ?? [];
    if (v.round_no !== this.round) {
      this.observeResults(v, now, v.round_no - 1);
      this.round = v.round_no;
      this.told = 0;
      this.add({ at: Math.min(now, meta[0]?.at ?? now), kind: 'round', key: 'log.round', round: v.round_no });
    }
    const history = v.history ?? [];
    history.slice(this.told).forEach((entry, i) => {
      const key = MOVE_TEXT[entry.move];
      const known = meta[this.told + i];
      if (key) {
        this.add({ at: known?.at ?? now, kind: 'move', key, seat: entry.seat, cards: entry.cards,
          ...(known?.by === 'timeout' ? { timeout: true } : {}) });
      }
    });
    this.told = Math.max(this.told, history.length);
    this.observeResults(v, now, v.round_no);
    if (v.phase === 'game_over' && !this.over) {
      this.over = true;
      this.add({ at: now, kind: 'round', key: 'summary.game_over', seats: v.winners, n: v.winners.length });
    }
  }

  /**
   * The results of the rounds up to `last` not told yet.
   * @param {View} v
   * @param {number} now
   * @param {number} last
   */
  observeResults(v, now, last) {
    for (const r of v.results) {
      if (r.round_no <= this.resultsTold || r.round_no > last) continue;
      this.resultsTold = r.round_no;
      if (r.winner === null) {
        const stalled = r.ended === 'stall';
        this.add({ at: now, kind: 'round', key: stalled ? 'summary.stalled' : 'summary.no_winner', n: v.rules.stall_turns });
        continue;
      }
      this.add({ at: now, kind: 'round', key: r.hand_rummy ? 'summary.hand_rummy' : 'summary.winner', seat: r.winner });
      this.add({ at: now, kind: 'round', key: 'log.penalties', points: r.penalties });
    }
  }

  /**
   * Who took a seat, left, went away or lost the connection, and came back.
   * @param {SeatInfo[]} seats
   * @param {number} now
   */
  observeSeats(seats, now) {
    const before = this.seats;
    this.seats = seats.map((s) => ({ ...s }));
    if (!before) return;
    for (const s of seats) {
      const was = before[s.seat];
      if (!was) continue;
      /** @param {string} key @param {string} [name] */
      const tell = (key, name) => this.add({ at: now, kind: 'seat', key, seat: s.seat, name: name ?? s.nickname ?? undefined });
      if ((s.nickname && s.nickname !== was.nickname) || (s.bot && !was.bot && !s.nickname)) tell('log.sat_down');
      else if (!s.nickname && was.nickname) tell('log.left', was.nickname);
      else if (s.left && !was.left) tell('log.left');
      else if (s.away && !was.away) tell('log.away');
      else if (s.connected === false && was.connected !== false) tell('log.offline');
      else if ((!s.away && was.away) || (s.connected !== false && was.connected === false)) tell('log.back');
    }
  }

  /** @param {LogLine} line */
  add(line) {
    this.lines.push(line);
    if (this.lines.length > MAX_LINES) this.lines.splice(0, this.lines.length - MAX_LINES);
  }
}

/** The log of each table seen since the page loaded. @type {Map<number, TableLog>} */
const logs = new Map();

/** @param {number} tableId */
export function tableLog(tableId) {
  let log = logs.get(tableId);
  if (!log) { log = new TableLog(); logs.set(tableId, log); }
  return log;
}

/**
 * A line's text in the language shown.
 * @param {LogLine} line
 * @param {(seat: number) => string} seatName
 */
export function logText(line, seatName) {
  /** @type {TextParams} */
  const params = {};
  if (line.name !== undefined) params.name = line.name;
  else if (line.seat !== undefined) params.name = seatName(line.seat);
  if (line.cards) {
    params.cards = line.cards.map(cardShort).join(' ');
    params.card = params.cards;
  }
  if (line.n !== undefined) params.n = line.n;
  if (line.round !== undefined) params.round = line.round;
  if (line.seats) params.names = line.seats.map(seatName).join(', ');
  if (line.points) params.list = line.points.map((p, seat) => `${seatName(seat)} ${p}`).join(' · ');
  const text = t(line.key, params);
  return line.timeout ? t('log.timed_out', { move: text }) : text;
}
