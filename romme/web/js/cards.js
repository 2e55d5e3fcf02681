// @ts-check
// Card art, drawn by our own code as SVG: one <symbol> per card face, built
// lazily into a hidden sprite and referenced with <use>, so a card in the DOM is
// a few bytes and stays crisp at every size. Card codes follow docs/rules.md:
// rank A 2..9 T J Q K, suit C D H S, joker XX.

/** @import { TextParams } from './i18n.js' */
/** @import { Card } from './types.js' */

const NS = 'http://www.w3.org/2000/svg';
export const RANKS = ['A', '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K'];
export const SUITS = ['C', 'D', 'H', 'S'];
export const JOKER = 'XX';

const RED = '#c8102e';
const BLACK = '#15161a';
/** @typedef {'C' | 'D' | 'H' | 'S'} Suit */
/** @type {Record<Suit, string>} */
const SUIT_COLOR = { C: BLACK, S: BLACK, H: RED, D: RED };
/** @type {Record<Suit, string>} */
const SUIT_TINT = { C: '#eef1f6', S: '#eef1f6', H: '#fdeeee', D: '#fdeeee' };
const FONT = "'Liberation Sans','Arial','Helvetica Neue','DejaVu Sans',sans-serif";

// Suit shapes in a 100 x 100 box.
const SUIT_SHAPES = {
  H: '<path d="M50 94C22 70 2 52 2 30C2 13 15 3 29 3C39 3 46 9 50 18C54 9 61 3 71 3C85 3 98 13 98 30C98 52 78 70 50 94Z"/>',
  D: '<path d="M50 2C62 22 75 37 92 50C75 63 62 78 50 98C38 78 25 63 8 50C25 37 38 22 50 2Z"/>',
  S: '<path d="M50 2C58 19 98 38 98 62C98 78 86 87 73 87C64 87 57 83 53 76C54 86 58 93 67 98H33C42 93 46 86 47 76C43 83 36 87 27 87C14 87 2 78 2 62C2 38 42 19 50 2Z"/>',
  C: '<circle cx="50" cy="25" r="21"/><circle cx="25" cy="60" r="21"/><circle cx="75" cy="60" r="21"/>'
    + '<circle cx="50" cy="52" r="12"/><path d="M46 50C46 76 40 89 31 98H69C60 89 54 76 54 50Z"/>',
};

// Pip positions (x, y, flipped) for 2..10 in the card's 200 x 280 box.
const L = 80, M = 114, R = 148;
/** @type {Record<number, number[][]>} */
const PIPS = {
  2: [[M, 56], [M, 224, 1]],
  3: [[M, 56], [M, 140], [M, 224, 1]],
  4: [[L, 62], [R, 62], [L, 218, 1], [R, 218, 1]],
  5: [[L, 62], [R, 62], [M, 140], [L, 218, 1], [R, 218, 1]],
  6: [[L, 62], [R, 62], [L, 140], [R, 140], [L, 218, 1], [R, 218, 1]],
  7: [[L, 62], [R, 62], [M, 101], [L, 140], [R, 140], [L, 218, 1], [R, 218, 1]],
  8: [[L, 62], [R, 62], [M, 101], [L, 140], [R, 140], [M, 179, 1], [L, 218, 1], [R, 218, 1]],
  9: [[L, 62], [R, 62], [L, 114], [R, 114], [M, 140], [L, 166, 1], [R, 166, 1], [L, 218, 1], [R, 218, 1]],
  10: [[L, 62], [R, 62], [M, 88], [L, 114], [R, 114], [L, 166, 1], [R, 166, 1], [M, 192, 1], [L, 218, 1], [R, 218, 1]],
};

