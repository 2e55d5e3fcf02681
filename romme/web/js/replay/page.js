// @ts-check
// The replay of a finished game (#/replay/ID, or #/replay/ID/MOVE for one position):
// every position the server's engine replayed from the log, with every hand open,
// the melds, the discard pile and the stock; stepped with buttons, the keys ←/→,
// Home and End, or a slider. Under it each round's summary as it ends, the score
// sheet of all rounds and the shuffle check (./check.js). The link in the address
// bar always names the position shown, so that it can be shared as it is.
//
// A step is a move: a sort of the hand (`arrange`) is no step of its own but folded
// into the move before it (that step shows the hand as sorted after it). The
// analysis lists its marked moves, with jumps to the previous and the next.

import { api } from '../api.js';
import { cardName, cardSVG } from '../cards.js';
import { t } from '../i18n.js';
import { clear, h, languagePicker, toast } from '../ui.js';
import { AnalysisPanel } from './analysis.js';
import { checkShuffle, renderShuffleCheck } from './check.js';
import { roundOutcome, roundTable, sheetTable } from './sheet.js';
import { botName, playerName } from '../botname.js';

/** @import { App } from '../types.js' */
/** @import { RoundCheck } from './check.js' */
/** @import { Position, ReplayData } from './types.js' */

/** @type {Record<string, string>} */
const MOVE_KEYS = {
  discard: 'move.discarded',
  lay_off: 'move.laid_off',
  exchange_joker: 'move.exchanged',
  knock: 'move.knocked',
  arrange: 'replay.arranged',
};

/** The stepping buttons' pictures (an icon font may be missing: drawn, not typed). */
const ICONS = Object.fromEntries(Object.entries({
  first: 'M5 4h2v16H5zM19 4v16L8 12z',
  prev: 'M17 4v16L6 12z',
  next: 'M7 4v16l11-8z',
  last: 'M17 4h2v16h-2zM5 4v16l11-8z',
}).map(([name, path]) => [name, `<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true"><path d="${path}" fill="currentColor"/></svg>`]));

/**
 * The top bar's way back to the lobby: an arrow and words, the arrow alone on a phone.
 * @param {string} id
 * @param {() => void} onclick
 */
export function backButton(id, onclick) {
  return h('div.brand', h('button.ghost.back', { id, onclick, 'aria-label': t('summary.back_to_lobby') },
    h('span', { 'aria-hidden': 'true' }, '←'), h('span.back-label', t('summary.back_to_lobby'))));
}

/**
 * A card as a small picture with its name for screen readers.
 * @param {string} code
 * @param {string} [extra] more classes
 */
function cardFace(code, extra = '') {
  return h(`span.card.face.mini${extra}`, { html: cardSVG(code), role: 'img', 'aria-label': cardName(code, t), 'data-card': code });
}

export class ReplayScreen {
  /**
   * @param {App} app
   * @param {HTMLElement} root
   * @param {number} gameId
   * @param {number | null} move the position to show first (null: the first deal)
   */
  constructor(app, root, gameId, move) {
    this.app = app;
    this.root = root;
    this.gameId = gameId;
    /** @type {ReplayData | null} */
    this.replay = null;
    this.index = move ?? 1;
    /** @type {RoundCheck[] | null} */
    this.checks = null;
    /** @type {string | null} */
    this.checkFailure = null;
    /** @type {string | null} */
    this.error = null;
    /** @type {HTMLInputElement | null} */
    this.slider = null;
    /** The positions a step shows: the first, and each one a move (not a sort) led to. @type {number[]} */
    this.steps = [0];
    this.analysis = new AnalysisPanel(app, gameId, () => this.showMarks(this.index),
      (move) => this.go(move + 1), (move) => this.moveLabel(move + 1));
    this.onKey = (/** @type {KeyboardEvent} */ e) => this.key(e);
    document.addEventListener('keydown', this.onKey);
    this.render();
    this.load();
  }

  destroy() {
    this.analysis.destroy();
    document.removeEventListener('keydown', this.onKey);
    clear(this.root);
  }

