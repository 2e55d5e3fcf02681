// @ts-check
// Drawing the moderators' page (romme/web/js/moderation.js): the queue and its open
// group, every report, the sanctions and the log, each from what the screen read,
// with the buttons for the next page and the moderator's actions.

import { formatTime, t } from '../i18n.js';
import { h } from '../ui.js';
import { nameOf, redraw, when, where } from './lists.js';

/** @import { ModerationScreen } from '../moderation.js' */
/** @import { OpenGroup, QueueGroup, Report, Section } from './lists.js' */

/**
 * The queue or every report, then the sanctions, the fair-play signals and the log.
 * @param {ModerationScreen} screen
 */
export function placeSections(screen) {
  screen.body.replaceChildren(screen.openOnly ? screen.queueEl : screen.reportsEl, screen.sanctionsEl,
    screen.fairPlay.el, screen.logEl);
}

/**
 * Every part of the page, from what was read.
 * @param {ModerationScreen} screen
 */
export function drawAll(screen) {
  placeSections(screen);
  drawQueue(screen);
  drawReports(screen);
  drawSanctions(screen);
  screen.fairPlay.draw();
  drawLog(screen);
}

/**
 * @param {ModerationScreen} screen
 * @param {Section} name
 */
export function draw(screen, name) {
  if (name === 'queue' || (name === 'group' && !screen.group)) drawQueue(screen);
  else if (name === 'group') drawGroup(screen);
  else if (name === 'reports') drawReports(screen);
  else drawLog(screen);
}

/**
 * The button for a list's next page, or "Loading…" while it comes (or while the
 * list's first read is under way); "Loading…" holds the button's key, and so its
 * focus, meanwhile.
 * @param {ModerationScreen} screen
 * @param {Section} name
 * @param {{more: boolean, empty: boolean, id: string, text: string, readMore: () => Promise<string | undefined>}} list
 */
function pager(screen, name, { more, empty, id, text, readMore }) {
  const mode = screen.busy.get(name);
  if (mode === 'more' || (mode && empty)) return h('p.muted', { dataset: { key: id }, tabindex: -1 }, t('common.loading'));
  return more ? h('button.small.more', { id, dataset: { key: id }, onclick: () => screen.nextPage(id, readMore) }, text) : null;
}

/**
 * The groups loaded, and the open one where a reload no longer shows it.
 * @param {ModerationScreen} screen
 */
function shownGroups(screen) {
  const { items } = screen.queue;
  const open = screen.group?.item;
  return open && !items.some((g) => g.player_id === open.player_id) ? [...items, open] : items;
}

/**
 * @param {ModerationScreen} screen
 */
export function drawQueue(screen) {
  const groups = shownGroups(screen);
  const busy = screen.busy.has('queue') || screen.busy.has('group');
  screen.queueEl.setAttribute('aria-busy', String(busy));
  redraw(screen.queueEl, () => [
    h('h2', t('mod.queue')),
    h('p.muted.queue-hint', t('mod.queue_hint')),
    groups.length
      ? h('ol.queue-list', { id: 'queue-list' }, groups.map((g) => groupItem(screen, g)))
      : !screen.busy.has('queue') && h('p.muted', { id: 'queue-empty' }, t('mod.queue_empty')),
    pager(screen, 'queue', { more: screen.queue.next !== null, empty: !groups.length, id: 'queue-more',
      text: t('mod.more'), readMore: () => screen.readQueue(true) }),
  // A group just closed by its last report: on to the heaviest group, the next to judge.
  ], '.group-head');
  if (screen.group) drawGroup(screen);
}

/**
 * One group of the queue: a button (Enter or a click opens it) that says who, how
 * heavy, who reported (how many of them guests and new accounts), why and when.
 * @param {ModerationScreen} screen
 * @param {QueueGroup} g
 */
function groupItem(screen, g) {
  const open = screen.group?.item.player_id === g.player_id;
  const key = `group-${g.player_id}`;
  const reasons = Object.entries(g.reasons).sort((a, b) => b[1] - a[1]);
  const head = h('button.group-head', { type: 'button', 'aria-expanded': String(open), dataset: { key },
    'aria-controls': open ? screen.groupEl.id : null, onclick: () => screen.toggle(g) },
  h('span.group-name', h('strong', nameOf(g.nickname)), ' ', h('span.badge.weight', t('mod.weight', { weight: g.weight }))),
  h('span.group-reporters', reportersText(g)),
  h('span.group-reasons', reasons.map(([reason, count]) =>
    h('span.badge', t('mod.reason_count', { reason: t(`report.reason_${reason}`), count })))),
  h('span.muted.group-when', t('mod.first_last', { first: when(g.first_at), last: when(g.last_at) })));
  return h('li.queue-group', { dataset: { player: String(g.player_id) }, class: open ? 'open' : null },
    head, open ? screen.groupEl : null);
}

