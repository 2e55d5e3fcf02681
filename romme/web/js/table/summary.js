// @ts-check
// The round summary over the table: each seat's cards left, penalty and total,
// who went out, "Next" (and whom the table waits for), the score sheet of every
// round so far, the seed to check the shuffle; at the end the game over with the
// winners and the rating change.

import { cardName, cardSVG } from '../cards.js';
import { currentLanguage, t } from '../i18n.js';
import { h } from '../ui.js';
import { sheetTable } from '../replay/sheet.js';
import { rematchPart } from './rematch.js';
import { scoreNumber } from './state.js';

/** @import { RoundResult } from '../types.js' */
/** @import { TableScreen } from './screen.js' */

const TROPHY = '<svg viewBox="0 0 64 64" width="56" height="56"><path d="M18 8h28v14c0 10-6 17-14 17S18 32 18 22z" fill="#f4c542" stroke="#a16207" stroke-width="3"/><path d="M18 14H8c0 10 5 15 12 15M46 14h10c0 10-5 15-12 15" fill="none" stroke="#a16207" stroke-width="3"/><path d="M28 39h8v9h-8z" fill="#eab308"/><rect x="20" y="48" width="24" height="8" rx="2" fill="#a16207"/></svg>';

/**
 * Which round summary the overlay shows, and why: the round just over; the round
 * that put this player out (kept, with Exit, until they leave or watch on); or
 * one the player reopened ("Results").
 * @param {TableScreen} screen
 * @returns {{result: RoundResult, why: 'over' | 'out' | 'reopened'} | null}
 */
function summaryShown(screen) {
  const state = screen.state;
  const v = state.view;
  const results = v?.results || [];
  if (!v || !results.length) return null;
  const last = results[results.length - 1];
  if (v.phase === 'round_over' || v.phase === 'game_over') return { result: last, why: 'over' };
  const me = v.seat;
  if (me !== null && !v.active[me] && !state.watchingOn) {
    return { result: results.find((r) => r.eliminated.includes(me)) || last, why: 'out' };
  }
  if (state.reopened) return { result: last, why: 'reopened' };
  return null;
}

