// @ts-check
// The analysis beside a replay: the computer expert's marks on the move shown
// (./marks.js phrases them), and, for a game the player took part in, a button
// that asks the server to analyse it. The server analyses in its bot workers,
// never slowing a table; the page asks again every few seconds until it is done.

import { api } from '../api.js';
import { t } from '../i18n.js';
import { h, toast } from '../ui.js';
import { analysisStatus, markedMoves, renderMarks } from './marks.js';

/** @import { App } from '../types.js' */
/** @import { Analysis } from './marks.js' */

/** How long to wait between two looks at an analysis under way. */
const POLL_MS = 2000;

export class AnalysisPanel {
  /**
   * @param {App} app
   * @param {number} gameId
   * @param {() => void} changed called when the analysis arrives or moves on
   * @param {(move: number) => void} goTo show the position log action `move` led to
   * @param {(move: number) => string} label log action `move` as the list of marked moves names it
   */
  constructor(app, gameId, changed, goTo, label) {
    this.app = app;
    this.gameId = gameId;
    this.changed = changed;
    this.goTo = goTo;
    this.label = label;
    /** The list of marked moves is open (it stays so from move to move). */
    this.listOpen = false;
    /** @type {Analysis | null} */
    this.analysis = null;
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.timer = null;
    this.closed = false;
  }

  destroy() {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
  }

  /** Fetch what the server has (nothing, under way, or done). */
  async load() {
    try {
      this.accept(await api.analysis(this.gameId));
    } catch {
      // The replay stays usable without its analysis.
    }
  }

  /** Ask the server to analyse the game; a refusal (not one's game...) is a toast. */
  async request() {
    try {
      this.accept(await api.requestAnalysis(this.gameId));
    } catch (err) {
      toast(this.app.errorText(/** @type {any} */ (err)), 'error');
    }
  }

  /** @param {Analysis} analysis */
  accept(analysis) {
    if (this.closed) return;
    this.analysis = analysis;
    this.changed();
    if (analysis.status === 'pending') {
      this.timer = setTimeout(() => { this.timer = null; this.load(); }, POLL_MS);
    }
  }

  /**
   * The panel for the position reached by log action `action` (-1: before any).
   * @param {number} action
   * @returns {HTMLElement}
   */
  render(action) {
    const analysis = this.analysis;
    const title = h('h3.analysis-title', t('analysis.title'));
    if (!analysis || analysis.status === 'none') {
      return h('div.analysis', title,
        h('button', { id: 'analysis-request', type: 'button', onclick: () => this.request() }, t('analysis.request')));
    }
    const status = analysisStatus(analysis);
    const marks = renderMarks(analysis, action);
    const marked = markedMoves(analysis);
    const done = analysis.status === 'done' && marked.length > 0;
    return h('div.analysis', title, status ? h('p.muted', status) : null,
      done ? this.jumps(marked, action) : null, ...marks, done ? this.list(analysis, marked, action) : null);
  }

  /**
   * The previous and the next marked move from the one shown.
   * @param {number[]} marked the marked moves, in order
   * @param {number} action the move shown
   */
  jumps(marked, action) {
    const before = [...marked].reverse().find((m) => m < action);
    const after = marked.find((m) => m > action);
    /** @param {string} id @param {string} key @param {number | undefined} move */
    const jump = (id, key, move) => h('button.small', { id, type: 'button', disabled: move === undefined,
      onclick: () => { if (move !== undefined) this.goTo(move); } }, t(key));
    return h('div.analysis-jumps',
      h('span.muted.analysis-count', t('analysis.marked_moves', { n: marked.length })),
      jump('mark-prev', 'analysis.prev_mark', before), jump('mark-next', 'analysis.next_mark', after));
  }

  /**
   * Every marked move, each a link to it; the one shown is marked.
   * @param {Analysis} analysis
   * @param {number[]} marked
   * @param {number} action the move shown
   */
  list(analysis, marked, action) {
    const severity = (/** @type {number} */ move) => {
      const order = ['inaccuracy', 'mistake', 'blunder'];
      const worst = (analysis.marks ?? []).filter((m) => m.move === move)
        .reduce((w, m) => Math.max(w, order.indexOf(m.severity)), 0);
      return order[worst];
    };
    const details = h('details.analysis-list', { id: 'marked-moves', open: this.listOpen },
      h('summary', t('analysis.list')),
      h('ol', marked.map((move) => h('li', { class: move === action ? 'current' : '' },
        h('button.link', { type: 'button', dataset: { move }, 'aria-current': move === action ? 'step' : 'false',
          onclick: () => this.goTo(move) },
        h(`span.analysis-severity.${severity(move)}`, t(`analysis.severity.${severity(move)}`)), ' ', this.label(move))))));
    details.addEventListener('toggle', () => { this.listOpen = /** @type {HTMLDetailsElement} */ (details).open; });
    return details;
  }
}