/**
 * "3 reporters, among them 1 guest and 2 new accounts".
 * @param {QueueGroup} g
 */
function reportersText(g) {
  const reporters = t('mod.reporters', { n: g.reporters });
  const kinds = [];
  if (g.guests) kinds.push(t('mod.guests', { n: g.guests }));
  if (g.new_accounts) kinds.push(t('mod.new_accounts', { n: g.new_accounts }));
  return kinds.length ? t('mod.reporters_among', { reporters, kinds }) : reporters;
}

/**
 * The open group's actions and its open reports, a page at a time.
 * @param {ModerationScreen} screen
 */
function drawGroup(screen) {
  const group = screen.group;
  if (!group) return;
  const { items, next } = group.reports;
  redraw(screen.groupEl, () => [
    groupActions(screen, group),
    items.length
      ? h('ul.report-list', { id: 'group-reports', 'aria-label': t('mod.group_reports', { name: nameOf(group.item.nickname) }) },
        items.map((r) => reportItem(screen, r, false)))
      : !screen.busy.has('group') && h('p.muted', t('mod.queue_empty')),
    pager(screen, 'group', { more: next !== null, empty: !items.length, id: 'group-older',
      text: t('mod.older_reports'), readMore: () => screen.readGroup(true) }),
  // A report just resolved: on to the first one left.
  ], '[data-resolve]');
}

/**
 * An input whose text outlives every redraw (kept under `key`, which is also the
 * `data-key` that gives it the focus back).
 * @param {ModerationScreen} screen
 * @param {string} key
 * @param {{[name: string]: any}} attrs
 * @param {string} [initial]
 */
function field(screen, key, attrs, initial = '') {
  const input = h('input', { ...attrs, dataset: { key }, oninput: () => screen.typed.set(key, input.value) });
  input.value = screen.typed.get(key) ?? initial;
  return input;
}

/**
 * @param {ModerationScreen} screen
 * @param {string} key
 */
function noteField(screen, key) {
  return field(screen, key, { placeholder: t('mod.note'), 'aria-label': t('mod.note'), maxlength: 1000 });
}

/**
 * @param {ModerationScreen} screen
 * @param {string} key
 */
function minutesField(screen, key) {
  return field(screen, key, { type: 'number', min: 1, max: 525600, 'aria-label': t('mod.minutes'), class: 'minutes' }, '60');
}

/**
 * Mute or ban the group's player, or resolve every report of it shown.
 * @param {ModerationScreen} screen
 * @param {OpenGroup} group
 */
function groupActions(screen, group) {
  const player = group.item.player_id;
  const note = noteField(screen, `group-note-${player}`);
  const minutes = minutesField(screen, `group-minutes-${player}`);
  note.id = 'group-note';
  minutes.id = 'group-minutes';
  const open = group.reports.items.filter((r) => r.status === 'open').length;
  return h('div.report-actions.group-actions', note, minutes,
    h('button.small', { id: 'group-mute', dataset: { key: 'group-mute' },
      onclick: () => screen.sanction('mute', player, note.value, Number(minutes.value) || 60) }, t('mod.mute')),
    h('button.small', { id: 'group-ban', dataset: { key: 'group-ban' },
      onclick: () => screen.sanction('ban', player, note.value, 0) }, t('mod.ban')),
    open ? h('button.small.primary', { id: 'group-resolve-all', dataset: { key: 'group-resolve-all' },
      onclick: () => screen.resolveAll(group) }, t('mod.resolve_all', { n: open })) : null);
}

/**
 * Every report, newest first, a page at a time.
 * @param {ModerationScreen} screen
 */
function drawReports(screen) {
  const { items, next } = screen.reports;
  screen.reportsEl.setAttribute('aria-busy', String(screen.busy.has('reports')));
  redraw(screen.reportsEl, () => [
    h('h2', t('mod.reports')),
    items.length
      ? h('ul.report-list', { id: 'report-list' }, items.map((r) => reportItem(screen, r, true)))
      : !screen.busy.has('reports') && h('p.muted', t('mod.no_reports')),
    pager(screen, 'reports', { more: next !== null, empty: !items.length, id: 'reports-older',
      text: t('mod.older_reports'), readMore: () => screen.readReports(true) }),
  ]);
}

