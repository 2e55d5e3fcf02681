// @ts-check
/**
 * The marks of a finished game's analysis (`GET /api/games/{id}/analysis`, see
 * docs/protocol.md, "Analysis"), as text and elements for the replay: at a move
 * where a player's decision differed from the computer expert's, what would have
 * been better, why, and what it would have changed.
 *
 * The server sends reason codes with cards as codes; the words are the catalog's
 * (`analysis.*`), so a mark reads in the player's language.
 */

import { t as translate } from '../i18n.js';
import { cardShort } from '../cards.js';

/** @import { TextParams } from '../i18n.js' */

/**
 * One mark of the analysis.
 * @typedef {object} AnalysisMark
 * @property {number} move Index of the player's action in the game log's `actions`.
 * @property {number} seat
 * @property {'draw' | 'lay' | 'discard'} kind
 * @property {{type: string, [field: string]: unknown}} played
 * @property {{type: string, [field: string]: unknown}} better
 * @property {'inaccuracy' | 'mistake' | 'blunder'} severity
 * @property {number} penalty Expected penalty points the better move saves.
 * @property {number} win_chance Chance of going out it gains, 0 to 1.
 * @property {string} reason
 * @property {Record<string, unknown>} params
 */

/**
 * A game's analysis as the server answers it.
 * @typedef {object} Analysis
 * @property {number} game
 * @property {'none' | 'pending' | 'done'} status
 * @property {number[]} [seats]
 * @property {number} [decisions]
 * @property {AnalysisMark[]} [marks]
 * @property {{done: number, total: number}} [progress]
 */

/** @typedef {(key: string, params?: TextParams) => string} Translate */

const REASONS = new Set([
  'take_completes', 'take_card', 'draw_stock', 'keep_completes', 'keep_card',
  'lay_first', 'lay_fewer', 'lay_off_first', 'exchange_joker', 'hold_back', 'other',
]);

/**
 * The marks of the decision at `move` (an index into the game log's actions).
 * @param {Analysis} analysis
 * @param {number} move
 * @returns {AnalysisMark[]}
 */
export function marksAt(analysis, move) {
  return (analysis.marks ?? []).filter((mark) => mark.move === move);
}

/**
 * The moves that carry a mark, in order (for a timeline).
 * @param {Analysis} analysis
 * @returns {number[]}
 */
export function markedMoves(analysis) {
  return [...new Set((analysis.marks ?? []).map((mark) => mark.move))].sort((a, b) => a - b);
}

/** @param {unknown} code */
function card(code) {
  return typeof code === 'string' ? cardShort(code) : '—';
}

/** @param {unknown} cards */
function meld(cards) {
  return Array.isArray(cards) ? cards.map(card).join(' ') : '';
}

/**
 * The sentence of a mark: what would have been better, and why.
 * @param {AnalysisMark} mark
 * @param {Translate} [t]
 * @returns {string}
 */
export function markText(mark, t = translate) {
  const p = mark.params ?? {};
  const melds = Array.isArray(p.melds) ? p.melds.map(meld).join(', ') : '';
  const reason = REASONS.has(mark.reason) ? mark.reason : 'other';
  return t(`analysis.reason.${reason}`, {
    card: card(p.card), instead: card(p.instead), meld: meld(p.meld), melds,
  });
}

/**
 * What the better move would have changed ("4 penalty points less, 12% more
 * chance to go out"); empty when both are too small to tell.
 * @param {AnalysisMark} mark
 * @param {Translate} [t]
 * @returns {string}
 */
export function markCost(mark, t = translate) {
  const parts = [];
  const points = Math.round(mark.penalty);
  if (points >= 1) parts.push(t('analysis.penalty', { n: points }));
  const percent = Math.round(mark.win_chance * 100);
  if (percent >= 1) parts.push(t('analysis.chance', { percent: String(percent) }));
  return parts.join(', ');
}

/**
 * One element per mark of the decision at `move`:
 * `<div class="analysis-mark mistake" data-move="12" data-seat="0">` holding the
 * severity, the sentence and the cost.
 * @param {Analysis} analysis
 * @param {number} move
 * @param {Translate} [t]
 * @returns {HTMLElement[]}
 */
export function renderMarks(analysis, move, t = translate) {
  return marksAt(analysis, move).map((mark) => {
    const box = document.createElement('div');
    box.className = `analysis-mark ${mark.severity}`;
    box.dataset.move = String(mark.move);
    box.dataset.seat = String(mark.seat);
    const severity = document.createElement('strong');
    severity.className = 'analysis-severity';
    severity.textContent = t(`analysis.severity.${mark.severity}`);
    const text = document.createElement('span');
    text.className = 'analysis-text';
    text.textContent = markText(mark, t);
    box.append(severity, ' ', text);
    const cost = markCost(mark, t);
    if (cost) {
      const small = document.createElement('small');
      small.className = 'analysis-cost';
      small.textContent = cost;
      box.append(' ', small);
    }
    return box;
  });
}

/**
 * A line for the analysis as a whole: pending (with progress), or no marks.
 * `null` when there are marks to show or nobody asked for an analysis.
 * @param {Analysis} analysis
 * @param {Translate} [t]
 * @returns {string | null}
 */
export function analysisStatus(analysis, t = translate) {
  if (analysis.status === 'pending') return t('analysis.pending');
  if (analysis.status === 'done' && !(analysis.marks ?? []).length) return t('analysis.none');
  return null;
}