  /** @param {string} what */
  update(what) {
    if (what === 'language') this.render();
  }

  async load() {
    try {
      this.replay = /** @type {ReplayData} */ (await api.replay(this.gameId));
    } catch (err) {
      this.error = this.app.errorText(/** @type {any} */ (err));
      this.render();
      return;
    }
    this.steps = this.replay.positions.flatMap((p, i) => (i === 0 || p.action?.type !== 'arrange' ? [i] : []));
    this.index = this.stepStart(Math.max(0, Math.min(this.index, this.replay.positions.length - 1)));
    this.render();
    this.analysis.load();
    try {
      this.checks = await checkShuffle(this.replay);
    } catch (err) {
      this.checkFailure = t('replay.check_unavailable', { reason: String(/** @type {Error} */ (err).message || err) });
    }
    this.renderCheck();
  }

  /**
   * A seat's name: the player's nickname, or the computer opponent's level.
   * @param {number} seat
   */
  seatName(seat) {
    const info = this.replay?.seats[seat];
    if (info?.bot) return t('table.bot_name', { level: botName(info.bot), n: seat + 1 });
    if (info?.nickname) return playerName(info.nickname);
    return t('replay.deleted_player');
  }

  get scoredByRounds() { return this.replay?.rules?.scoring === 'rounds'; }

  /**
   * The step that position `index` belongs to (a sort belongs to the move before it).
   * @param {number} index
   */
  stepOf(index) {
    let k = 0;
    while (k + 1 < this.steps.length && this.steps[k + 1] <= index) k += 1;
    return k;
  }

  /** @param {number} index a position: the first position of its step */
  stepStart(index) { return this.steps[this.stepOf(index)]; }

  /**
   * The position a step shows: after the sorts that followed its move.
   * @param {number} index the step's first position
   */
  shownAt(index) {
    const k = this.stepOf(index);
    const next = this.steps[k + 1];
    return next === undefined ? (this.replay?.positions.length ?? 1) - 1 : next - 1;
  }

  /**
   * A move as the list of marked moves names it: its step's number and what it did.
   * @param {number} index the position the move led to
   */
  moveLabel(index) {
    return `${this.stepOf(index)}. ${this.describe(index)}`;
  }

  /**
   * Show the step of position `index` (clamped to the game).
   * @param {number} index
   */
  go(index) {
    if (!this.replay) return;
    const last = this.replay.positions.length - 1;
    const next = this.stepStart(Math.max(0, Math.min(last, index)));
    if (next === this.index) return;
    this.index = next;
    history.replaceState(null, '', `#/replay/${this.gameId}/${next}`);
    this.renderPosition();
  }

  /**
   * ←/→ one move, Home/End the first and the last position. Keys typed into a
   * field are the field's; the slider moves itself and tells through `input`.
   * @param {KeyboardEvent} e
   */
  key(e) {
    const target = /** @type {HTMLElement | null} */ (e.target);
    if (e.altKey || e.ctrlKey || e.metaKey || target?.closest('input, textarea, select, dialog')) return;
    const k = this.stepOf(this.index);
    /** @type {Record<string, number>} */
    const moves = { ArrowLeft: this.steps[Math.max(0, k - 1)], ArrowRight: this.steps[Math.min(this.steps.length - 1, k + 1)], Home: 0, End: Infinity };
    if (!(e.key in moves)) return;
    e.preventDefault();
    this.go(moves[e.key]);
  }

  /**
   * The computer expert's marks on the move that led to position `index` (the
   * log's action `index - 1`), in the element #replay-marks, with the analysis's
   * state or the button that asks for it.
   * @param {number} index
   */
  showMarks(index) {
    const marks = this.root.querySelector('#replay-marks');
    if (!(marks instanceof HTMLElement) || !this.replay) return;
    marks.dataset.move = String(index);
    marks.replaceChildren(this.analysis.render(index - 1));
    marks.hidden = false;
  }

