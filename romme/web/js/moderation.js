// @ts-check
// The moderators' page (#/moderation). First the queue: the open reports grouped
// by reported player, the heaviest group first as the server weighs them (by
// distinct reporters, a guest less than an account), so that a pile of throwaway
// reports cannot bury a few real ones; a page of groups at a time. A group opens
// to its player's open reports with the chat lines the server attached; the
// player is muted or banned by id (a nickname can change or be gone), each report
// resolved alone or all those shown at once. With "Open reports only" unchecked,
// every report instead, newest first. Then the mutes and bans in force, and the
// moderation log. After an action every list shown is read again as far as it had
// been paged, so that the moderator keeps the place (docs/protocol.md, "Reports
// and moderation").

import { api } from './api.js';
import { t, translateDom } from './i18n.js';
import { draw, drawAll, drawQueue, drawSanctions, placeSections } from './moderation/draw.js';
import { FairPlayPanel } from './moderation/fairplay.js';
import { PAGE, again, byKey, firstAdded, focusedKey, merged, nameOf, read, when } from './moderation/lists.js';
import { clear, h, languagePicker, toast } from './ui.js';

/** @import { App } from './types.js' */
/** @import { LogEntry, ModerationAnswer, OpenGroup, Paged, Param, QueueGroup, Report, Sanction, Section } from './moderation/lists.js' */

/**
 * The link to the moderators' page, shown only to moderators (GET /api/me says).
 * @returns {HTMLElement}
 */
export function moderationLink() {
  const link = h('a.ghost', { id: 'moderation-link', href: '#/moderation', hidden: true, 'data-i18n': 'mod.link' });
  api.me().then((/** @type {any} */ me) => { link.hidden = !me.moderator; }).catch(() => {});
  return link;
}

export class ModerationScreen {
  /**
   * @param {App} app
   * @param {HTMLElement} root
   */
  constructor(app, root) {
    this.app = app;
    this.root = root;
    this.openOnly = true;
    /** @type {Paged<QueueGroup, string>} */
    this.queue = { items: [], next: null };
    /** Every report, newest first: the list without "Open reports only". @type {Paged<Report, number>} */
    this.reports = { items: [], next: null };
    /** @type {OpenGroup | null} */
    this.group = null;
    /** @type {Sanction[]} */
    this.sanctions = [];
    /** @type {Paged<LogEntry, number>} */
    this.log = { items: [], next: null };
    /** What the moderator typed (notes, minutes) by the field's key: it outlives every redraw. @type {Map<string, string>} */
    this.typed = new Map();
    /** The lists being read: from the start (`again`), or their next page. @type {Map<Section, 'again' | 'more'>} */
    this.busy = new Map();
    /** The newest read of each list: an older answer that comes later is dropped. @type {Map<Section, number>} */
    this.tickets = new Map();
    /** Whether an action is under way (one at a time). */
    this.acting = false;
    this.loaded = false;
    /** The refusal of the first read (not a moderator, say), shown instead of the page. @type {any} */
    this.failure = null;
    this.body = h('div.moderation-body', { id: 'moderation-body' }, h('p.muted', t('common.loading')));
    this.queueEl = h('section.panel.mod-queue', { id: 'mod-queue' });
    this.groupEl = h('div.group-detail', { id: 'group-detail' });
    this.reportsEl = h('section.panel', { id: 'mod-reports' });
    this.sanctionsEl = h('section.panel', { id: 'mod-sanctions' });
    this.logEl = h('section.panel', { id: 'mod-log-section' });
    this.fairPlay = new FairPlayPanel(app, () => this.readLog());
    this.build();
    this.start();
  }

  destroy() { clear(this.root); }

  build() {
    const only = h('input', { type: 'checkbox', id: 'mod-open-only', checked: this.openOnly,
      onchange: () => this.setOpenOnly(only.checked) });
    this.root.replaceChildren(h('div.moderation',
      h('header.topbar', h('h1', { 'data-i18n': 'mod.title' }),
        h('div.topbar-right', languagePicker(), h('a.ghost', { href: '#/lobby', id: 'mod-back', 'data-i18n': 'mod.back' }))),
      h('label.check', only, h('span', { 'data-i18n': 'mod.open_only' })),
      this.body));
    translateDom(this.root);
  }

  /** A new language: everything drawn again from what was read, nothing read again. @param {string} what */
  update(what) {
    if (what !== 'language') return;
    this.build();
    if (this.loaded) drawAll(this);
    else if (this.failure) this.showFailure();
  }

