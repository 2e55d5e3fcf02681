// @ts-check
// The player's settings, one dialog reachable from every screen (the gear): the
// language, the sound and its volume, the card size, four-colour suits, the card
// back, the animation speed and the felt. They live in this browser's
// localStorage and take effect at once, as data attributes on <html> that the
// stylesheet reads (and the animation speed, which table/anim.js asks for).

import { onLanguageChange, t } from './i18n.js';
import { setSound, setVolume, soundOn, soundVolume } from './sound.js';
import { dialog, h, languagePicker } from './ui.js';

const KEY = 'romme.settings';

/**
 * @typedef {object} Prefs
 * @property {'small' | 'medium' | 'large'} cards
 * @property {boolean} fourColour diamonds blue and clubs green
 * @property {'blue' | 'red' | 'green'} back
 * @property {'off' | 'slow' | 'normal' | 'fast'} speed
 * @property {'dark' | 'light'} felt
 */

/** @type {Prefs} */
const DEFAULTS = { cards: 'medium', fourColour: false, back: 'blue', speed: 'normal', felt: 'dark' };
/** The choices of each setting, in the order the dialog shows them. */
const CHOICES = {
  cards: ['small', 'medium', 'large'],
  back: ['blue', 'red', 'green'],
  speed: ['off', 'slow', 'normal', 'fast'],
  felt: ['dark', 'light'],
};
/** How long a movement takes at each speed, as a factor of the normal time. */
const SPEED_FACTOR = { off: 0, slow: 1.7, normal: 1, fast: 0.55 };

/** @returns {Prefs} the saved settings; a value this version does not know falls back to the default */
export function prefs() {
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem(KEY) || '{}') || {}; } catch { saved = {}; }
  /** @type {Record<string, unknown>} */
  const out = { ...DEFAULTS };
  for (const [name, choices] of Object.entries(CHOICES)) {
    const value = /** @type {Record<string, unknown>} */ (saved)[name];
    if (typeof value === 'string' && choices.includes(value)) out[name] = value;
  }
  out.fourColour = /** @type {Record<string, unknown>} */ (saved).fourColour === true;
  return /** @type {Prefs} */ (out);
}

/**
 * Save one setting and show it at once.
 * @template {keyof Prefs} K
 * @param {K} name
 * @param {Prefs[K]} value
 */
export function setPref(name, value) {
  const next = { ...prefs(), [name]: value };
  localStorage.setItem(KEY, JSON.stringify(next));
  applyPrefs();
}

/** Mark <html> with the settings the stylesheet reads. */
export function applyPrefs() {
  const p = prefs();
  const root = document.documentElement.dataset;
  root.cards = p.cards;
  root.back = p.back;
  root.felt = p.felt;
  if (p.fourColour) root.fourColour = ''; else delete root.fourColour;
}

/** The system asks for less movement: animations are off whatever the setting. */
export function reducedMotion() {
  return window.matchMedia('(prefers-reduced-motion: reduce)').matches;
}

/** How long movements take, as a factor of the normal time; 0: no movement. */
export function motionFactor() {
  return reducedMotion() ? 0 : SPEED_FACTOR[prefs().speed];
}

/**
 * A labelled menu of one setting's choices.
 * @param {'cards' | 'back' | 'speed' | 'felt'} name
 * @param {string} label the catalog key of its label
 * @param {boolean} [disabled]
 */
function choice(name, label, disabled = false) {
  const current = prefs()[name];
  const select = h('select', {
    id: `pref-${name}`, disabled,
    onchange: (/** @type {Event & {target: HTMLSelectElement}} */ e) => setPref(name, /** @type {any} */ (e.target.value)),
  }, CHOICES[name].map((value) => h('option', { value, selected: value === current }, t(`prefs.${name}_${value}`))));
  return h('label.pref', h('span', t(label)), select);
}

/** Open the settings dialog. */
export function settingsDialog() {
  const volume = h('input', {
    type: 'range', id: 'pref-volume', min: '0', max: '100', step: '5', value: String(Math.round(soundVolume() * 100)),
    disabled: !soundOn(),
    oninput: (/** @type {Event & {target: HTMLInputElement}} */ e) => setVolume(Number(e.target.value) / 100),
  });
  const sound = h('input', {
    type: 'checkbox', id: 'pref-sound', checked: soundOn(),
    onchange: (/** @type {Event & {target: HTMLInputElement}} */ e) => {
      setSound(e.target.checked);
      volume.disabled = !e.target.checked;
      document.dispatchEvent(new CustomEvent('romme-sound'));
    },
  });
  const four = h('input', {
    type: 'checkbox', id: 'pref-four-colour', checked: prefs().fourColour,
    onchange: (/** @type {Event & {target: HTMLInputElement}} */ e) => setPref('fourColour', e.target.checked),
  });
  const language = languagePicker();
  language.id = 'pref-language'; // the header's menu may be on the page too
  const reduced = reducedMotion();
  const body = h('div.prefs',
    h('label.pref', h('span', t('app.language')), language),
    h('label.pref.check-pref', sound, h('span', t('table.sound'))),
    h('label.pref', h('span', t('prefs.volume')), volume),
    choice('cards', 'prefs.cards'),
    h('label.pref.check-pref', four, h('span', t('prefs.four_colour'))),
    choice('back', 'prefs.back'),
    choice('speed', 'prefs.speed', reduced),
    reduced ? h('p.field-help', t('prefs.reduced_motion')) : null,
    choice('felt', 'prefs.felt'),
    h('div.dialog-buttons', h('button.primary', { id: 'prefs-done', onclick: () => box.close() }, t('common.close'))));
  // A new language: the dialog opens again in it (once the other listeners have heard of it).
  const off = onLanguageChange(() => {
    off();
    setTimeout(() => {
      if (!box.el.isConnected) return; // closed meanwhile
      box.close();
      settingsDialog();
      document.getElementById('pref-language')?.focus();
    });
  });
  const box = dialog(t('prefs.title'), body, { className: 'prefs-dialog', onClose: () => off() });
  return box;
}

/**
 * The gear button that opens the settings.
 * @param {string} [className] extra classes
 */
export function settingsButton(className = '') {
  return h(`button.settings-btn${className ? `.${className}` : ''}`, {
    id: 'settings-open', type: 'button', onclick: () => settingsDialog(),
    'aria-label': t('prefs.title'), 'data-i18n-label': 'prefs.title',
  }, h('span.btn-icon', { 'aria-hidden': 'true' }, '⚙'), h('span.btn-text', { 'data-i18n': 'prefs.title' }, t('prefs.title')));
}
