// @ts-check
// The account page (#/account): change the password, the sessions with "log out
// everywhere", download one's data, delete the account (docs/protocol.md,
// "The account owner").

import { ApiError, api } from './api.js';
import { t, translateDom } from './i18n.js';
import { clear, dialog, h, languagePicker, toast } from './ui.js';
import { helpButton } from './help.js';

/** @import { App } from './types.js' */
/** @import { Session } from './api.js' */

/**
 * A password input of the forms below.
 * @param {string} id
 * @param {string} label a catalog key
 * @param {'current-password' | 'new-password'} autocomplete
 */
function passwordField(id, label, autocomplete) {
  const input = h('input', { id, type: 'password', autocomplete, required: true, minlength: 8, maxlength: 128 });
  return { input, field: h('label.field', h('span', { 'data-i18n': label }), input) };
}

/**
 * A browser's name from its user agent, short enough for a list.
 * @param {string} agent
 */
function browserName(agent) {
  const found = agent.match(/(Firefox|Edg|OPR|Chrome|Safari)\/[\d.]+/);
  const system = agent.match(/(Android|iPhone|iPad|Windows|Mac OS X|Linux)/);
  const name = found ? found[1].replace('Edg', 'Edge').replace('OPR', 'Opera') : t('account.unknown_browser');
  return system ? `${name} · ${system[1].replace('Mac OS X', 'macOS')}` : name;
}

export class AccountScreen {
  /**
   * @param {App} app
   * @param {HTMLElement} root
   */
  constructor(app, root) {
    this.app = app;
    this.root = root;
    this.sessionsEl = h('ul.session-list', { id: 'session-list' });
    this.build();
    this.loadSessions();
  }

  destroy() { clear(this.root); }

  /** @param {string} what language */
  update(what) {
    if (what === 'language') { this.build(); this.loadSessions(); }
  }

  build() {
    const app = this.app;
    const me = app.me;
    const registered = me !== null && !me.guest;
    const header = h('header.topbar',
      h('button.ghost', { id: 'account-back', onclick: () => app.openLobby(), 'data-i18n': 'account.to_lobby' }),
      h('div.topbar-right', languagePicker(), helpButton('help-link')));
    const panels = [
      h('section.panel', { 'aria-labelledby': 'sessions-h' },
        h('div.panel-head', h('h2', { id: 'sessions-h', 'data-i18n': 'account.sessions' }),
          h('button', { id: 'logout-everywhere', onclick: () => this.logoutEverywhere(), 'data-i18n': 'account.logout_everywhere' })),
        this.sessionsEl),
      h('section.panel', { 'aria-labelledby': 'export-h' },
        h('h2', { id: 'export-h', 'data-i18n': 'account.export' }),
        h('p.hint-text', { 'data-i18n': 'account.export_text' }),
        h('a.button', { id: 'export', href: 'api/me/export', download: `romme-${me?.id ?? 'me'}.json`, 'data-i18n': 'account.export_button' })),
    ];
    if (registered) panels.unshift(this.passwordPanel());
    panels.push(registered ? this.deletePanel() : h('section.panel', h('p', { id: 'guest-note', 'data-i18n': 'account.guest_note' })));
    this.root.replaceChildren(h('div.account',
      header,
      h('div.account-grid',
        h('h1', { id: 'account-title' }, t('account.title', { nickname: me?.nickname ?? '' })),
        ...panels)));
    translateDom(this.root);
  }

  passwordPanel() {
    const old = passwordField('old-password', 'account.old_password', 'current-password');
    const fresh = passwordField('new-password', 'account.new_password', 'new-password');
    const again = passwordField('new-password-again', 'account.new_password_again', 'new-password');
    const status = h('p.form-error', { role: 'alert', id: 'password-status' });
    const submit = h('button.primary', { type: 'submit', id: 'change-password', 'data-i18n': 'account.change_password' });
    const form = h('form.account-form', {
      onsubmit: async (/** @type {SubmitEvent} */ e) => {
        e.preventDefault();
        status.textContent = '';
        if (fresh.input.value !== again.input.value) { status.textContent = t('account.passwords_differ'); return; }
        submit.disabled = true;
        try {
          const answer = await api.changePassword(old.input.value, fresh.input.value);
          form.reset();
          toast(t('account.password_changed', { n: answer.sessions_ended }), 'info', 6000);
          this.loadSessions();
        } catch (err) {
          status.textContent = this.app.errorText(/** @type {ApiError} */ (err));
        } finally {
          submit.disabled = false;
        }
      },
    }, old.field, fresh.field, again.field, h('p.hint-text', { 'data-i18n': 'account.password_note' }), status, submit);
    return h('section.panel', { 'aria-labelledby': 'password-h' }, h('h2', { id: 'password-h', 'data-i18n': 'account.password' }), form);
  }

  deletePanel() {
    const password = passwordField('delete-password', 'account.password_confirm', 'current-password');
    const status = h('p.form-error', { role: 'alert', id: 'delete-status' });
    const submit = h('button.danger', { type: 'submit', id: 'delete-account', 'data-i18n': 'account.delete_button' });
    const form = h('form.account-form', {
      onsubmit: (/** @type {SubmitEvent} */ e) => {
        e.preventDefault();
        status.textContent = '';
        const sure = dialog(t('account.delete_confirm_title'), h('div',
          h('p', t('account.delete_confirm')),
          h('div.dialog-buttons',
            h('button', { onclick: () => sure.close() }, t('common.cancel')),
            h('button.danger', { id: 'delete-confirm', onclick: async () => {
              sure.close();
              try {
                await api.deleteAccount(password.input.value);
                toast(t('account.deleted'), 'info', 6000);
                await this.app.logout();
              } catch (err) {
                status.textContent = this.app.errorText(/** @type {ApiError} */ (err));
              }
            } }, t('account.delete_button')))));
      },
    }, h('p', { 'data-i18n': 'account.delete_text' }), password.field, status, submit);
    return h('section.panel.danger-zone', { 'aria-labelledby': 'delete-h' }, h('h2', { id: 'delete-h', 'data-i18n': 'account.delete' }), form);
  }

  async loadSessions() {
    const list = this.sessionsEl;
    try {
      const { sessions } = await api.sessions();
      // This device first, then the others, newest first (the server's order).
      const ordered = [...sessions.filter((s) => s.current), ...sessions.filter((s) => !s.current)];
      list.replaceChildren(...ordered.map((s) => this.sessionItem(s)));
    } catch (err) {
      list.replaceChildren(h('li.form-error', this.app.errorText(/** @type {ApiError} */ (err))));
    }
  }

  /** @param {Session} s */
  sessionItem(s) {
    const seen = new Date(s.last_seen_at).toLocaleString();
    return h('li.session', { 'data-session': String(s.id) },
      h('span.session-name', browserName(s.user_agent), s.current ? h('span.badge', t('account.this_device')) : null),
      h('span.session-meta', t('account.session_meta', { address: s.address, seen })),
      s.current ? null : h('button.small', { onclick: async () => {
        try { await api.revokeSession(s.id); this.loadSessions(); } catch (err) { this.app.showError(/** @type {ApiError} */ (err)); }
      } }, t('account.end_session')));
  }

  async logoutEverywhere() {
    try { await api.logout(true); } catch { /* the cookie is gone either way */ }
    toast(t('account.logged_out_everywhere'), 'info', 6000);
    await this.app.logout();
  }
}
