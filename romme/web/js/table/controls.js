// @ts-check
// The controls by the hand ("Lay cards" with the opening value, "Knock", sort,
// hint), the status line (whose turn, the others' last move) and the own label.

import { cardShort } from '../cards.js';
import { t } from '../i18n.js';
import { canLay } from '../preview.js';
import { avatar, clear, h, toast } from '../ui.js';

/** @import { TextParams } from '../i18n.js' */
/** @import { GameEvent, Table } from '../types.js' */
/** @import { TableScreen } from './screen.js' */

/** @type {Record<string, string>} */
const MOVE_KEYS = { discarded: 'move.discarded', laid: 'move.laid', laid_off: 'move.laid_off', joker_exchanged: 'move.exchanged', knocked: 'move.knocked' };

/**
 * A knock window is open for the player now.
 * @param {TableScreen} screen
 */
export function canKnock(screen) {
  const v = screen.state.view;
  const knock = screen.state.table?.timer?.knock;
  return !!v && v.seat !== null && v.knock_seats.includes(v.seat) && !!knock?.seats?.includes(v.seat)
    && knock.deadline > screen.app.now();
}

/** @param {TableScreen} screen */
export function renderControls(screen) {
  const { state, els, app } = screen;
  const v = state.view;
  const table = state.table;
  if (!v || !table) return;
  const my = state.myTurn;
  const play = my && v.phase === 'play';
  const knockable = canKnock(screen);
  els.knock.hidden = !knockable;
  els.lay.hidden = knockable;
  els.knock.textContent = t('table.knock');
  const segments = state.chosen;
  const lay = canLay(segments, v);
  els.lay.disabled = !lay;
  const value = segments.reduce((s, g) => s + g.value, 0);
  els.lay.replaceChildren(t('table.lay_cards'));
  const opened = v.seat !== null && v.opened[v.seat];
  if (segments.length && v.seat !== null && !opened) {
    els.lay.append(h('span.lay-value', { class: value >= v.rules.opening_points ? 'enough' : '' }, `${value}/${v.rules.opening_points}`));
  }
  els.lay.title = play && !lay && !opened && segments.length
    ? t('table.opening_needed', { need: v.rules.opening_points, have: value }) : '';
  els.hintBtn.disabled = !my;
  const inRound = ['draw', 'play'].includes(v.phase);
  els.sortSuit.disabled = !inRound || v.seat === null;
  els.sortRank.disabled = !inRound || v.seat === null;
  const status = els.status;
  clear(status);
  const meInfo = v.seat !== null ? table.seats?.[v.seat] : null;
  if (meInfo?.away) {
    status.append(t('table.away_me'), ' ', h('button.small', { id: 'back', onclick: () => app.send({ type: 'back', table: table.id }) }, t('table.back')));
  } else if (v.seat === null) status.append(t('table.watching'));
  else if (!v.active[v.seat]) {
    status.append(t('table.you_are_out'), ' ', h('button.small', { id: 'status-exit', onclick: () => screen.exit() }, t('summary.exit')));
  } else if (my) {
    status.append(h('span.exclaim', { 'aria-hidden': 'true' }, '!'),
      v.phase === 'draw' ? t('table.status_draw') : t('table.status_play'));
    if (v.pending_jokers) status.append(' ', t('table.status_joker_pending'));
  } else if (knockable) status.append(t('table.status_knock'));
  else if (inRound) {
    status.append(t('table.status_wait', { name: state.seatName(v.current) }));
    if (state.lastMove) status.append(h('span.last-move', lastMoveText(screen)));
  }
  status.classList.toggle('mine', my);
  els.me.classList.toggle('my-turn', my);
  // Own label below the fan.
  const seat = v.seat;
  if (seat !== null) {
    const nickname = app.me?.nickname;
    els.meName.replaceChildren(...[
      my ? h('span.exclaim.big', { title: t('table.your_turn'), 'aria-label': t('table.your_turn') }, '!') : null,
      avatar(nickname || '?'),
      h('strong', nickname || ''),
      v.active[seat] ? null : h('span.red-cross', '✕'),
      h('span.points', state.totalText(v.totals[seat])),
      v.opened[seat] ? h('span.badge.opened', t('table.opened')) : null,
      h('div.turn-bar', { dataset: { seat } })].filter((el) => el !== null));
  }
}

/**
 * Remember the latest move of the player whose turn it is, told in the status line
 * until the turn passes (the pile and the log keep the moves before). It is kept as a
 * key and its values, so that it is told in the language shown at the time. A move the
 * turn clock made (`by: "timeout"`, the last of the table's `history_meta`) is told as
 * such; the player whose time ran out is told so in a toast.
 * @param {TableScreen} screen
 * @param {GameEvent[]} events
 * @param {Table} table
 */
export function noteMoves(screen, events, table) {
  const state = screen.state;
  const me = table.view?.seat ?? null;
  const byClock = events.length > 0 && table.history_meta?.at(-1)?.by === 'timeout';
  for (const e of events) {
    if (e.type === 'turn_started' || e.type === 'round_started') { state.lastMove = null; continue; }
    if (typeof e.seat !== 'number') continue;
    if (e.seat === me) {
      if (byClock && e.type === 'discarded' && e.card) toast(t('table.timed_out_discarded', { card: cardShort(e.card) }), 'error', 6000);
      continue;
    }
    const key = e.type === 'drew' ? (e.source === 'discard' ? 'move.took' : 'move.drew') : MOVE_KEYS[e.type];
    if (key) state.lastMove = { key, seat: e.seat, card: e.card, n: e.melds?.length, timeout: byClock };
  }
}

/** @param {TableScreen} screen */
function lastMoveText(screen) {
  const m = screen.state.lastMove;
  if (!m) return '';
  /** @type {TextParams} */
  const params = { name: screen.state.seatName(m.seat) };
  if (m.card) params.card = cardShort(m.card);
  if (m.n !== undefined) params.n = m.n;
  const text = t(m.key, params);
  return m.timeout ? t('log.timed_out', { move: text }) : text;
}

/**
 * The card just drawn glows for a moment, so the eye finds it in the fan.
 * @param {TableScreen} screen
 * @param {GameEvent[]} events
 */
export function markFresh(screen, events) {
  const seat = screen.state.view?.seat;
  const drawn = events.filter((e) => (e.type === 'drew' && e.seat === seat && e.card) || (e.type === 'knocked' && e.seat === seat));
  if (!drawn.length) return;
  const codes = drawn.flatMap((e) => (e.type === 'drew' ? [e.card] : [e.card, ...(e.drawn || [])]));
  const cards = /** @type {HTMLElement[]} */ ([...screen.els.hand.children]);
  for (const code of codes) {
    const el = [...cards].reverse().find((c) => c.dataset.card === code && !c.classList.contains('fresh'));
    if (!el) continue;
    el.classList.add('fresh');
    setTimeout(() => el.classList.remove('fresh'), 1800);
  }
}