  render() {
    const header = h('header.topbar',
      backButton('replay-back', () => this.app.openLobby()),
      h('h1.replay-title', t('replay.title', { id: this.gameId })),
      h('div.topbar-right', languagePicker(),
        h('button.ghost', { id: 'replay-share', onclick: () => this.share() }, t('replay.share'))));
    if (!this.replay) {
      const body = this.error ? h('p.form-error', { role: 'alert' }, this.error) : h('p.muted', t('common.loading'));
      this.root.replaceChildren(h('div.replay', header, h('section.panel.replay-status', body)));
      return;
    }
    const last = this.replay.positions.length - 1;
    const steps = this.steps;
    this.slider = h('input', { id: 'replay-slider', type: 'range', min: 0, max: steps.length - 1, step: 1, value: this.stepOf(this.index),
      'aria-label': t('replay.slider'), oninput: () => this.go(steps[Number(this.slider?.value)] ?? 0) });
    const step = (/** @type {number} */ d) => steps[Math.max(0, Math.min(steps.length - 1, this.stepOf(this.index) + d))];
    const button = (/** @type {string} */ id, /** @type {string} */ label, /** @type {string} */ text, /** @type {() => number} */ to) =>
      h('button', { id, type: 'button', 'aria-label': t(label), title: t(label), html: text, onclick: () => this.go(to()) });
    this.root.replaceChildren(h('div.replay', header,
      h('div.replay-grid',
        h('section.panel.replay-board', { 'aria-labelledby': 'replay-move' },
          h('div.replay-controls',
            button('replay-first', 'replay.first', ICONS.first, () => 0),
            button('replay-prev', 'replay.prev', ICONS.prev, () => step(-1)),
            this.slider,
            button('replay-next', 'replay.next', ICONS.next, () => step(1)),
            button('replay-last', 'replay.last', ICONS.last, () => last)),
          h('p.replay-move', { id: 'replay-move', 'aria-live': 'polite' }),
          h('div.replay-marks', { id: 'replay-marks', hidden: true }),
          h('div', { id: 'replay-position' }),
          h('div', { id: 'replay-round' })),
        h('div.replay-side',
          h('section.panel', { id: 'replay-sheet', 'aria-labelledby': 'sheet-h' },
            h('h2', { id: 'sheet-h' }, t('sheet.title')),
            this.replay.results.length
              ? sheetTable(this.replay.results, this.replay.seats.length, (s) => this.seatName(s), this.scoredByRounds)
              : h('p.muted', t('info.no_games'))),
          h('div', { id: 'replay-check-slot' })))));
    this.renderPosition();
    this.renderCheck();
  }

  renderCheck() {
    const slot = this.root.querySelector('#replay-check-slot');
    if (!slot || !this.replay) return;
    slot.replaceChildren(renderShuffleCheck(this.replay, this.checks, (s) => this.seatName(s), this.checkFailure));
  }

  renderPosition() {
    const replay = this.replay;
    const slot = this.root.querySelector('#replay-position');
    if (!replay || !slot) return;
    const k = this.stepOf(this.index);
    const lastStep = this.steps.length - 1;
    const position = replay.positions[this.shownAt(this.index)];
    if (this.slider) this.slider.value = String(k);
    for (const [id, off] of [['replay-first', k === 0], ['replay-prev', k === 0],
      ['replay-next', k === lastStep], ['replay-last', k === lastStep]]) {
      const el = this.root.querySelector(`#${id}`);
      if (el instanceof HTMLButtonElement) el.disabled = /** @type {boolean} */ (off);
    }
    const where = position.round_no ? t('replay.round_move', { round: position.round_no, move: k, moves: lastStep })
      : t('replay.move', { move: k, moves: lastStep });
    const moveText = /** @type {HTMLElement} */ (this.root.querySelector('#replay-move'));
    moveText.replaceChildren(h('span.where', where), ' ', h('strong', this.describe(this.index)));
    slot.replaceChildren(this.seatsView(position), this.tableView(position));
    this.renderRound(position);
    this.showMarks(this.index);
  }

