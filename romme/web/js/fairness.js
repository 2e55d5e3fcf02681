// @ts-check
// The shuffle check: the engine's fair shuffle (romme/engine/fairness.py) repeated in
// the browser, so that a player can check a finished game's deals without trusting the
// server. Every round's seed is HMAC-SHA256(match_seed, "romme-round:" + n); its
// commitment, public from the round's start, is sha256(seed) in hex. The shuffle is a
// Fisher-Yates shuffle of the unshuffled shoe driven by a SHA-256 counter stream with
// rejection sampling; the deal takes the shuffled shoe from the front. The hashing is
// WebCrypto's (crypto.subtle), hence most functions here are async. The module runs
// unchanged in a browser (a secure context: https or http://127.0.0.1 / localhost) and
// in Node.js 20. tests/web/test_fairness_port.py holds it to the engine.

/** Rank letters, ace to king, as the engine writes them. */
export const RANKS = 'A23456789TJQK';
/** Suit letters in the shoe's order: clubs, diamonds, hearts, spades. */
export const SUITS = 'CDHS';
/** The joker's notation. */
export const JOKER = 'XX';

/**
 * A seed as the log writes it (lowercase hex) or as bytes.
 * @typedef {string | Uint8Array} Seed
 */

/**
 * What a round's shuffle gives: hands in the order dealt, the upturned card and the
 * stock in the order it will be drawn.
 * @typedef {{hands: string[][], upcard: string, stock: string[]}} Deal
 */

/**
 * One way a round's published facts disagree with its seed. `code` is one of
 * `bad_seed` (not hex, or empty), `commitment_mismatch` (sha256 of the seed is not the
 * published commitment), `round_seed_mismatch` (the seed is not the one the match seed
 * gives for this round), `hand_count` (more hands than the shoe can deal, or none),
 * `hand_mismatch` (a hand differs from the deal: `missing` are cards the seed deals that
 * the hand lacks, `extra` cards the hand holds that the seed does not deal), and
 * `upcard_mismatch`. `expected` and `got` are given where one value was compared.
 * @typedef {{code: string, hand?: number, missing?: string[], extra?: string[],
 *   expected?: string, got?: string}} Problem
 */

/**
 * The answer of verifyRound: `ok` when no problem was found; `commitment` is the one
 * computed from the seed and `deal` the deal it gives (both null for a bad seed).
 * @typedef {{ok: boolean, problems: Problem[], commitment: string | null,
 *   deal: Deal | null}} Verdict
 */

const TWO_64 = 1n << 64n;
const SHOE_SIZE = 2 * 52 + 6;
const encoder = new TextEncoder();

/**
 * WebCrypto, or a clear error where it is missing (an insecure http page).
 * @returns {SubtleCrypto}
 */
function subtleCrypto() {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) {
    throw new Error('WebCrypto is not available here (a page needs https or localhost)');
  }
  return subtle;
}

/**
 * The bytes of a hex string; throws on anything but an even number of hex digits.
 * @param {string} hex
 * @returns {Uint8Array}
 */
export function hexToBytes(hex) {
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(hex)) throw new Error(`not a hex string: ${hex}`);
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/**
 * Bytes in lowercase hex, as the engine writes seeds and commitments.
 * @param {Uint8Array} bytes
 * @returns {string}
 */
export function bytesToHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * A seed as bytes, whether given as hex or as bytes.
 * @param {Seed} seed
 * @returns {Uint8Array}
 */
function seedBytes(seed) {
  return typeof seed === 'string' ? hexToBytes(seed) : seed;
}

/**
 * The concatenation of byte arrays, in a fresh ArrayBuffer (what WebCrypto takes).
 * @param {...Uint8Array} parts
 * @returns {ArrayBuffer}
 */
function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out.buffer;
}

/**
 * SHA-256 of some bytes.
 * @param {ArrayBuffer} bytes
 * @returns {Promise<Uint8Array>}
 */
async function sha256(bytes) {
  return new Uint8Array(await subtleCrypto().digest('SHA-256', bytes));
}

/**
 * The shuffle seed of round `roundNo` (1-based): HMAC-SHA256(matchSeed, "romme-round:n").
 * @param {Seed} matchSeed
 * @param {number} roundNo
 * @returns {Promise<Uint8Array>}
 */