  /**
   * The first read: the first page of the queue (or of every report), the sanctions
   * and the first page of the log in one request. Its refusal is all the page shows.
   */
  async start() {
    try {
      const data = await read({ open: this.openOnly ? 1 : null, limit: PAGE });
      this.queue = { items: data.queue.players, next: data.queue.next };
      if (!this.openOnly) this.reports = { items: data.reports, next: data.next_before };
      this.sanctions = data.sanctions;
      this.log = { items: data.log, next: data.next_log_before };
      this.loaded = true;
      this.failure = null;
      drawAll(this);
    } catch (err) {
      this.failure = err;
      this.showFailure();
      return;
    }
    this.fairPlay.load();
  }

  showFailure() { this.body.replaceChildren(h('p.form-error', this.app.errorText(this.failure))); }

  /** @param {boolean} openOnly */
  setOpenOnly(openOnly) {
    this.openOnly = openOnly;
    if (!this.loaded) {
      this.start();
      return;
    }
    placeSections(this);
    if (openOnly) {
      this.readQueue();
      if (this.group) this.readGroup();
    } else this.readReports();
  }

  // --------------------------------------------------------------- reading

  /**
   * One read for the list `name`, marked busy meanwhile; a newer read of the same
   * list wins over an older one still under way. Every answer holds the sanctions
   * in force, whole, so each one brings them up to date. A failure is a toast, and
   * what was shown stays.
   * @param {Section} name
   * @param {'again' | 'more'} mode
   * @param {Record<string, Param>} params
   * @param {(data: ModerationAnswer) => void} take
   */
  async fetch(name, mode, params, take) {
    const ticket = (this.tickets.get(name) ?? 0) + 1;
    this.tickets.set(name, ticket);
    this.busy.set(name, mode);
    draw(this, name);
    try {
      const data = await read(params);
      if (this.tickets.get(name) !== ticket) return;
      take(data);
      this.sanctions = data.sanctions;
      drawSanctions(this);
    } catch (err) {
      if (this.tickets.get(name) === ticket) toast(this.app.errorText(/** @type {any} */ (err)), 'error');
    } finally {
      if (this.tickets.get(name) === ticket) {
        this.busy.delete(name);
        draw(this, name);
      }
    }
  }

  /**
   * The queue again as far as it was shown, or (`more`) its next page added below.
   * @returns {Promise<string | undefined>} the `data-key` of the first group added
   */
  async readQueue(more = false) {
    const params = more
      ? { open: 1, limit: PAGE, queue_after: this.queue.next }
      : { open: 1, limit: again(this.queue.items.length) };
    const known = new Set(this.queue.items.map((g) => g.player_id));
    /** @type {string | undefined} */
    let added;
    await this.fetch('queue', more ? 'more' : 'again', params, (data) => {
      const found = data.queue.players;
      this.queue = { items: more ? merged(this.queue.items, found, (g) => g.player_id) : found, next: data.queue.next };
      const fresh = this.group && this.queue.items.find((g) => g.player_id === this.group?.item.player_id);
      if (this.group && fresh) this.group.item = fresh;
      const first = found.find((g) => !known.has(g.player_id));
      added = first && `group-${first.player_id}`;
    });
    return added;
  }

  /**
   * The open group's reports again as far as they were shown, or their next page.
   * A group left without open reports (all resolved, here or by another moderator)
   * closes, and the queue is read again.
   * @returns {Promise<string | undefined>} the `data-key` of the first report added
   */
  async readGroup(more = false) {
    const group = this.group;
    if (!group) return undefined;
    const { reports } = group;
    const params = { open: 1, player: group.item.player_id, limit: more ? PAGE : again(reports.items.length),
      before: more ? reports.next : null };
    /** @type {string | undefined} */
    let added;
    await this.fetch('group', more ? 'more' : 'again', params, (data) => {
      if (this.group !== group) return;
      added = firstAdded(reports.items, data.reports);
      group.reports = { items: more ? merged(reports.items, data.reports, (r) => r.id) : data.reports, next: data.next_before };
      if (group.reports.items.length) return;
      this.group = null;
      if (!this.busy.has('queue')) this.readQueue();
    });
    return added;
  }

  /**
   * Every report again as far as shown (newest first), or the next older page.
   * @returns {Promise<string | undefined>} the `data-key` of the first report added
   */
  async readReports(more = false) {
    const params = more ? { limit: PAGE, before: this.reports.next } : { limit: again(this.reports.items.length) };
    /** @type {string | undefined} */
    let added;
    await this.fetch('reports', more ? 'more' : 'again', params, (data) => {
      added = firstAdded(this.reports.items, data.reports);
      this.reports = { items: more ? merged(this.reports.items, data.reports, (r) => r.id) : data.reports, next: data.next_before };
    });
    return added;
  }