/**
 * A report as the moderator judges it: who reported whom, why, where and when,
 * the reporter's note and the reported player's chat lines the server attached.
 * @param {ModerationScreen} screen
 * @param {Report} r
 * @param {boolean} withSanctions whether it carries the mute and ban of its player
 *   (in the list of every report; a group has them once, for all its reports)
 */
function reportItem(screen, r, withSanctions) {
  return h('li.report', { dataset: { report: String(r.id), key: `report-${r.id}` }, tabindex: -1 },
    h('div', h('strong', t('mod.reported', { reporter: r.reporter, reported: r.reported })), ' ',
      h('span.badge', t(`report.reason_${r.reason}`)), ' ',
      h('span.muted', `${where(r)} · ${when(r.at)}`)),
    r.text ? h('p.report-text', r.text) : null,
    r.chat.length
      ? h('ol.chat-log.report-chat', r.chat.map((c) => h('li', h('time', formatTime(c.at)), ' ', h('span.text', c.text))))
      : h('p.muted', t('mod.no_chat')),
    r.status === 'open'
      ? reportActions(screen, r, withSanctions)
      : h('p.muted', `${t('mod.status_resolved', { name: r.resolved_by ?? '' })}${r.note ? `: ${r.note}` : ''}`));
}

/**
 * Resolve an open report with a note; in the list of every report also mute or
 * ban its player, by id.
 * @param {ModerationScreen} screen
 * @param {Report} r
 * @param {boolean} withSanctions
 */
function reportActions(screen, r, withSanctions) {
  const note = noteField(screen, `note-${r.id}`);
  const resolve = h('button.small.primary', { dataset: { resolve: String(r.id), key: `resolve-${r.id}` },
    onclick: () => screen.resolve(r.id, note.value) }, t('mod.resolve'));
  if (!withSanctions) return h('div.report-actions', note, resolve);
  const minutes = minutesField(screen, `minutes-${r.id}`);
  return h('div.report-actions', note, minutes,
    h('button.small', { dataset: { key: `mute-${r.id}` },
      onclick: () => screen.sanction('mute', r.reported_id, note.value, Number(minutes.value) || 60) }, t('mod.mute')),
    h('button.small', { dataset: { key: `ban-${r.id}` },
      onclick: () => screen.sanction('ban', r.reported_id, note.value, 0) }, t('mod.ban')),
    resolve);
}

/**
 * @param {ModerationScreen} screen
 */
export function drawSanctions(screen) {
  redraw(screen.sanctionsEl, () => [
    h('h2', t('mod.sanctions')),
    screen.sanctions.length
      ? h('ul.pick-list', { id: 'sanction-list' }, screen.sanctions.map((s) => h('li', { dataset: { player: String(s.player_id) } },
        h('strong', nameOf(s.nickname)), ' ',
        h('span.badge', t(`mod.kind_${s.kind}`)), ' ',
        h('span.muted', s.until ? t('mod.until', { time: when(s.until) }) : t('mod.until_lifted')),
        h('button.small', { dataset: { key: `lift-${s.kind}-${s.player_id}` }, onclick: () => screen.lift(s) }, t('mod.lift')))))
      : h('p.muted', t('mod.none')),
  ]);
}

/**
 * @param {ModerationScreen} screen
 */
function drawLog(screen) {
  screen.logEl.setAttribute('aria-busy', String(screen.busy.has('log')));
  redraw(screen.logEl, () => [
    h('h2', t('mod.log')),
    h('ol.mod-log', { id: 'mod-log' }, screen.log.items.map((e) => h('li', { dataset: { entry: String(e.id), key: `entry-${e.id}` }, tabindex: -1 },
      h('time', when(e.at)), ' ', h('strong', e.actor), ' ',
      t(`mod.action_${e.action}`), ' ', e.target ? h('strong', e.target) : null, e.note ? `: ${e.note}` : ''))),
    pager(screen, 'log', { more: screen.log.next !== null, empty: !screen.log.items.length, id: 'log-older',
      text: t('mod.older_entries'), readMore: () => screen.readLog(true) }),
  ]);
}
