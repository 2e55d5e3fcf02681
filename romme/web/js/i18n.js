// @ts-check
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

/**
 * A text's plural forms: CLDR category ("one", "other", ...) or exact form ("=0")
 * to the text; "other" is always there.
 * @typedef {Record<string, string>} PluralForms
 */
/** One catalog entry: a plain text, or the plural forms of a text that counts. @typedef {string | PluralForms} CatalogText */
/** A locale file: key to text. @typedef {Record<string, CatalogText>} Catalog */
/**
 * What fills a placeholder: a text, a number, or a list of names written as the
 * language writes a list ("Ana e Bruno").
 * @typedef {string | number | string[]} TextParam
 */
/** A text's placeholders by name. @typedef {Record<string, TextParam>} TextParams */
/** Told the new language's code after every change. @typedef {(code: string) => void} LanguageListener */

/** Language code to the language's own name (the language menu). @type {Readonly<Record<string, string>>} */
export const LANGUAGES = {
  en: 'English', de: 'Deutsch', pt: 'Português', es: 'Español', nl: 'Nederlands',
};
const STORE_KEY = 'romme.lang';
let lang = 'en';
/** @type {Catalog} */
let catalog = {};
let pluralRules = new Intl.PluralRules(lang);
let listFormat = new Intl.ListFormat(lang, { type: 'conjunction' });
/** @type {Set<LanguageListener>} */
const listeners = new Set();
/** Keys asked for that no catalog holds (the tests read this). @type {Set<string>} */
export const missing = new Set();
window.__rommeMissingKeys = missing;

/** The saved language, else the browser's first one the page speaks, else English. @returns {string} */
export function detectLanguage() {
  const saved = localStorage.getItem(STORE_KEY);
  if (saved && Object.hasOwn(LANGUAGES, saved)) return saved;
  for (const tag of navigator.languages || [navigator.language || 'en']) {
    const base = String(tag).toLowerCase().split('-')[0];
    if (Object.hasOwn(LANGUAGES, base)) return base;
  }
  return 'en';
}

/**
 * @param {string} code
 * @returns {Promise<Catalog>}
 */
async function load(code) {
  const response = await fetch(`locales/${code}.json`);
  if (!response.ok) throw new Error(`locale ${code}: ${response.status}`);
  return response.json();
}

/**
 * Load and show `code` (English for a code the page does not speak); `save` keeps
 * the choice for the next visit.
 * @param {string} code
 * @param {{save?: boolean}} [options]
 */
export async function setLanguage(code, { save = true } = {}) {
  if (!Object.hasOwn(LANGUAGES, code)) code = 'en';
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

/** @returns {string} */
export function currentLanguage() { return lang; }
/**
 * @param {LanguageListener} fn
 * @returns {() => boolean} stops telling `fn`
 */
export function onLanguageChange(fn) { listeners.add(fn); return () => listeners.delete(fn); }

/** @param {TextParam} value */
function fill(value) {
  return Array.isArray(value) ? listFormat.format(value.map(String)) : String(value);
}

/**
 * @param {string} text
 * @param {TextParams} [params]
 */
function format(text, params) {
  return text.replace(/\{(\w+)\}/g, (/** @type {string} */ m, /** @type {string} */ name) => (params && name in params ? fill(params[name]) : m));
}

/** A whole number as toLocaleString writes it ("10,000", "10.000", "10 000") without
 * its group separators; any other text as it is.
 * @param {string} text */
function ungrouped(text) {
  return /^[−-]?\d{1,3}([,.\u00a0\u202f ]\d{3})+$/.test(text) ? text.replace(/[,.\u00a0\u202f ]/g, '') : text;
}

/** The number a plural text is chosen by: its first placeholder holding a number or a
 * list, else one holding a number already written out (a score such as "−12").
 * @param {PluralForms} forms
 * @param {TextParams} [params]
 * @returns {number}
 */
function countOf(forms, params) {
  const values = [...(forms.other ?? '').matchAll(/\{(\w+)\}/g)].map(([, name]) => params?.[name]);
  for (const value of values) {
    if (typeof value === 'number') return value;
    if (Array.isArray(value)) return value.length;
  }
  for (const value of values) {
    const written = typeof value === 'string' && value.trim() ? Number(ungrouped(value).replace('−', '-')) : NaN;
    if (Number.isFinite(written)) return written;
  }
  // A single name or card in the placeholder (no number, no list) is one thing.
  return 1;
}

/**
 * @param {PluralForms} forms
 * @param {TextParams} [params]
 * @returns {string}
 */
function pluralForm(forms, params) {
  const count = countOf(forms, params);
  return forms[`=${count}`] ?? forms[pluralRules.select(count)] ?? forms.other;
}

/**
 * The text of `key` in the current language, with {placeholders} filled in.
 * @param {string} key
 * @param {TextParams} [params]
 * @returns {string}
 */
export function t(key, params) {
  /** @type {CatalogText | undefined} */
  let text = Object.hasOwn(catalog, key) ? catalog[key] : undefined;
  if (text !== null && typeof text === 'object') text = pluralForm(text, params);
  if (text === undefined) {
    missing.add(key);
    console.warn(`missing text: ${key}`);
    text = key;
  }
  return format(text, params);
}

/**
 * The elements under `root` that carry the attribute `name`, each with its value: a key.
 * @param {ParentNode} root
 * @param {string} name
 * @returns {[HTMLElement, string][]}
 */
function marked(root, name) {
  return [...root.querySelectorAll(`[${name}]`)].map((el) => /** @type {[HTMLElement, string]} */ ([el, el.getAttribute(name)]));
}

/**
 * Fill elements marked data-i18n / data-i18n-placeholder / data-i18n-label / data-i18n-title.
 * @param {ParentNode} root
 */
export function translateDom(root) {
  for (const [el, key] of marked(root, 'data-i18n')) el.textContent = t(key);
  for (const [el, key] of marked(root, 'data-i18n-placeholder')) /** @type {HTMLInputElement} */ (el).placeholder = t(key);
  for (const [el, key] of marked(root, 'data-i18n-label')) el.setAttribute('aria-label', t(key));
  for (const [el, key] of marked(root, 'data-i18n-title')) el.title = t(key);
}

/**
 * The hour and minute of `ms` (milliseconds since the epoch) as the language writes them.
 * @param {number} ms
 */
export function formatTime(ms) {
  // One formatter per language: a chat log formats hundreds of times in a row.
  if (!timeFormat || timeFormatLang !== lang) {
    timeFormat = new Intl.DateTimeFormat(lang, { hour: '2-digit', minute: '2-digit' });
    timeFormatLang = lang;
  }
  return timeFormat.format(new Date(ms));
}

/** @type {Intl.DateTimeFormat | null} */
let timeFormat = null;
/** @type {string | null} */
let timeFormatLang = null;

/** @param {string} key */
export function hasKey(key) { return Object.hasOwn(catalog, key); }