export async function roundSeed(matchSeed, roundNo) {
  const subtle = subtleCrypto();
  const key = await subtle.importKey(
    'raw',
    concat(seedBytes(matchSeed)),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = await subtle.sign('HMAC', key, encoder.encode(`romme-round:${roundNo}`));
  return new Uint8Array(mac);
}

/**
 * The seed of a round's `restockNo`-th stock rebuild (1-based):
 * sha256(roundSeed || "romme-restock:n").
 * @param {Seed} seed the round's seed
 * @param {number} restockNo
 * @returns {Promise<Uint8Array>}
 */
export async function restockSeed(seed, restockNo) {
  return sha256(concat(seedBytes(seed), encoder.encode(`romme-restock:${restockNo}`)));
}

/**
 * The public commitment to a seed: sha256(seed) in lowercase hex.
 * @param {Seed} seed
 * @returns {Promise<string>}
 */
export async function commitmentOf(seed) {
  return bytesToHex(await sha256(concat(seedBytes(seed))));
}

/**
 * Uniform random numbers from a SHA-256 counter stream: block i is
 * sha256(seed || i as 8 bytes big-endian), read 8 bytes at a time, big-endian.
 */
export class ShuffleStream {
  /** @param {Seed} seed */
  constructor(seed) {
    /** @private */
    this.seed = seedBytes(seed);
    /** @private */
    this.counter = 0n;
    /** @private @type {Uint8Array} */
    this.buffer = new Uint8Array(0);
  }

  /**
   * Hash ahead the blocks that the next `count` numbers need (at least), all at once:
   * WebCrypto works on many blocks in parallel faster than on one after the other.
   * @param {number} count
   * @returns {Promise<void>}
   */
  async reserve(count) {
    const blocks = Math.ceil((count * 8 - this.buffer.length) / 32);
    const inputs = [];
    for (let i = 0; i < blocks; i++) {
      const counter = new Uint8Array(8);
      new DataView(counter.buffer).setBigUint64(0, this.counter, false);
      this.counter += 1n;
      inputs.push(concat(this.seed, counter));
    }
    const hashed = await Promise.all(inputs.map(sha256));
    this.buffer = new Uint8Array(concat(this.buffer, ...hashed));
  }

  /**
   * The next 64-bit number of the stream.
   * @private
   * @returns {Promise<bigint>}
   */
  async next64() {
    if (this.buffer.length < 8) await this.reserve(1);
    const value = new DataView(this.buffer.buffer, this.buffer.byteOffset, 8).getBigUint64(0);
    this.buffer = this.buffer.subarray(8);
    return value;
  }

  /**
   * A uniform number in 0..n-1: values at or above the largest multiple of n below
   * 2**64 are discarded, so that no remainder is more likely than another.
   * @param {number} n a positive whole number
   * @returns {Promise<number>}
   */
  async randbelow(n) {
    if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError('n must be a positive whole number');
    const big = BigInt(n);
    const limit = TWO_64 - (TWO_64 % big);
    for (;;) {
      const value = await this.next64();
      if (value < limit) return Number(value % big);
    }
  }
}

/**
 * The items shuffled by the documented Fisher-Yates shuffle: for i from the last index
 * down to 1, swap item i with item randbelow(i + 1).
 * @template T
 * @param {readonly T[]} items
 * @param {Seed} seed
 * @returns {Promise<T[]>}
 */
export async function shuffled(items, seed) {
  const result = [...items];
  const stream = new ShuffleStream(seed);
  await stream.reserve(result.length - 1);
  for (let i = result.length - 1; i > 0; i--) {
    const j = await stream.randbelow(i + 1);
    [result[i], result[j]] = [result[j], result[i]];
  }
  return result;
}

/**
 * The unshuffled 110-card shoe: clubs, diamonds, hearts, spades, each ace to king,
 * twice, then six jokers.
 * @returns {string[]}
 */
export function shoe() {
  const naturals = [...SUITS].flatMap((suit) => [...RANKS].map((rank) => rank + suit));
  return [...naturals, ...naturals, ...Array(SHOE_SIZE - 104).fill(JOKER)];
}

/**
 * The deal of a round from its seed, for `players` seats in the order dealt (the
 * player after the dealer first; see dealOrder).
 * @param {Seed} seed the round's seed
 * @param {number} players
 * @param {number} [handSize] cards per hand (the rules' hand_size, 13 unless changed)
 * @returns {Promise<Deal>}
 */
export async function dealFromSeed(seed, players, handSize = 13) {
  if (!(players >= 1 && handSize >= 1 && players * handSize < SHOE_SIZE)) {
    throw new RangeError(`cannot deal ${players} hands of ${handSize} from ${SHOE_SIZE} cards`);
  }
  const deck = await shuffled(shoe(), seed);
  const hands = [];
  for (let i = 0; i < players; i++) hands.push(deck.slice(i * handSize, (i + 1) * handSize));
  const rest = players * handSize;
  return { hands, upcard: deck[rest], stock: deck.slice(rest + 1) };
}

/**
 * The stock after a round's `restockNo`-th rebuild, in the order it will be drawn: the
 * discard pile but its top card (`pile`, bottom first) shuffled with the restock seed
 * and drawn from its end, as the engine does.
 * @param {Seed} seed the round's seed
 * @param {number} restockNo
 * @param {readonly string[]} pile
 * @returns {Promise<string[]>}
 */
export async function restockFromSeed(seed, restockNo, pile) {
  return (await shuffled(pile, await restockSeed(seed, restockNo))).reverse();
}

/**
 * The seats in the order a round deals them: each seat still in the game, starting
 * with the one to the left of the dealer and ending with the dealer.
 * @param {number} dealer
 * @param {readonly boolean[]} active one entry per seat: still in the game
 * @returns {number[]}
 */
export function dealOrder(dealer, active) {
  const seats = active.length;
  /** @type {number[]} */
  const order = [];
  for (let step = 1; step <= seats; step++) {
    const seat = (dealer + step) % seats;
    if (active[seat]) order.push(seat);
  }
  return order;
}

/**
 * How two hands differ as multisets of cards.
 * @param {readonly string[]} dealt
 * @param {readonly string[]} given
 * @returns {{missing: string[], extra: string[]}}
 */
function handDifference(dealt, given) {
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const card of dealt) counts.set(card, (counts.get(card) ?? 0) + 1);
  const extra = [];
  for (const card of given) {
    const left = counts.get(card) ?? 0;
    if (left > 0) counts.set(card, left - 1);
    else extra.push(card);
  }
  const missing = [...counts].flatMap(([card, n]) => Array(n).fill(card));
  return { missing, extra };
}

