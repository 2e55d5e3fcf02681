// @ts-check
// The side panel (a menu on a phone): the turn timer and the knock window, the
// point limit or round, the table's settings (a staked game's pot with them), and
// the table chat with the table's log among its lines.

import { gamePotText } from '../chips.js';
import { mutedAt } from '../friends.js';
import { t } from '../i18n.js';
import { h } from '../ui.js';
import { play } from '../sound.js';
import { renderChatLog, settingsChips } from '../widgets.js';
import { logText, tableLog } from './log.js';
import { renderControls } from './controls.js';
import { renderCountdown } from './summary.js';

/** @import { TableScreen } from './screen.js' */

/** @param {TableScreen} screen */
export function renderSide(screen) {
  const { state, els } = screen;
  const table = state.table;
  if (!table) return;
  const view = state.view;
  const s = table.settings || {};
  const three = s.preset === 'three-rounds';
  const limit = s.point_limit ?? view?.rules?.point_limit;
  const limitText = three ? t('table.rounds_of', { round: view?.round_no || 1, rounds: view?.rules?.rounds || 3 })
    : limit === 1 ? t('settings.single_round') : t('table.limit', { n: limit ?? 100 });
  els.limit.replaceChildren(h('span.label', t(three ? 'table.game' : 'table.point_limit')), h('strong', limitText));
  els.miniLimit.textContent = limitText;
  const pot = table.status === 'playing' ? gamePotText(table) : null;
  els.rules.replaceChildren(...settingsChips(s).map((c) => h('li', c)), ...(pot ? [h('li.pot', { id: 'table-pot-game' }, pot)] : []));
  els.invite.disabled = table.my_seat === null || table.status !== 'waiting';
  els.results.disabled = !view?.results?.length;
  renderChat(screen);
  renderTimer(screen);
}

/**
 * The chat with the table's log among its messages, and a dot on the menu button for
 * messages not seen yet (the log's lines do not count).
 * @param {TableScreen} screen
 */
export function renderChat(screen) {
  const { state, els } = screen;
  const table = state.table;
  const muted = table ? mutedAt(table.id) : new Set();
  const chat = (table?.chat || []).filter((m) => !muted.has(m.from));
  const notes = table ? tableLog(table.id).lines.map((line) => ({ at: line.at, kind: line.kind, key: line, text: () => logText(line, (seat) => state.seatName(seat)) })) : [];
  renderChatLog(els.chatLog, chat, notes);
  const dot = /** @type {HTMLElement} */ (els.sideToggle.querySelector('.unread'));
  if (state.seenChat === null || document.body.classList.contains('side-open')) state.seenChat = chat.length;
  dot.hidden = chat.length <= state.seenChat;
}

/**
 * Open or close the side panel (a menu on a phone).
 * @param {TableScreen} screen
 * @param {boolean} [force] open (true) or close (false); else toggle
 */
export function toggleSide(screen, force) {
  const open = force ?? !document.body.classList.contains('side-open');
  document.body.classList.toggle('side-open', open);
  screen.els.sideToggle.setAttribute('aria-expanded', String(open));
  if (open) {
    screen.state.seenChat = (screen.state.table?.chat || []).length;
    renderChat(screen);
  }
}

/**
 * The time left of the seat whose turn it is (ring, phone bar, seat bars), and
 * the knock window apart. Runs four times a second.
 * @param {TableScreen} screen
 */