// Emblems of the court cards, in a 100 x 60 box.
/** @type {Record<string, string>} */
const EMBLEMS = {
  K: '<path d="M4 56L0 12L26 34L50 2L74 34L100 12L96 56Z"/><circle cx="50" cy="4" r="6"/><circle cx="0" cy="12" r="5"/><circle cx="100" cy="12" r="5"/>',
  Q: '<path d="M8 56C6 40 4 28 0 18C18 30 30 28 36 10C42 26 46 30 50 30C54 30 58 26 64 10C70 28 82 30 100 18C96 28 94 40 92 56Z"/><circle cx="36" cy="8" r="5"/><circle cx="64" cy="8" r="5"/><circle cx="0" cy="17" r="5"/><circle cx="100" cy="17" r="5"/>',
  J: '<path d="M14 56C14 30 30 14 50 14C70 14 86 30 86 56Z"/><path d="M50 16C62 2 84 0 96 8C80 8 66 14 58 24Z"/>',
};

/**
 * A card's rank (1 ace .. 13 king; 0 for the joker) and suit.
 * @param {Card} code
 * @returns {{code: Card, joker: true, rank: 0, suit: null} | {code: Card, joker: false, rank: number, suit: Suit}}
 */
export function parseCard(code) {
  if (code === JOKER) return { code, joker: true, rank: 0, suit: null };
  return { code, joker: false, rank: RANKS.indexOf(code[0]) + 1, suit: /** @type {Suit} */ (code[1]) };
}

/** @param {Card} code */
export function isJoker(code) { return code === JOKER; }

/** @param {string} rank a rank letter; T is 10 */
function rankLabel(rank) { return rank === 'T' ? '10' : rank; }

/**
 * A suit symbol of `size` centred on (x, y), upside down with `flip`.
 * @param {Suit} suit
 * @param {number} x
 * @param {number} y
 * @param {number} size
 * @param {number | boolean} [flip]
 */
function suitUse(suit, x, y, size, flip) {
  const t = flip ? ` transform="rotate(180 ${x} ${y})"` : '';
  return `<use href="#suit-${suit}" x="${x - size / 2}" y="${y - size / 2}" width="${size}" height="${size}"${t}/>`;
}

/**
 * The suit of a card that is not the joker.
 * @param {Card} code
 */
function naturalSuit(code) { return /** @type {Suit} */ (code[1]); }

/** @param {Card} code a natural card */
function cornerIndex(code) {
  const suit = naturalSuit(code);
  const label = rankLabel(code[0]);
  const color = SUIT_COLOR[suit];
  const wide = label.length > 1;
  const text = `<text x="${wide ? 31 : 30}" y="58" font-family="${FONT}" font-weight="700" font-size="${wide ? 50 : 58}" `
    + `text-anchor="middle" fill="${color}"${wide ? ' textLength="54" lengthAdjust="spacingAndGlyphs"' : ''}>${label}</text>`;
  const pip = `<g fill="${color}">${suitUse(suit, 30, 88, 40)}</g>`;
  // The top-left index is large (it is what shows in a tight fan); the
  // bottom-right one is a smaller mirror.
  return `<g>${text}${pip}</g><g transform="rotate(180 100 140) translate(6 6) scale(0.62)">${text}${pip}</g>`;
}

/** @param {Card} code a natural card */
function faceBody(code) {
  const suit = naturalSuit(code);
  const r = code[0];
  const color = SUIT_COLOR[suit];
  if (r === 'A') {
    return `<g fill="${color}">${suitUse(suit, 110, 146, 88)}</g>`;
  }
  if (r === 'J' || r === 'Q' || r === 'K') {
    const tint = SUIT_TINT[suit];
    const gold = '#d4a017';
    /** @type {(y: number, flip: boolean) => string} */
    const emblem = (y, flip) => `<g transform="translate(86 ${y}) scale(0.6)${flip ? ' rotate(180 50 30)' : ''}" fill="${gold}" stroke="${color}" stroke-width="4">${EMBLEMS[r]}</g>`;
    return `<rect x="60" y="30" width="112" height="214" rx="10" fill="${tint}" stroke="${color}" stroke-width="4"/>`
      + `<rect x="67" y="37" width="98" height="200" rx="6" fill="none" stroke="${gold}" stroke-width="3"/>`
      + emblem(46, false) + emblem(192, true)
      + `<text x="116" y="166" font-family="${FONT}" font-weight="700" font-size="72" text-anchor="middle" fill="${color}">${r}</text>`
      + `<g fill="${color}">${suitUse(suit, 116, 96, 26)}${suitUse(suit, 116, 184, 26, true)}</g>`;
  }
  const n = r === 'T' ? 10 : Number(r);
  // Pips sit right of the big corner index, shifted and scaled to fit.
  const pips = PIPS[n].map(([x, y, f]) => suitUse(suit, x, 140 + (y - 140) * 1.08, n >= 9 ? 32 : 36, f)).join('');
  return `<g fill="${color}">${pips}</g>`;
}

