// @ts-check
// Reporting a player: a reason from a fixed list and an optional note. The
// server attaches the game and the player's recent chat lines itself.

import { api } from './api.js';
import { t } from './i18n.js';
import { dialog, h, toast } from './ui.js';

/** @import { App } from './types.js' */

/** The reasons a report may give (docs/protocol.md, "Reports and moderation"). */
export const REPORT_REASONS = ['abusive_chat', 'cheating', 'offensive_nickname', 'other'];

/**
 * The "Report" button of a player's info, or null for oneself (the server
 * refuses reports of computer opponents with `cannot_report`).
 * @param {App} app
 * @param {{nickname: string}} player
 * @param {{close: () => void}} info the info dialog, closed when the report opens
 * @returns {HTMLElement | null}
 */
export function reportButton(app, player, info) {
  if (player.nickname === app.me?.nickname) return null;
  return h('div.dialog-buttons',
    h('button.ghost', { id: 'report-player', onclick: () => { info.close(); reportDialog(app, player.nickname); } },
      t('report.button')));
}

/**
 * @param {App} app
 * @param {string} nickname
 */
export function reportDialog(app, nickname) {
  const reason = h('select', { id: 'report-reason', 'aria-label': t('report.reason') },
    REPORT_REASONS.map((r) => h('option', { value: r }, t(`report.reason_${r}`))));
  const text = h('textarea', { id: 'report-text', maxlength: 500, rows: 3, 'aria-label': t('report.text'), placeholder: t('report.text') });
  const error = h('p.form-error', { id: 'report-error', role: 'alert' });
  const send = h('button.primary', { type: 'submit', id: 'report-send' }, t('report.send'));
  const form = h('form.report-form', {
    onsubmit: async (/** @type {Event} */ e) => {
      e.preventDefault();
      send.disabled = true;
      try {
        await api.report(nickname, reason.value, text.value.trim());
        dlg.close();
        toast(t('report.sent'));
      } catch (err) {
        error.textContent = app.errorText(/** @type {any} */ (err));
        send.disabled = false;
      }
    },
  },
  h('label', t('report.reason'), reason),
  text,
  h('p.muted', t('report.attached')),
  error,
  h('div.dialog-buttons', h('button', { type: 'button', onclick: () => dlg.close() }, t('common.cancel')), send));
  const dlg = dialog(t('report.title', { name: nickname }), form, { className: 'report-dialog' });
}