  /**
   * The log again as far as shown (a new entry on top), or the next older page.
   * @returns {Promise<string | undefined>} the `data-key` of the first entry added
   */
  async readLog(more = false) {
    const params = more ? { limit: PAGE, log_before: this.log.next } : { limit: again(this.log.items.length) };
    /** @type {string | undefined} */
    let added;
    await this.fetch('log', more ? 'more' : 'again', params, (data) => {
      const first = data.log.find((e) => !this.log.items.some((known) => known.id === e.id));
      added = first && `entry-${first.id}`;
      this.log = { items: more ? merged(this.log.items, data.log, (e) => e.id) : data.log, next: data.next_log_before };
    });
    return added;
  }

  /**
   * A list's next page, asked for by its button. If the button had the focus, the
   * first entry added gets it: reading goes on there, not at the list's end (nor,
   * without a next page and so without the button, at the top of the page).
   * @param {string} pager the button's `data-key`
   * @param {() => Promise<string | undefined>} readMore
   */
  async nextPage(pager, readMore) {
    const fromButton = focusedKey() === pager;
    const added = await readMore();
    if (fromButton && added) byKey(this.body, added)?.focus();
  }

  /** After an action: every list shown, read again as far as it was paged. */
  async refresh() {
    await Promise.all([
      this.openOnly ? this.readQueue() : this.readReports(),
      this.openOnly && this.group ? this.readGroup() : null,
      this.readLog(),
    ]);
  }

  // --------------------------------------------------------------- acting

  /**
   * Run a moderator's action, one at a time, then read again what is shown, also
   * after a refusal (shown as a toast): another moderator may have been quicker.
   * @param {() => Promise<void>} work
   */
  async perform(work) {
    if (this.acting) return;
    this.acting = true;
    this.body.setAttribute('aria-busy', 'true');
    try {
      await work();
    } catch (err) {
      toast(this.app.errorText(/** @type {any} */ (err)), 'error');
    }
    try {
      await this.refresh();
    } finally {
      this.acting = false;
      this.body.setAttribute('aria-busy', 'false');
    }
  }

  /**
   * Mute (for `minutes`) or ban a player, named by id: a nickname may have changed
   * since the report, or belong to nobody now.
   * @param {'mute' | 'ban'} kind
   * @param {number} player the player's id
   * @param {string} note
   * @param {number} minutes a mute's length
   */
  sanction(kind, player, note, minutes) {
    return this.perform(async () => {
      const body = kind === 'mute' ? { player, minutes, note } : { player, note };
      const { sanction } = await api.moderation(`moderation/${kind}`, body);
      const name = nameOf(sanction.nickname);
      toast(kind === 'mute' ? t('mod.muted_toast', { name, time: when(sanction.until) }) : t('mod.banned_toast', { name }));
    });
  }

  /**
   * @param {number} report the report's id
   * @param {string} note
   */
  resolve(report, note) {
    return this.perform(async () => {
      await api.moderation('moderation/resolve', { report, note });
      this.typed.delete(`note-${report}`);
    });
  }

  /**
   * Resolve the open reports of the group shown (those the moderator has seen, not
   * any on pages not read), one request each, with the group's note. A report that
   * another moderator resolved meanwhile is no failure.
   * @param {OpenGroup} group
   */
  resolveAll(group) {
    const reports = group.reports.items.filter((r) => r.status === 'open');
    const noteKey = `group-note-${group.item.player_id}`;
    const note = this.typed.get(noteKey) ?? '';
    return this.perform(async () => {
      let done = 0;
      /** @type {any} */
      let failure = null;
      for (const r of reports) {
        try {
          await api.moderation('moderation/resolve', { report: r.id, note });
          done += 1;
        } catch (err) {
          if (/** @type {any} */ (err).code !== 'report_resolved') failure ??= err;
        }
      }
      if (!failure) this.typed.delete(noteKey);
      if (done) toast(t('mod.resolved_toast', { n: done }));
      if (failure) throw failure;
    });
  }

  /** @param {Sanction} s */
  lift(s) {
    return this.perform(() => api.moderation('moderation/lift', { player: s.player_id, kind: s.kind }));
  }

  /** Open a group and read its reports, or close the one that is open. @param {QueueGroup} g */
  toggle(g) {
    if (this.group?.item.player_id === g.player_id) {
      this.group = null;
      drawQueue(this);
      return;
    }
    this.group = { item: g, reports: { items: [], next: null } };
    drawQueue(this);
    this.readGroup();
  }
}
