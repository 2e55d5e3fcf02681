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
   */
  constructor(app, gameId, changed) {
    this.app = app;
    this.gameId = gameId;
    this.changed = changed;
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
    const count = analysis.status === 'done' && marked.length
      ? h('p.muted.analysis-count', t('analysis.marked_moves', { n: marked.length }))
      : null;
    return h('div.analysis', title, status ? h('p.muted', status) : null, count, ...marks);
  }
}
