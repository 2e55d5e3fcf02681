// @ts-check
// What the moderators' page reads and how: the shapes of GET /api/moderation, a
// list read a page at a time (merged without doubles, read again as far as it was
// shown), and drawing a part anew without losing the keyboard's place.

import { api } from '../api.js';
import { currentLanguage, t } from '../i18n.js';

/**
 * @typedef {{id: number, reporter: string, reporter_id: number, reported: string, reported_id: number,
 *   reason: string, text: string, table: number | null, chat: {text: string, at: number}[], status: string,
 *   at: string, resolved_at: string | null, resolved_by: string | null, note: string | null}} Report
 * @typedef {{player_id: number, nickname: string | null, weight: number, reporters: number, guests: number,
 *   new_accounts: number, reasons: Record<string, number>, first_report: number, latest_report: number,
 *   first_at: string, last_at: string}} QueueGroup
 * @typedef {{id: number, player_id: number, nickname: string | null, nickname_then: string | null, kind: string,
 *   until: string | null, at: string, source: number | null}} Sanction
 * @typedef {{id: number, actor: string, action: string, target: string | null, note: string, at: string}} LogEntry
 * @typedef {{reports: Report[], next_before: number | null, queue: {players: QueueGroup[], next: string | null},
 *   sanctions: Sanction[], log: LogEntry[], next_log_before: number | null}} ModerationAnswer
 */
/**
 * A list read a page at a time: what is loaded, and the cursor of the next page
 * (`null`: there is no more).
 * @template T, C
 * @typedef {{items: T[], next: C | null}} Paged
 */
/**
 * The group opened: its queue entry (kept while a reload no longer shows it among
 * the groups loaded) and its open reports.
 * @typedef {{item: QueueGroup, reports: Paged<Report, number>}} OpenGroup
 */
/** The lists of the page, each read on its own. @typedef {'queue' | 'group' | 'reports' | 'log'} Section */
/** A query parameter; `null` and `undefined` are left out. @typedef {string | number | null | undefined} Param */

/** Groups, reports and log entries a page. */
export const PAGE = 20;
/** The longest page the server gives (`limit`): a list is read again up to this many. */
export const MOST = 200;

/**
 * GET /api/moderation with the parameters that are set.
 * @param {Record<string, Param>} params
 * @returns {Promise<ModerationAnswer>}
 */
export function read(params) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== null && value !== undefined) query.set(name, String(value));
  }
  return api.moderation(`moderation?${query}`);
}

/**
 * How many entries to read again so that those shown stay shown: a page at least,
 * the server's longest page at most.
 * @param {number} shown
 */
export const again = (shown) => Math.min(MOST, Math.max(PAGE, shown));

/** @param {string | null} iso */
export const when = (iso) => (iso ? new Date(iso).toLocaleString(currentLanguage(), { dateStyle: 'short', timeStyle: 'short' }) : '');

/** A player's nickname, or the history's words for an account deleted since. @param {string | null} nickname */
export const nameOf = (nickname) => nickname ?? t('replay.deleted_player');

/** @param {Report} r */
export const where = (r) => (r.table === null ? t('mod.where_lobby') : t('mod.where_table', { id: r.table }));

/**
 * The `data-key` of the first report of `found` that `known` does not hold.
 * @param {Report[]} known
 * @param {Report[]} found
 */
export function firstAdded(known, found) {
  const ids = new Set(known.map((r) => r.id));
  const first = found.find((r) => !ids.has(r.id));
  return first && `report-${first.id}`;
}

/**
 * `items` followed by `more`, each entry once: one already shown takes the newer
 * answer where it stands. The queue's order follows weights, which change between
 * two pages, so that a page may bring a group that an earlier one showed.
 * @template T
 * @param {T[]} items
 * @param {T[]} more
 * @param {(item: T) => number} key
 * @returns {T[]}
 */
export function merged(items, more, key) {
  const out = [...items];
  const at = new Map(out.map((item, i) => [key(item), i]));
  for (const item of more) {
    const i = at.get(key(item));
    if (i === undefined) {
      at.set(key(item), out.length);
      out.push(item);
    } else out[i] = item;
  }
  return out;
}

/** The `data-key` of the focused element, if it has one. */
export function focusedKey() {
  const active = document.activeElement;
  return active instanceof HTMLElement ? active.dataset.key : undefined;
}

/** @param {ParentNode} root @param {string} key */
export const byKey = (root, key) => /** @type {HTMLElement | null} */ (root.querySelector(`[data-key="${CSS.escape(key)}"]`));

/**
 * Draw `el` anew from `build`, and give the focus back to the element of the same
 * `data-key` if it was inside (else to the first one matching `fallback`, if
 * given): a reload must not throw a keyboard user back to the top of the page.
 * The key is read before `build` runs, since building may move the focused
 * control elsewhere (out of the document for a moment, which takes its focus).
 * @param {HTMLElement} el
 * @param {() => (Node | null | false)[]} build
 * @param {string} [fallback] a selector
 */
export function redraw(el, build, fallback) {
  const active = document.activeElement;
  const inside = active instanceof HTMLElement && el.contains(active);
  const key = inside ? active.dataset.key : undefined;
  const caret = active instanceof HTMLInputElement && active.type === 'text' ? [active.selectionStart, active.selectionEnd] : null;
  el.replaceChildren(.../** @type {Node[]} */ (build().filter(Boolean)));
  if (!inside || (active.isConnected && document.activeElement === active)) return;
  const same = key ? byKey(el, key) : null;
  const next = same ?? (fallback ? /** @type {HTMLElement | null} */ (el.querySelector(fallback)) : null);
  next?.focus();
  if (caret && same instanceof HTMLInputElement && same.type === 'text') same.setSelectionRange(caret[0], caret[1]);
}
