// Locale catalogs: every text the page shows comes from locales/<lang>.json.
// Keys are flat ("lobby.new_game"); placeholders are {name}; plural forms are
// keys ending in ".one" / ".other" chosen with Intl.PluralRules.

export const LANGUAGES = {
  en: 'English', de: 'Deutsch', pt: 'Português', es: 'Español', nl: 'Nederlands',
};
const STORE_KEY = 'romme.lang';
let lang = 'en';
let catalog = {};
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
  document.documentElement.lang = code;
  if (save) localStorage.setItem(STORE_KEY, code);
  translateDom(document);
  for (const fn of listeners) fn(code);
}

export function currentLanguage() { return lang; }
export function onLanguageChange(fn) { listeners.add(fn); return () => listeners.delete(fn); }

function format(text, params) {
  return text.replace(/\{(\w+)\}/g, (m, name) => (params && name in params ? String(params[name]) : m));
}

/** The text of `key` in the current language, with {placeholders} filled in. */
export function t(key, params) {
  let text = catalog[key];
  if (text === undefined && params && typeof params.n === 'number') {
    const form = new Intl.PluralRules(lang).select(params.n);
    text = catalog[`${key}.${form}`] ?? catalog[`${key}.other`];
  }
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
