// @ts-check
// The table screen: piles, opponents, laid melds, the own hand as a fan, the side
// panel (timer, limit, buttons, chat), the round summary and game over. Everything
// is rendered from the server's `table` and its `view`; `events` only animate.
//
// This module ties the parts together (after chessground): the state with its
// defaults (state.js), the elements (dom.js), and one module per concern: the
// board, the hand, the controls and status, the side panel, the moves and their
// drop targets, the hint, the keyboard, the summary, the dialogs, the animation.

import { t } from '../i18n.js';
import { HandDrag } from '../dnd.js';
import { play } from '../sound.js';
import { sortBySuit } from '../preview.js';
import { clear, h } from '../ui.js';
import { animate, captureRects, flashTurn } from './anim.js';
import { fitMelds, renderMelds, renderOpponents, renderPiles, renderWaiting } from './board.js';
import { markFresh, noteMoves, renderControls } from './controls.js';
import { exit, inviteDialog, leave, playerInfoDialog } from './dialogs.js';
import { PHONE, buildTable, placePiles } from './dom.js';
import { insertionIndex, layoutHand, renderHand, reorder, sortHand, syncHand, toggleMeld } from './hand.js';
import { askHint, showHint } from './hint.js';
import { globalKey, handKey, keysDialog } from './keys.js';
import { draw, dropOn, knock, layCards, showTargets, tapCard } from './moves.js';
import { tableLog } from './log.js';
import { renderChat, renderSide, renderTimer, toggleSide } from './side.js';
import { TableState } from './state.js';
import { openResults, renderSummary } from './summary.js';

/** @import { Action, App, Card, GameEvent, Table } from '../types.js' */
/** @import { Elements } from './dom.js' */

/** The events that move a card (the card sound plays). */
const CARD_MOVES = ['drew', 'discarded', 'laid', 'laid_off', 'joker_exchanged', 'knocked'];

export class TableScreen {
  /**
   * @param {App} app
   * @param {HTMLElement} root
   */
  constructor(app, root) {
    this.app = app;
    this.root = root;
    this.state = new TableState();
    /** Set while the invite dialog is open: it follows the lobby. @type {(() => void) | null} */
    this.refreshInvite = null;
    /** @type {Elements} */
    this.els = buildTable(this);
    this.drag = this.makeDrag();
    this.tick = setInterval(() => renderTimer(this), 250);
    this.onResize = () => layoutHand(this);
    window.addEventListener('resize', this.onResize);
    this.onPhone = () => { placePiles(this.els); layoutHand(this); };
    PHONE.addEventListener('change', this.onPhone);
    // The meld area changes with the window and with the hand's height.
    this.meldFit = new ResizeObserver(() => fitMelds(this));
    this.meldFit.observe(this.els.center);
    this.onKey = (/** @type {KeyboardEvent} */ e) => globalKey(this, e);
    document.addEventListener('keydown', this.onKey);
  }

  destroy() {
    clearInterval(this.tick);
    window.removeEventListener('resize', this.onResize);
    PHONE.removeEventListener('change', this.onPhone);
    this.meldFit.disconnect();
    document.removeEventListener('keydown', this.onKey);
    document.title = t('app.name');
    clear(this.root);
  }

  /** The hand's drag and drop: reorder, play onto a target, tap to discard. */
  makeDrag() {
    const state = this.state;
    return new HandDrag(this.els.hand, {
      canDrag: () => !!state.view && state.view.seat !== null && ['draw', 'play'].includes(state.view.phase),
      onStart: (i) => showTargets(this, state.hand[i], true),
      onMove: (i, insertAt) => layoutHand(this, insertAt === null ? null : { from: i, to: insertAt }),
      onEnd: () => {
        showTargets(this, null, false);
        if (!state.deferred) layoutHand(this);
      },
      onDrop: (i, data) => dropOn(this, state.hand[i], data),
      onReorder: (from, to) => reorder(this, from, to),
      onTap: (i, how) => tapCard(this, i, how),
      insertionIndex: (x, y) => insertionIndex(this, x, y),
      onIdle: () => {
        if (!state.deferred) return;
        const events = state.deferred;
        state.deferred = null;
        this.render(events);
      },
    });
  }

  /**
   * Draw what changed, now or, while a hand card is pressed or dragged, all but the
   * hand (its cards stay under the pointer; it is drawn when the card is let go). The
   * felt is drawn at once, and the dragged card's targets anew from the newest view:
   * a drag started before the answer to the move before (a draw, a lay-off) came
   * finds the targets that answer opened.
   * @param {GameEvent[]} events
   */
  refresh(events) {
    const state = this.state;
    if (!this.drag.holding) { this.render(events); return; }
    state.deferred = [...(state.deferred || []), ...events];
    const view = state.view;
    renderSide(this);
    if (!view || view.phase === 'not_started') return;
    const before = captureRects(this);
    renderPiles(this);
    renderOpponents(this);
    renderMelds(this);
    fitMelds(this);
    renderControls(this);
    animate(this, before, events);
    const dragged = this.drag.draggedIndex;
    if (dragged !== null) showTargets(this, state.hand[dragged], true);
  }