function jokerFace() {
  /** @type {(x: number, y: number, s: number, fill: string) => string} */
  const star = (x, y, s, fill) => `<path transform="translate(${x} ${y}) scale(${s})" fill="${fill}" d="M0 -10L2.9 -4 9.5 -3.1 4.8 1.5 5.9 8.1 0 5 -5.9 8.1 -4.8 1.5 -9.5 -3.1 -2.9 -4Z"/>`;
  const letters = 'JOKER'.split('').map((ch, i) => `<text x="26" y="${44 + i * 30}" font-family="${FONT}" font-weight="700" font-size="30" text-anchor="middle" fill="${i % 2 ? '#1f5fbf' : '#c8102e'}">${ch}</text>`).join('');
  return `<rect x="6" y="6" width="188" height="268" rx="12" fill="#fffaf0"/>`
    + `<g>${letters}</g><g transform="rotate(180 100 140)">${letters}</g>`
    // Jester's hat with three points and bells.
    + `<g transform="translate(46 74) scale(0.8)">`
    + `<path d="M10 110C20 60 10 30 0 10C30 20 45 50 52 84C56 40 70 12 100 0C92 36 92 70 96 100C104 64 124 40 150 34C130 60 126 90 132 112Z" fill="#7b2cbf" stroke="#2b1040" stroke-width="4" stroke-linejoin="round"/>`
    + `<path d="M52 84C56 40 70 12 100 0C92 36 92 70 96 100Z" fill="#f4b400" stroke="#2b1040" stroke-width="4" stroke-linejoin="round"/>`
    + `<path d="M4 108Q70 96 136 110L134 130Q70 118 6 128Z" fill="#c8102e" stroke="#2b1040" stroke-width="4"/>`
    + `<circle cx="0" cy="10" r="9" fill="#f4b400" stroke="#2b1040" stroke-width="3"/>`
    + `<circle cx="100" cy="0" r="9" fill="#c8102e" stroke="#2b1040" stroke-width="3"/>`
    + `<circle cx="150" cy="34" r="9" fill="#1f5fbf" stroke="#2b1040" stroke-width="3"/>`
    + `</g>`
    + `<path d="M78 212Q104 230 130 212" fill="none" stroke="#2b1040" stroke-width="5" stroke-linecap="round"/>`
    + `<circle cx="90" cy="194" r="6" fill="#2b1040"/><circle cx="118" cy="194" r="6" fill="#2b1040"/>`
    + star(104, 248, 1.3, '#f4b400');
}

/** @param {Card} code */
function cardSymbol(code) {
  const frame = '<rect x="1.5" y="1.5" width="197" height="277" rx="14" fill="#fff" stroke="#9aa0a6" stroke-width="3"/>';
  if (code === JOKER) return frame + jokerFace();
  return frame + faceBody(code) + cornerIndex(code);
}