/** @param {TableScreen} screen */
export function renderSummary(screen) {
  const { state, app } = screen;
  const v = state.view;
  const table = state.table;
  const overlay = screen.els.overlay;
  const shown = summaryShown(screen);
  if (!shown || !v || !table) {
    overlay.hidden = true;
    return;
  }
  const { result, why } = shown;
  overlay.hidden = false;
  const me = v.seat;
  const nextRound = table.next_round;
  // Drawn again only when it changes: the others' moves must not replace the
  // buttons under the pointer of a player who watches on.
  const content = JSON.stringify([result.round_no, why, v.phase === 'game_over', v.active, v.results.length, nextRound,
    state.nextSent === v.round_no, table.game_over?.ratings, table.seats, table.rematch, currentLanguage()]);
  if (content === state.summaryContent && overlay.firstChild) { renderCountdown(screen); return; }
  state.summaryContent = content;
  const rows = [];
  const rounds = state.scoredByRounds;
  for (let s = 0; s < v.seats; s += 1) {
    const out = result.eliminated.includes(s) || !v.active[s];
    rows.push(h('tr', { class: `${s === me ? 'me' : ''} ${out ? 'out' : ''} ${result.winner === s ? 'winner' : ''}` },
      h('th', { scope: 'row' }, h('span.name', out ? h('span.red-cross', { title: t('table.eliminated') }, '✕') : null,
        state.seatName(s), result.winner === s ? h('span.badge.win', t('summary.went_out')) : null)),
      h('td', h('div.summary-cards', (result.hands[s] || []).map((c) => h('span.card.face.mini', { html: cardSVG(c), role: 'img', 'aria-label': cardName(c, t) })))),
      h('td.num', { class: 'penalty' }, String(result.penalties[s])),
      h('td.num.total', scoreNumber(result.totals[s], rounds))));
  }
  const gameOver = v.phase === 'game_over';
  const eliminated = me !== null && !v.active[me];
  const buttons = [];
  if (gameOver) {
    buttons.push(h('button.primary.big', { id: 'summary-lobby', onclick: () => app.openLobby() }, t('summary.back_to_lobby')));
    const rematch = rematchPart(screen);
    if (rematch) buttons.push(rematch);
  } else if (eliminated) {
    // Out of the game: Exit to the lobby, or stay and watch the others play on.
    buttons.push(h('button.primary.big', { id: 'summary-exit', onclick: () => screen.exit() }, t('summary.exit')));
    if (why !== 'reopened') buttons.push(h('button.big', { id: 'summary-watch', onclick: () => { state.watchingOn = true; screen.render([]); } }, t('summary.watch')));
  } else if (me !== null && why === 'over') {
    const waiting = nextRound?.waiting_for || [];
    const said = state.nextSent === v.round_no || (!!nextRound && !waiting.includes(me));
    buttons.push(h('button.primary.big', { id: 'summary-next', disabled: said, onclick: () => next(screen) }, t('summary.next')));
    if (said && waiting.length) buttons.push(h('p.muted', t('summary.waiting_for', { names: waiting.map((s) => state.seatName(s)) })));
  }
  if (why === 'reopened') buttons.push(h('button.big', { id: 'summary-close', onclick: () => { state.reopened = false; screen.render([]); } }, t('common.close')));
  const title = gameOver ? gameOverTitle(screen) : t('summary.title', { n: result.round_no });
  let sub = '';
  if (result.winner === null && result.ended === 'stall') sub = t('summary.stalled', { n: v.rules.stall_turns });
  else if (result.winner === null) sub = t('summary.no_winner');
  else if (result.hand_rummy) sub = t('summary.hand_rummy', { name: state.seatName(result.winner) });
  else sub = t('summary.winner', { name: state.seatName(result.winner) });
  const rating = me !== null ? table.game_over?.ratings?.[String(me)] : undefined;
  const ratingRow = rating
    ? h('p.rating-change', t('summary.rating', { before: Math.round(rating.before), after: Math.round(rating.after) }))
    : null;
  overlay.replaceChildren(h('div.summary', { role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'summary-title', id: 'summary' },
    gameOver ? h('div.trophy', { 'aria-hidden': 'true', html: me !== null && v.winners.includes(me) ? TROPHY : '' }) : null,
    h('h2', { id: 'summary-title' }, title),
    h('p.summary-sub', sub),
    h('table.summary-table',
      h('thead', h('tr', h('th', t('summary.player')), h('th', t('summary.cards_left')), h('th.num', t('summary.penalty')), h('th.num', t(rounds ? 'summary.score' : 'summary.total')))),
      h('tbody', rows)),
    ratingRow,
    v.results.length > 1 || why === 'reopened' ? scoreSheet(screen) : null,
    h('details.fair', h('summary', t('summary.fair_play')),
      h('p', t('summary.fair_text')), h('code', `seed ${result.seed}`), h('code', `sha256 ${result.commitment}`)),
    h('p.next-countdown', { id: 'next-countdown', hidden: true }),
    h('div.summary-buttons', buttons)));
  renderCountdown(screen);
  const key = `${result.round_no}:${v.phase}:${why}`;
  if (state.summaryFor !== key) {
    state.summaryFor = key;
    /** @type {HTMLElement | null} */ (overlay.querySelector('.summary-buttons button'))?.focus();
  }
}

/**
 * Every round so far: each seat's penalty points, and the totals (or scores).
 * @param {TableScreen} screen
 */
function scoreSheet(screen) {
  const state = screen.state;
  const v = /** @type {import('../types.js').View} */ (state.view);
  const sheet = h('details.sheet', { id: 'score-sheet', open: state.sheetOpen },
    h('summary', t('sheet.title')),
    sheetTable(v.results, v.seats, (s) => state.seatName(s), state.scoredByRounds));
  sheet.addEventListener('toggle', () => { state.sheetOpen = sheet.open; });
  return sheet;
}

/**
 * The seconds left before the next deal, under a round summary.
 * @param {TableScreen} screen
 */
export function renderCountdown(screen) {
  const el = screen.root.querySelector('#next-countdown');
  if (!(el instanceof HTMLElement)) return;
  const deadline = screen.state.table?.next_round?.deadline;
  const show = screen.state.view?.phase === 'round_over' && !!deadline;
  el.hidden = !show;
  if (deadline && show) el.textContent = t('summary.next_in', { n: Math.max(0, Math.ceil((deadline - screen.app.now()) / 1000)) });
}

/**
 * "Results": the last round's summary again, with the score sheet.
 * @param {TableScreen} screen
 */
export function openResults(screen) {
  screen.state.reopened = true;
  screen.state.watchingOn = true;
  screen.toggleSide(false);
  screen.render([]);
}

/** @param {TableScreen} screen */
function gameOverTitle(screen) {
  const state = screen.state;
  const v = state.view;
  if (!v) return '';
  if (v.seat !== null && v.winners.includes(v.seat)) return t('summary.you_won');
  const names = v.winners.map((s) => state.seatName(s));
  return t('summary.game_over', { names });
}

/**
 * "Next": the player is ready for the next round.
 * @param {TableScreen} screen
 */
export function next(screen) {
  const { state, app } = screen;
  if (!state.view || !state.table) return;
  state.nextSent = state.view.round_no;
  app.send({ type: 'next_round', table: state.table.id });
  renderSummary(screen);
}
