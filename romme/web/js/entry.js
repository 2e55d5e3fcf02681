// @ts-check
// The entry form: play as a guest, log in or register. Its own module because it
// is a screen of its own (the first one of a browser without a session) and
// needs nothing of the app's state: main.js starts the session with the player
// it gives back.

import { api } from './api.js';
import { cardSVG } from './cards.js';
import { helpButton } from './help.js';
import { t, translateDom } from './i18n.js';
import { h, languagePicker } from './ui.js';

/** @import { App, Player, ServerError } from './types.js' */

/**
 * Put the entry form into `root` (in place of what it holds) and focus the nickname.
 * @param {HTMLElement} root
 * @param {App} app for the text of a refusal (`errorText`)
 * @param {(player: Player) => void} onEntered called with the player once the server took them in
 * @param {string} [error] why the player is asked again
 */
export function showEntryForm(root, app, onEntered, error) {
  root.replaceChildren();
  const status = h('p.form-error', { role: 'alert' }, error || '');
  const nick = h('input', { id: 'entry-nick', name: 'nickname', autocomplete: 'username', required: true, minlength: 3, maxlength: 20, 'data-i18n-placeholder': 'entry.nickname_placeholder' });
  const pass = h('input', { id: 'entry-pass', name: 'password', type: 'password', autocomplete: 'current-password', minlength: 8, maxlength: 128, 'data-i18n-placeholder': 'entry.password_placeholder' });
  /** @typedef {'guest' | 'login' | 'register'} Mode */
  /** @type {Mode} */
  let mode = 'guest';
  /** @type {Record<string, HTMLButtonElement>} */
  const modeButtons = {};
  const submit = h('button.primary.big', { type: 'submit', id: 'entry-submit' });
  const passRow = h('label.field', h('span', { 'data-i18n': 'entry.password' }), pass);
  /** @param {Mode} m */
  const setMode = (m) => {
    mode = m;
    for (const [k, b] of Object.entries(modeButtons)) {
      b.classList.toggle('active', k === m);
      b.setAttribute('aria-selected', String(k === m));
    }
    passRow.hidden = m === 'guest';
    pass.required = m !== 'guest';
    pass.autocomplete = m === 'register' ? 'new-password' : 'current-password';
    submit.dataset.i18n = `entry.submit_${m}`;
    submit.textContent = t(`entry.submit_${m}`);
    status.textContent = '';
  };
  for (const m of /** @type {Mode[]} */ (['guest', 'login', 'register'])) {
    modeButtons[m] = h('button.tab', { type: 'button', role: 'tab', id: `entry-tab-${m}`, 'data-i18n': `entry.tab_${m}`, onclick: () => setMode(m) });
  }
  const form = h('form.entry-card', {
    onsubmit: async (/** @type {SubmitEvent} */ e) => {
      e.preventDefault();
      submit.disabled = true;
      status.textContent = '';
      try {
        const nickname = nick.value.trim();
        const res = mode === 'guest' ? await api.guest(nickname)
          : mode === 'login' ? await api.login(nickname, pass.value)
            : await api.register(nickname, pass.value);
        onEntered(res.player);
      } catch (err) {
        status.textContent = app.errorText(/** @type {ServerError} */ (err));
      } finally {
        submit.disabled = false;
      }
    },
  },
  h('div.entry-fan', { 'aria-hidden': 'true' }, ['QH', 'KS', 'XX', 'AD', 'JC'].map((c, i) => h('span.card', { html: cardSVG(c), style: `--i:${i - 2}` }))),
  h('div.brand-big', h('span', { 'data-i18n': 'app.name' })),
  h('p.tagline', { 'data-i18n': 'entry.tagline' }),
  h('div.tabs', { role: 'tablist' }, Object.values(modeButtons)),
  h('label.field', h('span', { 'data-i18n': 'entry.nickname' }), nick),
  passRow,
  status,
  submit,
  h('p.hint-text', { 'data-i18n': 'entry.rules_hint' }));
  root.append(h('div.entry', form, h('div.entry-links', languagePicker(), helpButton('help-link'))));
  translateDom(root);
  setMode('guest');
  nick.focus();
}