function backSymbol() {
  return '<defs><pattern id="back-lattice" width="16" height="16" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
    + '<rect width="16" height="16" fill="#1d3f8f"/><path d="M0 8H16M8 0V16" stroke="#3d68c9" stroke-width="3"/></pattern></defs>'
    + '<rect x="1.5" y="1.5" width="197" height="277" rx="14" fill="#fff" stroke="#9aa0a6" stroke-width="3"/>'
    + '<rect x="12" y="12" width="176" height="256" rx="8" fill="url(#back-lattice)"/>'
    + '<rect x="12" y="12" width="176" height="256" rx="8" fill="none" stroke="#0f265e" stroke-width="3"/>'
    + '<circle cx="100" cy="140" r="34" fill="#0f265e" stroke="#f4d35e" stroke-width="4"/>'
    + '<text x="100" y="156" font-family="' + FONT + '" font-weight="700" font-size="44" text-anchor="middle" fill="#f4d35e">R</text>';
}

/** @type {SVGSVGElement | null} */
let sprite = null;
const built = new Set();

function ensureSprite() {
  if (sprite) return sprite;
  const svg = document.createElementNS(NS, 'svg');
  sprite = svg;
  sprite.setAttribute('aria-hidden', 'true');
  sprite.style.cssText = 'position:absolute;width:0;height:0;overflow:hidden';
  sprite.id = 'card-sprite';
  sprite.innerHTML = Object.entries(SUIT_SHAPES)
    .map(([s, d]) => `<symbol id="suit-${s}" viewBox="0 0 100 100">${d}</symbol>`).join('')
    + `<symbol id="card-back" viewBox="0 0 200 280">${backSymbol()}</symbol>`;
  document.body.prepend(svg);
  return svg;
}

/** @param {Card} code */
function ensureSymbol(code) {
  const root = ensureSprite();
  if (built.has(code)) return;
  const symbol = document.createElementNS(NS, 'symbol');
  symbol.id = `card-${code}`;
  symbol.setAttribute('viewBox', '0 0 200 280');
  symbol.innerHTML = cardSymbol(code);
  root.appendChild(symbol);
  built.add(code);
}

/**
 * SVG markup for a card face (or the back, with code null).
 * @param {Card | null} code
 */
export function cardSVG(code) {
  const id = code ? `card-${code}` : 'card-back';
  if (code) ensureSymbol(code); else ensureSprite();
  return `<svg viewBox="0 0 200 280" aria-hidden="true" focusable="false"><use href="#${id}"/></svg>`;
}

/**
 * A standalone SVG document of one card (used by tests and the README).
 * @param {Card | null} code
 */
export function cardDocument(code) {
  return `<svg xmlns="${NS}" viewBox="0 0 200 280"><defs>`
    + Object.entries(SUIT_SHAPES).map(([s, d]) => `<symbol id="suit-${s}" viewBox="0 0 100 100">${d}</symbol>`).join('')
    + `</defs>${code ? cardSymbol(code) : backSymbol()}</svg>`;
}

/**
 * The accessible name of a card, e.g. "Seven of hearts", from the locale.
 * @param {Card} code
 * @param {(key: string, params?: TextParams) => string} t
 */
export function cardName(code, t) {
  if (code === JOKER) return t('card.joker');
  const { rank, suit } = parseCard(code);
  return t('card.name', { rank: t(`rank.${rank}`), suit: t(`suit.${suit}`) });
}

/**
 * Short text form with suit symbols, e.g. "7♥", "10♠", "★".
 * @param {Card} code
 */
export function cardShort(code) {
  if (code === JOKER) return '★';
  /** @type {Record<string, string>} */
  const symbols = { C: '♣', D: '♦', H: '♥', S: '♠' };
  const sym = symbols[code[1]];
  return `${rankLabel(code[0])}${sym}`;
}

/**
 * Penalty points of a card left in hand (for display only; the server scores).
 * @param {Card} code
 * @param {{joker_penalty?: number, ace_penalty?: number}} [rules]
 */
export function penaltyOf(code, rules) {
  if (code === JOKER) return rules?.joker_penalty ?? 30;
  const { rank } = parseCard(code);
  if (rank === 1) return rules?.ace_penalty ?? 15;
  return rank >= 10 ? 10 : rank;
}
