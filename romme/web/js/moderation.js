// @ts-check
// The moderators' page (#/moderation): the reports with the chat lines the
// server attached, the mutes and bans in force, the moderation log; resolve a
// report, mute a player's chat for some minutes, ban an account, lift either.

import { api } from './api.js';
import { t, translateDom } from './i18n.js';
import { clear, h, languagePicker, toast } from './ui.js';

/** @import { App } from './types.js' */

/**
 * @typedef {{id: number, reporter: string, reported: string, reason: string, text: string,
 *   table: number | null, chat: {text: string, at: number}[], status: string, at: string,
 *   resolved_by: string | null, note: string | null}} Report
 * @typedef {{id: number, player_id: number, nickname: string, nickname_then: string | null, kind: string,
 *   until: string | null, at: string, source: number | null}} Sanction
 * @typedef {{id: number, actor: string, action: string, target: string | null, note: string, at: string}} LogEntry
 */

/**
 * The link to the moderators' page, shown only to moderators (GET /api/me says).
 * @returns {HTMLElement}
 */
export function moderationLink() {
  const link = h('a.ghost', { id: 'moderation-link', href: '#/moderation', hidden: true, 'data-i18n': 'mod.link' });
  api.me().then((/** @type {any} */ me) => { link.hidden = !me.moderator; }).catch(() => {});
  return link;
}

/** @param {string | null} iso */
const when = (iso) => (iso ? new Date(iso).toLocaleString() : '');

export class ModerationScreen {
  /**
   * @param {App} app
   * @param {HTMLElement} root
   */
  constructor(app, root) {
    this.app = app;
    this.root = root;
    this.openOnly = true;
    this.body = h('div.moderation-body', { id: 'moderation-body' }, h('p.muted', t('common.loading')));
    this.build();
    this.load();
  }

  destroy() { clear(this.root); }

  build() {
    const only = h('input', { type: 'checkbox', id: 'mod-open-only', checked: this.openOnly,
      onchange: () => { this.openOnly = only.checked; this.load(); } });
    this.root.replaceChildren(h('div.moderation',
      h('header.topbar', h('h1', { 'data-i18n': 'mod.title' }),
        h('div.topbar-right', languagePicker(), h('a.ghost', { href: '#/lobby', id: 'mod-back', 'data-i18n': 'mod.back' }))),
      h('label.check', only, h('span', { 'data-i18n': 'mod.open_only' })),
      this.body));
    translateDom(this.root);
  }

  /** @param {string} what */
  update(what) { if (what === 'language') { this.build(); this.load(); } }

  async load() {
    try {
      const data = await api.moderation(this.openOnly ? 'moderation?open=1' : 'moderation');
      this.render(data.reports, data.sanctions, data.log);
    } catch (err) {
      this.body.replaceChildren(h('p.form-error', this.app.errorText(/** @type {any} */ (err))));
    }
  }

  /**
   * @param {string} path
   * @param {object} body
   */
  async act(path, body) {
    try {
      await api.moderation(path, body);
      await this.load();
    } catch (err) {
      toast(this.app.errorText(/** @type {any} */ (err)), 'error');
    }
  }

  /**
   * @param {Report[]} reports
   * @param {Sanction[]} sanctions
   * @param {LogEntry[]} log
   */
  render(reports, sanctions, log) {
    this.body.replaceChildren(
      h('section.panel', h('h2', t('mod.reports')),
        reports.length ? h('ul.report-list', { id: 'report-list' }, reports.map((r) => this.reportItem(r))) : h('p.muted', t('mod.no_reports'))),
      h('section.panel', h('h2', t('mod.sanctions')),
        sanctions.length
          ? h('ul.pick-list', { id: 'sanction-list' }, sanctions.map((s) => h('li', h('strong', s.nickname), ' ',
            h('span.badge', t(`mod.kind_${s.kind}`)), ' ',
            h('span.muted', s.until ? t('mod.until', { time: when(s.until) }) : t('mod.until_lifted')),
            h('button.small', { onclick: () => this.act('moderation/lift', { player: s.player_id, kind: s.kind }) }, t('mod.lift')))))
          : h('p.muted', t('mod.none'))),
      h('section.panel', h('h2', t('mod.log')),
        h('ol.mod-log', { id: 'mod-log' }, log.map((e) => h('li', h('time', when(e.at)), ' ', h('strong', e.actor), ' ',
          t(`mod.action_${e.action}`), ' ', e.target ? h('strong', e.target) : null, e.note ? `: ${e.note}` : '')))));
  }

  /** @param {Report} r */
  reportItem(r) {
    const note = h('input', { placeholder: t('mod.note'), 'aria-label': t('mod.note'), maxlength: 1000 });
    const minutes = h('input', { type: 'number', min: 1, value: 60, 'aria-label': t('mod.minutes'), class: 'minutes' });
    const open = r.status === 'open';
    return h('li.report', { dataset: { report: String(r.id) } },
      h('div', h('strong', t('mod.reported', { reporter: r.reporter, reported: r.reported })), ' ',
        h('span.badge', t(`report.reason_${r.reason}`)), ' ',
        h('span.muted', `${r.table === null ? t('mod.where_lobby') : t('mod.where_table', { id: r.table })} · ${when(r.at)}`)),
      r.text ? h('p.report-text', r.text) : null,
      r.chat.length
        ? h('ol.chat-log.report-chat', r.chat.map((c) => h('li', h('span.text', c.text))))
        : h('p.muted', t('mod.no_chat')),
      open
        ? h('div.report-actions', note, minutes,
          h('button.small', { onclick: () => this.act('moderation/mute', { nickname: r.reported, minutes: Number(minutes.value) || 60, note: note.value }) }, t('mod.mute')),
          h('button.small', { onclick: () => this.act('moderation/ban', { nickname: r.reported, note: note.value }) }, t('mod.ban')),
          h('button.small.primary', { dataset: { resolve: String(r.id) }, onclick: () => this.act('moderation/resolve', { report: r.id, note: note.value }) }, t('mod.resolve')))
        : h('p.muted', `${t('mod.status_resolved', { name: r.resolved_by ?? '' })}${r.note ? `: ${r.note}` : ''}`));
  }
}