export function renderTimer(screen) {
  const { state, els, root, app } = screen;
  renderCountdown(screen);
  const timer = state.table?.timer;
  const ring = els.timerRing;
  const mini = els.miniTimer;
  const view = state.view;
  const bars = /** @type {HTMLElement[]} */ ([...root.querySelectorAll('.turn-bar')]);
  if (!timer || !view || !['draw', 'play'].includes(view.phase)) {
    warnTime(screen, null, 30);
    knockWait(screen, null);
    ring.replaceChildren(h('span.timer-label', t('table.time_left')), h('strong', '–'));
    ring.style.setProperty('--p', '0');
    mini.textContent = '';
    for (const bar of bars) bar.style.setProperty('--p', '0');
    return;
  }
  // The seat's own time: while a knock window is open it has not started yet
  // (the window is shown apart).
  const now = app.now();
  const knock = timer.knock;
  const knockOpen = !!knock && knock.deadline > now;
  const start = timer.start ?? (knock && knockOpen ? knock.deadline : now);
  const left = Math.max(0, (timer.deadline - Math.max(now, start)) / 1000);
  const frac = Math.max(0, Math.min(1, left / (timer.seconds || 30)));
  ring.style.setProperty('--p', String(frac));
  ring.classList.toggle('low', left < 10);
  ring.classList.toggle('mine', timer.seat === view.seat);
  // Built with h(), which leaves out a null child (replaceChildren would print "null").
  ring.replaceChildren(...h('div', h('span.timer-label', t('table.time_left')), h('strong', String(Math.ceil(left))),
    h('span.timer-who', timer.seat === view.seat ? t('table.your_turn_short') : state.seatName(timer.seat)),
    knock && knockOpen ? h('span.knock-window', { id: 'knock-window' }, t('table.knock_window', { n: Math.ceil((knock.deadline - now) / 1000) })) : null).childNodes);
  ring.setAttribute('aria-label', t('table.seconds_left', { n: Math.ceil(left) }));
  mini.textContent = `${Math.ceil(left)} s`;
  mini.classList.toggle('low', left < 10);
  warnTime(screen, timer.seat === view.seat && !knockOpen ? left : null, timer.seconds || 30);
  const held = knock && knockOpen && timer.seat === view.seat && view.phase === 'draw' && view.seat !== null
    && !knock.seats?.includes(view.seat);
  knockWait(screen, held ? Math.ceil((knock.deadline - now) / 1000) : null);
  for (const bar of bars) {
    bar.style.setProperty('--p', Number(bar.dataset.seat) === timer.seat ? String(frac) : '0');
  }
  if (knock && knockOpen && view.seat !== null && knock.seats?.includes(view.seat)) {
    els.knock.style.setProperty('--p', String(Math.max(0, (knock.deadline - app.now()) / (view.rules.knock_window_seconds * 1000))));
  } else if (!els.knock.hidden) {
    renderControls(screen); // the knock window has closed
  }
}

/**
 * The player's own last seconds: the own area and the status line turn red, the status
 * line says how many seconds are left, and a tick sounds each of the last five (once a
 * second). From a quarter of the turn time, at least 5 and at most 10 seconds.
 * @param {TableScreen} screen
 * @param {number | null} left the player's own seconds left (null: not the player's time)
 * @param {number} seconds the turn time
 */
function warnTime(screen, left, seconds) {
  const { els, state } = screen;
  const warn = left !== null && left > 0 && left <= Math.min(10, Math.max(5, seconds / 4));
  els.me.classList.toggle('time-low', warn);
  els.status.classList.toggle('time-low', warn);
  let note = els.status.querySelector('.time-warning');
  if (!warn || left === null) { note?.remove(); state.tickSecond = null; return; }
  const n = Math.ceil(left);
  if (!note) { note = h('span.time-warning', { id: 'time-warning' }); els.status.append(note); }
  note.textContent = t('table.seconds_left', { n });
  if (n <= 5 && state.tickSecond !== n) { state.tickSecond = n; play('tick'); }
}

/**
 * The player's turn has come while the others may still knock on the last discard:
 * the status line says why the draw waits (the server holds it until the window
 * closes: docs/protocol.md, the held draw under Time).
 * @param {TableScreen} screen
 * @param {number | null} seconds left of the knock window (null: no wait)
 */
function knockWait(screen, seconds) {
  const status = screen.els.status;
  let note = status.querySelector('.knock-wait');
  if (seconds === null) { note?.remove(); return; }
  if (!note) { note = h('span.knock-wait', { id: 'knock-wait' }); status.append(note); }
  note.textContent = t('table.knock_wait', { seconds });
}
