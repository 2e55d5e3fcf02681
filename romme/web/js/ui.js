// @ts-check
import { LANGUAGES, currentLanguage, onLanguageChange, setLanguage, t } from './i18n.js';

// Small DOM helpers shared by the screens: element building, dialogs, toasts.

/**
 * What h() takes as children: nodes, text, and nested lists; null, undefined
 * and false are left out.
 * @typedef {Node | string | number | null | undefined | false | Child[]} Child
 */

/**
 * The element type of an h() spec: 'button.primary' is an HTMLButtonElement.
 * @template {string} S
 * @typedef {S extends `${infer T}.${string}` ? TagElement<T> : TagElement<S>} ElementOf
 */
/**
 * @template {string} T
 * @typedef {T extends keyof HTMLElementTagNameMap ? HTMLElementTagNameMap[T] : HTMLElement} TagElement
 */

/**
 * h('button.primary', {onclick}, 'text', child...): an element with classes,
 * attributes (on* are listeners, `dataset`, `html`, `style`, `class`) and children.
 * @template {string} S
 * @param {S} spec
 * @param {{[name: string]: any} | Child} [attrs]
 * @param {...Child} children
 * @returns {ElementOf<S>}
 */
export function h(spec, attrs, ...children) {
  const [tag, ...classes] = spec.split('.');
  /** @type {any} */
  const el = document.createElement(tag || 'div');
  if (classes.length) el.className = classes.join(' ');
  if (attrs && (typeof attrs !== 'object' || attrs instanceof Node || Array.isArray(attrs))) {
    children.unshift(attrs);
    attrs = null;
  }
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key === 'html') el.innerHTML = value;
    // Through the CSSOM: the Content-Security-Policy refuses style attributes.
    else if (key === 'style') el.style.cssText = value;
    else if (key === 'class') el.className += ` ${value}`;
    else if (key in el && typeof value !== 'string') el[key] = value;
    else el.setAttribute(key, value === true ? '' : value);
  }
  append(el, children);
  return el;
}

/**
 * @param {HTMLElement} el
 * @param {Child[]} children
 */
function append(el, children) {
  for (const child of /** @type {unknown[]} */ (children).flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * Remove every child of `el`.
 * @template {Element} E
 * @param {E} el
 * @returns {E}
 */
export function clear(el) { while (el.firstChild) el.firstChild.remove(); return el; }

/**
 * Where notifications go: the table's own lane where it is shown (on a phone, over the
 * status line, so that they cover no name, meld, pile, action or card), else the page's.
 */
function toastRoot() {
  const lane = document.getElementById('toast-lane');
  if (lane && lane.getClientRects().length) return lane;
  return /** @type {HTMLElement} */ (document.getElementById('toasts'));
}

/**
 * A short message at the bottom that goes away by itself.
 * @param {string} text
 * @param {'info' | 'error' | 'hint'} [kind]
 * @param {number} [ms]
 */
export function toast(text, kind = 'info', ms = 3500) {
  const el = h(`div.toast.${kind}`, { role: kind === 'error' ? 'alert' : 'status' }, text);
  const root = toastRoot();
  // The same words twice in a row, or more than three at once, are noise.
  const last = root.lastElementChild;
  if (last && last.textContent === text) last.remove();
  while (root.firstElementChild && root.children.length >= 3) root.firstElementChild.remove();
  root.append(el);
  requestAnimationFrame(() => el.classList.add('show'));
  setTimeout(() => { el.classList.remove('show'); setTimeout(() => el.remove(), 300); }, ms);
}

/**
 * A modal dialog; returns {el, close}. Escape and the backdrop close it.
 * @param {string} title
 * @param {Node} body
 * @param {{className?: string, onClose?: () => void}} [options]
 */
export function dialog(title, body, { className = '', onClose } = {}) {
  const previous = document.activeElement;
  const close = () => {
    root.remove();
    document.removeEventListener('keydown', onKey, true);
    onClose?.();
    if (previous instanceof HTMLElement) previous.focus();
  };
  const onKey = (/** @type {KeyboardEvent} */ e) => { if (e.key === 'Escape') { e.stopPropagation(); close(); } };
  const titleId = `dlg-${Math.random().toString(36).slice(2)}`;
  const box = h(`div.dialog.${className || 'plain'}`, { role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': titleId },
    h('h2', { id: titleId }, title), body);
  const root = h('div.backdrop', { onclick: (/** @type {MouseEvent} */ e) => { if (e.target === root) close(); } }, box);
  document.body.append(root);
  document.addEventListener('keydown', onKey, true);
  const focusable = box.querySelector('input, select, button, [tabindex]');
  if (focusable instanceof HTMLElement) focusable.focus();
  return { el: box, close };
}

/**
 * A player's colour, the same on every page.
 * @param {string} name
 */
export function colorFor(name) {
  let hash = 0;
  for (const ch of String(name)) hash = (hash * 31 + (ch.codePointAt(0) ?? 0)) >>> 0;
  return `hsl(${hash % 360} 55% 42%)`;
}

/**
 * A round badge with the name's initial (or a robot for a computer opponent).
 * @param {string} name
 * @param {boolean} [bot]
 */
export function avatar(name, bot) {
  return h('span.avatar', { style: `background:${colorFor(name)}`, 'aria-hidden': 'true' },
    bot ? h('i.bot-icon') : String(name || '?').slice(0, 1).toUpperCase());
}

/** The language menu; it follows a change made elsewhere on the page. */
export function languagePicker() {
  const select = h('select.lang', { 'aria-label': t('app.language'), 'data-i18n-label': 'app.language', id: 'lang-select',
    onchange: (/** @type {Event & {target: HTMLSelectElement}} */ e) => setLanguage(e.target.value) },
  Object.entries(LANGUAGES).map(([code, name]) => h('option', { value: code, selected: code === currentLanguage() }, name)));
  const off = onLanguageChange((/** @type {string} */ code) => { if (!select.isConnected) { off(); return; } select.value = code; });
  return select;
}