  /**
   * What the action that led to position `index` did, in words.
   * @param {number} index
   * @returns {string}
   */
  describe(index) {
    const replay = /** @type {ReplayData} */ (this.replay);
    const action = replay.positions[index].action;
    if (!action) return t('replay.start');
    if (action.type === 'next_round') return t('replay.dealt', { round: replay.positions[index].round_no });
    const name = this.seatName(action.seat ?? 0);
    if (action.type === 'draw') {
      if (action.source !== 'discard') return t('move.drew', { name });
      const before = replay.positions[index - 1].discard;
      return t('move.took', { name, card: cardName(before[before.length - 1], t) });
    }
    if (action.type === 'lay') return t('move.laid', { name, n: action.melds?.length ?? 1 });
    const key = MOVE_KEYS[action.type];
    if (!key) return action.type;
    return t(key, { name, card: action.card ? cardName(action.card, t) : '' });
  }

  /** @param {Position} position */
  seatsView(position) {
    const seats = this.replay?.seats.length ?? 0;
    return h('div.replay-seats', [...Array(seats).keys()].map((s) => {
      const current = ['draw', 'play'].includes(position.phase) && position.current === s;
      return h('div.replay-seat', { 'data-seat': s, class: `${current ? 'current' : ''} ${position.active[s] ? '' : 'out'}` },
        h('div.replay-seat-head',
          h('strong', this.seatName(s)),
          position.round_no && position.dealer === s ? h('span.badge.dealer', t('replay.dealer')) : null,
          position.opened[s] ? h('span.badge.win', t('replay.opened')) : null,
          h('span.muted.replay-total', t('table.points_n', { n: position.totals[s] }))),
        h('div.replay-hand', { 'aria-label': t('replay.hand_of', { name: this.seatName(s) }) },
          position.hands[s].map((c) => cardFace(c))));
    }));
  }

  /** @param {Position} position */
  tableView(position) {
    const top = position.discard.length - 1;
    return h('div.replay-table',
      h('div.replay-piles',
        h('div.replay-stock', h('span.muted', t('replay.stock')), h('strong', { id: 'replay-stock-count' }, String(position.stock_count))),
        h('div.replay-discard', { id: 'replay-discard' }, h('span.muted', t('replay.discard')),
          h('div.replay-pile', position.discard.map((c, i) => cardFace(c, i === top ? '.top' : ''))))),
      h('div.replay-melds', { id: 'replay-melds' },
        position.melds.length
          ? position.melds.map((m, i) => h('div.replay-meld', { 'data-owner': position.meld_owners[i] },
            h('span.muted', this.seatName(position.meld_owners[i])), h('div.summary-cards', m.cards.map((c) => cardFace(c)))))
          : h('p.muted', t('replay.no_melds'))));
  }

  /**
   * The summary of the round that ended at this position (and the winners at the end).
   * @param {Position} position
   */
  renderRound(position) {
    const replay = /** @type {ReplayData} */ (this.replay);
    const slot = /** @type {HTMLElement} */ (this.root.querySelector('#replay-round'));
    const over = position.phase === 'round_over' || position.phase === 'game_over';
    const result = over ? replay.results[position.results - 1] : undefined;
    if (!result) { slot.replaceChildren(); return; }
    const name = (/** @type {number} */ s) => this.seatName(s);
    slot.replaceChildren(h('div.replay-summary', { id: 'replay-summary' },
      h('h2', position.phase === 'game_over'
        ? t('summary.game_over', { names: replay.winners.map(name) })
        : t('summary.title', { n: result.round_no })),
      h('p.summary-sub', roundOutcome(result, name, Number(replay.rules.stall_turns ?? 0))),
      roundTable(result, replay.seats.length, name, this.scoredByRounds)));
  }

  /** Copy the link to the position shown. */
  async share() {
    try {
      await navigator.clipboard.writeText(location.href);
      toast(t('replay.link_copied'), 'info');
    } catch {
      toast(location.href, 'info', 8000);
    }
  }
}
