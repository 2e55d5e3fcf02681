// Locale catalogs: every text the page shows comes from locales/<lang>.json.
// Keys are flat ("lobby.new_game"); placeholders are {name}. A text that
// counts something is an object of plural forms instead of a string:
//   "lobby.free_seats": { "=0": "no free seats", "one": "{n} free seat", "other": "{n} free seats" }
// The forms are the CLDR categories (zero, one, two, few, many, other) that the
// browser's Intl.PluralRules gives for the language, and exact forms "=N" that
// win over them. The count is the key's first placeholder holding a number or a
// list (a list counts its items), so call sites pass the same params as for a
// plain text. A list fills its placeholder as "A, B and C" in the language.
// docs/glossary.md names the words every catalog uses.

export const LANGUAGES = {
  en: 'English', de: 'Deutsch', pt: 'Português', es: 'Español', nl: 'Nederlands',
};
const STORE_KEY = 'romme.lang';
let lang = 'en';
let catalog = {};
let pluralRules = new Intl.PluralRules(lang);
let listFormat = new Intl.ListFormat(lang, { type: 'conjunction' });
const listeners = new Set();
/** Keys asked for that no catalog holds (the tests read this). */
export const missing = new Set();
window.__rommeMissingKeys = missing;

export function detectLanguage() {
  const saved = localStorage.getItem(STORE_KEY);
  if (saved && LANGUAGES[saved]) return saved;
  for (const tag of navigator.languages || [navigator.language || 'en']) {
    const base = String(tag).toLowerCase().split('-')[0];
    if (LANGUAGES[base]) return base;
  }
  return 'en';
}

async function load(code) {
  const response = await fetch(`locales/${code}.json`);
  if (!response.ok) throw new Error(`locale ${code}: ${response.status}`);
  return response.json();
}

export async function setLanguage(code, { save = true } = {}) {
  if (!LANGUAGES[code]) code = 'en';
  // Every catalog is complete (a test checks it), so no fallback is loaded.
  catalog = await load(code);
  lang = code;
  pluralRules = new Intl.PluralRules(code);
  listFormat = new Intl.ListFormat(code, { type: 'conjunction' });
  document.documentElement.lang = code;
  if (save) localStorage.setItem(STORE_KEY, code);
  translateDom(document);
  for (const fn of listeners) fn(code);
}

export function currentLanguage() { return lang; }
export function onLanguageChange(fn) { listeners.add(fn); return () => listeners.delete(fn); }

function fill(value) {
  return Array.isArray(value) ? listFormat.format(value.map(String)) : String(value);
}

function format(text, params) {
  return text.replace(/\{(\w+)\}/g, (m, name) => (params && name in params ? fill(params[name]) : m));
}

/** The number a plural text is chosen by: its first placeholder holding a number or a
 * list, else one holding a number already written out (a score such as "−12"). */
function countOf(forms, params) {
  const values = [...(forms.other ?? '').matchAll(/\{(\w+)\}/g)].map(([, name]) => params?.[name]);
  for (const value of values) {
    if (typeof value === 'number') return value;
    if (Array.isArray(value)) return value.length;
  }
  for (const value of values) {
    const written = typeof value === 'string' && value.trim() ? Number(value.replace('−', '-')) : NaN;
    if (Number.isFinite(written)) return written;
  }
  // A single name or card in the placeholder (no number, no list) is one thing.
  return 1;
}

function pluralForm(forms, params) {
  const count = countOf(forms, params);
  return forms[`=${count}`] ?? forms[pluralRules.select(count)] ?? forms.other;
}

/** The text of `key` in the current language, with {placeholders} filled in. */
export function t(key, params) {
  let text = catalog[key];
  if (text !== null && typeof text === 'object') text = pluralForm(text, params);
  if (text === undefined) {
    missing.add(key);
    console.warn(`missing text: ${key}`);
    text = key;
  }
  return format(text, params);
}

/** Fill elements marked data-i18n / data-i18n-placeholder / data-i18n-label / data-i18n-title. */
export function translateDom(root) {
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll('[data-i18n-placeholder]')) el.placeholder = t(el.dataset.i18nPlaceholder);
  for (const el of root.querySelectorAll('[data-i18n-label]')) el.setAttribute('aria-label', t(el.dataset.i18nLabel));
  for (const el of root.querySelectorAll('[data-i18n-title]')) el.title = t(el.dataset.i18nTitle);
}

export function formatTime(ms) {
  return new Intl.DateTimeFormat(lang, { hour: '2-digit', minute: '2-digit' }).format(new Date(ms));
}

export function hasKey(key) { return key in catalog; }