/**
 * Whether a round's revealed seed matches its published commitment and gives exactly
 * the hands the log says were dealt (each compared as a set of cards, in the order
 * dealt) and, when given, the upturned card. With `matchSeed` and `roundNo` it also
 * checks that the seed is the one the match seed gives for this round. A seed that is not
 * hex, a wrong commitment or a count of hands the shoe cannot deal is a Problem in the
 * answer, as is every other disagreement, never an exception.
 * @param {{seed: Seed, commitment: string, hands: readonly (readonly string[])[],
 *   upcard?: string, handSize?: number, matchSeed?: Seed, roundNo?: number}} round
 * @returns {Promise<Verdict>}
 */
export async function verifyRound(round) {
  const { seed, commitment, hands, upcard, handSize = 13 } = round;
  /** @type {Problem[]} */
  const problems = [];
  let bytes;
  try {
    bytes = seedBytes(seed);
  } catch {
    bytes = new Uint8Array(0);
  }
  if (bytes.length === 0) {
    problems.push({ code: 'bad_seed', got: String(seed) });
    return { ok: false, problems, commitment: null, deal: null };
  }
  const computed = await commitmentOf(bytes);
  if (computed !== String(commitment).toLowerCase()) {
    problems.push({ code: 'commitment_mismatch', expected: computed, got: String(commitment) });
  }
  if (round.matchSeed !== undefined && round.roundNo !== undefined) {
    let expected = '';
    try {
      expected = bytesToHex(await roundSeed(round.matchSeed, round.roundNo));
    } catch {
      // A match seed that is not hex cannot give this round's seed.
    }
    if (expected !== bytesToHex(bytes)) {
      problems.push({ code: 'round_seed_mismatch', expected, got: bytesToHex(bytes) });
    }
  }
  if (hands.length === 0 || hands.length * handSize >= SHOE_SIZE) {
    problems.push({ code: 'hand_count', got: String(hands.length) });
    return { ok: false, problems, commitment: computed, deal: null };
  }
  const deal = await dealFromSeed(bytes, hands.length, handSize);
  deal.hands.forEach((dealt, hand) => {
    const { missing, extra } = handDifference(dealt, hands[hand]);
    if (missing.length || extra.length) {
      problems.push({ code: 'hand_mismatch', hand, missing, extra });
    }
  });
  if (upcard !== undefined && upcard !== deal.upcard) {
    problems.push({ code: 'upcard_mismatch', expected: deal.upcard, got: upcard });
  }
  return { ok: problems.length === 0, problems, commitment: computed, deal };
}
