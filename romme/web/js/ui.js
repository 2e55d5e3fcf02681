import { LANGUAGES, currentLanguage, onLanguageChange, setLanguage, t } from './i18n.js';

// Small DOM helpers shared by the screens: element building, dialogs, toasts.

/** h('button.primary', {onclick}, 'text', child...) */
export function h(spec, attrs, ...children) {
  const [tag, ...classes] = spec.split('.');
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

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(el) { while (el.firstChild) el.firstChild.remove(); return el; }

const toastRoot = () => document.getElementById('toasts');

export function toast(text, kind = 'info', ms = 3500) {
  const el = h(`div.toast.${kind}`, { role: kind === 'error' ? 'alert' : 'status' }, text);
  const root = toastRoot();
  // The same words twice in a row, or more than three at once, are noise.
  const last = root.lastElementChild;
  if (last && last.textContent === text) last.remove();
  while (root.children.length >= 3) root.firstElementChild.remove();
  root.append(el);
  requestAnimationFrame(() => el.classList.add('show'));
  setTimeout(() => { el.classList.remove('show'); setTimeout(() => el.remove(), 300); }, ms);
}

/** A modal dialog; returns {el, close}. Escape and the backdrop close it. */
export function dialog(title, body, { className = '', onClose } = {}) {
  const previous = document.activeElement;
  const close = () => {
    root.remove();
    document.removeEventListener('keydown', onKey, true);
    onClose?.();
    if (previous && previous.focus) previous.focus();
  };
  const onKey = (e) => { if (e.key === 'Escape') { e.stopPropagation(); close(); } };
  const titleId = `dlg-${Math.random().toString(36).slice(2)}`;
  const box = h(`div.dialog.${className || 'plain'}`, { role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': titleId },
    h('h2', { id: titleId }, title), body);
  const root = h('div.backdrop', { onclick: (e) => { if (e.target === root) close(); } }, box);
  document.body.append(root);
  document.addEventListener('keydown', onKey, true);
  const focusable = box.querySelector('input, select, button, [tabindex]');
  if (focusable) focusable.focus();
  return { el: box, close };
}

export function colorFor(name) {
  let hash = 0;
  for (const ch of String(name)) hash = (hash * 31 + ch.codePointAt(0)) >>> 0;
  return `hsl(${hash % 360} 55% 42%)`;
}

export function avatar(name, bot) {
  return h('span.avatar', { style: `background:${colorFor(name)}`, 'aria-hidden': 'true' },
    bot ? h('i.bot-icon') : String(name || '?').slice(0, 1).toUpperCase());
}

export function languagePicker() {
  const select = h('select.lang', { 'aria-label': t('app.language'), 'data-i18n-label': 'app.language', id: 'lang-select',
    onchange: (e) => setLanguage(e.target.value) },
  Object.entries(LANGUAGES).map(([code, name]) => h('option', { value: code, selected: code === currentLanguage() }, name)));
  const off = onLanguageChange((code) => { if (!select.isConnected) { off(); return; } select.value = code; });
  return select;
}