  /**
   * Send a move. One move at a time: a second click before the server answered is ignored.
   * @param {Action} action
   */
  send(action) {
    const state = this.state;
    if (action.type !== 'arrange') {
      state.busy = true;
      clearTimeout(state.busyTimer);
      state.busyTimer = setTimeout(() => { state.busy = false; }, 3000);
    }
    if (!state.table) return undefined;
    return this.app.send({ type: 'action', table: state.table.id, action });
  }

  /** @param {number} id the table that is loading */
  waitFor(id) {
    this.state.table = null;
    clear(this.els.hand);
    this.els.waiting.hidden = false;
    this.els.waiting.replaceChildren(h('p', t('table.loading', { id })));
  }

  /**
   * The table changed (a `table` or an `update`); `events` tell what happened.
   * @param {Table} table
   * @param {GameEvent[]} events
   */
  setTable(table, events) {
    const state = this.state;
    if (events.length) state.busy = false;
    noteMoves(this, events, table);
    tableLog(table.id).observe(table, this.app.now());
    const prevRound = state.view?.round_no;
    state.table = table;
    this.app.tableId = table.id;
    if (state.view && prevRound !== undefined && state.view.round_no !== prevRound) {
      state.summaryFor = null;
      state.reopened = false;
    }
    this.refresh(events);
  }

  /** @param {string} what what changed in the app: language, chat, lobby, invitations, welcome, seats... */
  update(what) {
    const table = this.state.table;
    if (!table) return;
    tableLog(table.id).observe(table, this.app.now());
    if (what === 'language') {
      this.els = buildTable(this);
      this.drag = this.makeDrag();
      this.meldFit.disconnect();
      this.meldFit.observe(this.els.center);
      this.render([]);
      return;
    }
    if (what === 'chat') { renderChat(this); return; }
    if (what === 'lobby' || what === 'invitations') { this.refreshInvite?.(); return; }
    this.refresh([]);
  }

  /**
   * Draw the whole screen from the state; `events` animate what changed.
   * @param {GameEvent[]} events
   */
  render(events) {
    const state = this.state;
    const table = state.table;
    if (!table) return;
    const before = captureRects(this);
    const view = state.view;
    syncHand(this);
    // A new deal comes sorted by suit, as players expect; they may rearrange it.
    const dealt = view && view.seat !== null && events.some((e) => e.type === 'hand_dealt' && e.seat === view.seat);
    if (dealt && state.hand.length) {
      state.hand = sortBySuit(state.hand);
      state.pendingOrder = [...state.hand];
      this.send({ type: 'arrange', cards: state.hand });
    }
    renderSide(this);
    const els = this.els;
    const waiting = !view || view.phase === 'not_started';
    els.waiting.hidden = !waiting;
    els.center.hidden = waiting;
    els.me.hidden = waiting;
    const watching = !waiting && view.seat === null;
    els.handActions.hidden = watching;
    els.hand.hidden = watching;
    els.meName.hidden = watching;
    els.piles.hidden = waiting;
    if (waiting) {
      renderWaiting(this);
      renderOpponents(this);
      els.overlay.hidden = true;
      return;
    }
    renderPiles(this);
    renderOpponents(this);
    renderMelds(this);
    renderHand(this);
    fitMelds(this);
    renderControls(this);
    renderSummary(this);
    animate(this, before, events);
    markFresh(this, events);
    if (!performance.getEntriesByName('romme-table').length) performance.mark('romme-table');

    if (events.some((e) => e.type === 'turn_started' && e.seat === view.seat)) { flashTurn(this); play('turn'); }
    if (events.some((e) => CARD_MOVES.includes(e.type))) play('card');
    const ended = events.find((e) => e.type === 'round_ended');
    if (ended?.result) play(ended.result.winner === view.seat ? 'win' : 'end');
    document.title = `${state.myTurn ? '❗ ' : ''}${t('app.name')} · ${t('table.title', { id: table.id })}`;
  }

  /** The server refused a message: show the table as it is (the toast says why). */
  onError() {
    this.state.busy = false;
    if (this.state.table?.view) this.refresh([]);
  }

  // What the elements and the app call: the player's intentions.

  /** @param {'stock' | 'discard'} source */
  draw(source) { draw(this, source); }
  layCards() { layCards(this); }
  /** @param {string} key a meld of the hand, by its cards' keys */
  toggleMeld(key) { toggleMeld(this, key); }
  knock() { knock(this); }
  /**
   * @param {Card | null | undefined} code
   * @param {HTMLElement} target
   */
  dropOn(code, target) { dropOn(this, code, target); }
  /** @param {'suit' | 'rank'} how */
  sortHand(how) { sortHand(this, how); }
  askHint() { askHint(this); }
  /** @param {{action: Action | null}} msg the server's `hint` */
  showHint(msg) { showHint(this, msg); }
  /** @param {KeyboardEvent} e */
  handKey(e) { handKey(this, e); }
  keysDialog() { keysDialog(); }
  /** @param {boolean} [force] open (true) or close (false); else toggle */
  toggleSide(force) { toggleSide(this, force); }
  playerInfoDialog() { playerInfoDialog(this); }
  inviteDialog() { inviteDialog(this); }
  openResults() { openResults(this); }
  leave() { leave(this); }
  exit() { exit(this); }
}
