// @ts-check
// The shapes of docs/protocol.md's "Game histories and replays", for the replay
// and history screens. Types only.

/** @import { RoundResult, SeatInfo } from '../types.js' */

/**
 * A game as the log has it: `GameLog`'s action (`type`, `seat`, and per type
 * `source`, `card`, `melds`, `meld`, `end`, `index`, `cards`).
 * @typedef {{type: string, seat?: number, source?: string, card?: string,
 *   melds?: string[][], cards?: string[], by?: string}} LoggedAction
 */

/**
 * One position of a replay: the game after `action` (null: before the first).
 * @typedef {object} Position
 * @property {number} version
 * @property {LoggedAction | null} action
 * @property {number} round_no
 * @property {string} phase
 * @property {number} dealer
 * @property {number} current
 * @property {string[][]} hands
 * @property {number} stock_count
 * @property {string[]} discard
 * @property {{kind: string, cards: string[], start: number}[]} melds
 * @property {number[]} meld_owners
 * @property {boolean[]} opened
 * @property {number[]} totals
 * @property {boolean[]} active
 * @property {number} results how many rounds are over at this position
 */

/**
 * `Replay` of the protocol.
 * @typedef {object} ReplayData
 * @property {number} id
 * @property {Record<string, any>} rules
 * @property {SeatInfo[]} seats
 * @property {number[]} winners
 * @property {string} match_seed
 * @property {{round_no: number, seed: string, commitment: string}[]} rounds
 * @property {RoundResult[]} results
 * @property {Position[]} positions
 */

/**
 * `HistoryGame` of the protocol.
 * @typedef {object} HistoryGame
 * @property {number} game
 * @property {string} finished_at
 * @property {SeatInfo[]} seats
 * @property {number[]} my_seats
 * @property {number[]} winners
 * @property {number[]} totals
 * @property {number} rounds
 * @property {boolean} won
 */

export {};
