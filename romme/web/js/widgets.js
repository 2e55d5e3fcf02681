// @ts-check
// Pieces both screens show: a table's settings as chips, a player's info dialog,
// a chat log and its form.

import { api } from './api.js';
import { chipsWonAndLost, levelProgress } from './levels.js';
import { reportButton } from './report.js';
import { currentLanguage, formatTime, t } from './i18n.js';
import { avatar, clear, dialog, h } from './ui.js';

/** @import { App, ChatMessage, Settings } from './types.js' */
/** @import { PlayerInfo } from './api.js' */

/** The level offered first for a computer opponent ("New game", "Start with computers in the free seats"). */
export const DEFAULT_BOT_LEVEL = 'casual';

/** A trophy drawn as SVG (an emoji would need a font with it, and shows a box without). */
const TROPHY = '<svg viewBox="0 0 24 24" width="1em" height="1em" aria-hidden="true" focusable="false"><path fill="currentColor" d="M7 3h10v2h3v3a5 5 0 0 1-4.4 5A5 5 0 0 1 13 15.9V18h3v3H8v-3h3v-2.1A5 5 0 0 1 8.4 13 5 5 0 0 1 4 8V5h3V3zm0 4H6v1a3 3 0 0 0 1.3 2.5A6 6 0 0 1 7 9V7zm10 0v2c0 .5 0 1-.1 1.5A3 3 0 0 0 18 8V7h-1z"/></svg>';

/**
 * A finished game's result in a list of recent games: won (with a trophy), or the place.
 * @param {{won: boolean, place: number, players: number}} game
 */
export function gameResult(game) {
  return game.won
    ? h('span.game-won', h('span.trophy', { html: TROPHY }), ' ', t('info.won'))
    : h('span', t('info.place', { place: game.place, players: game.players }));
}

/**
 * Short chips that describe a table's settings.
 * @param {Settings | null | undefined} settings
 * @returns {string[]}
 */
export function settingsChips(settings) {
  const s = settings || {};
  const chips = [];
  chips.push(t(s.preset === 'three-rounds' ? 'settings.preset_three_rounds' : 'settings.preset_classic'));
  if (s.preset !== 'three-rounds') {
    chips.push(s.point_limit === 1 ? t('settings.single_round') : t('settings.limit_n', { n: s.point_limit ?? 100 }));
    if (s.hand_rummy !== false) chips.push(t('settings.hand_rummy'));
    if (s.knock) chips.push(t('settings.knock'));
  }
  chips.push(t('settings.seconds_n', { n: s.turn_seconds ?? 30 }));
  if (s.stake) chips.push(t('settings.stake_n', { n: s.stake.toLocaleString(currentLanguage()) }));
  if (s.access === 'invite') chips.push(t('settings.invite_only'));
  return chips;
}

/**
 * A player's rating, games and recent results; `extra` adds a part (a button) below.
 * @param {App} app
 * @param {string} nickname
 * @param {(dlg: {close: () => void}, info: PlayerInfo) => HTMLElement | null} [extra]
 */
export function showPlayerInfo(app, nickname, extra) {
  const body = h('div.player-info', h('p.muted', t('common.loading')));
  const dlg = dialog(t('info.title', { name: nickname }), body, { className: 'info-dialog' });
  api.player(nickname).then((info) => {
    clear(body);
    const rate = info.games_played ? Math.round((100 * info.games_won) / info.games_played) : 0;
    // DOM append() would write a missing part (no invite button) as the text "null".
    body.append(...[
      h('div.info-head', avatar(info.nickname), h('div', h('strong', info.nickname),
        h('div.muted', info.guest ? t('info.guest') : t('info.registered')))),
      levelProgress(info.level, info.xp),
      h('dl.info-stats',
        // A guest's rating is not kept: there is none to show.
        h('dt', t('info.rating')), h('dd', { id: 'info-rating' }, info.guest ? '–' : String(Math.round(info.rating))),
        h('dt', t('info.games_played')), h('dd', String(info.games_played)),
        h('dt', t('info.games_won')), h('dd', `${info.games_won} (${rate} %)`),
        h('dt', t('stats.rounds_won')), h('dd', `${info.stats.overall.rounds_won} / ${info.stats.overall.rounds_played}`),
        h('dt', t('stats.hand_rummies')), h('dd', String(info.stats.overall.hand_rummies)),
        h('dt', t('stats.average_penalty')), h('dd', String(info.stats.overall.average_penalty ?? '–')),
        ...chipsWonAndLost(info.stats, 'info')),
      h('h3', t('info.recent')),
      info.recent && info.recent.length
        ? h('ul.recent', info.recent.map((g) => h('li', h('a.recent-replay', { href: `#/replay/${g.game}`, onclick: () => dlg.close() },
          h('span', new Date(g.finished_at).toLocaleDateString()),
          gameResult(g)))))
        : h('p.muted', t('info.no_games')),
      h('a.all-games', { id: 'info-profile', href: `#/profile/${encodeURIComponent(info.nickname)}`, onclick: () => dlg.close() }, t('profile.open')),
      info.recent && info.recent.length
        ? h('a.all-games', { id: 'info-all-games', href: `#/history/${encodeURIComponent(info.nickname)}`, onclick: () => dlg.close() }, t('replay.all_games'))
        : null,
      extra ? extra(dlg, info) : null,
      reportButton(app, info, dlg),
      h('div.dialog-buttons', h('button', { onclick: dlg.close }, t('common.close'))),
    ].filter((part) => part !== null));
  }).catch((err) => {
    clear(body);
    body.append(h('p.form-error', app.errorText(err)), h('div.dialog-buttons', h('button', { onclick: dlg.close }, t('common.close'))));
  });
}

/**
 * A line of a table's log for the chat (see table/log.js): `key` is the line itself, by
 * which its element is kept; `text` tells it.
 * @typedef {{at: number, kind: string, key: object, text: () => string}} ChatNote
 */

/** Each chat log's elements, by the message or note they show: a table's log redrawn
 * after every move makes only its new lines. @type {WeakMap<HTMLElement, WeakMap<object, HTMLElement>>} */
const drawn = new WeakMap();

/**
 * Show `messages` in `log`, and among them by time the `notes` (a table's moves and
 * events, set apart from what people wrote); it stays at the newest unless the reader
 * scrolled back.
 * @param {HTMLElement} log
 * @param {ChatMessage[] | null | undefined} messages
 * @param {ChatNote[]} [notes]
 */
export function renderChatLog(log, messages, notes = []) {
  const made = drawn.get(log) ?? new WeakMap();
  drawn.set(log, made);
  /** @param {object} key @param {() => HTMLElement} make */
  const element = (key, make) => {
    let el = made.get(key);
    if (!el) { el = make(); made.set(key, el); }
    return el;
  };
  const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  const scrolled = log.scrollTop;
  const lines = [...(messages || []).map((m) => ({ at: m.at, el: element(m, () => h('li', h('time', formatTime(m.at)), ' ', h('strong', `${m.from}:`), ' ', h('span.text', m.text))) })),
    ...notes.map((n) => ({ at: n.at, el: element(n.key, () => h('li.note', { class: `note-${n.kind}` }, h('time', formatTime(n.at)), ' ', h('span.text', n.text()))) }))];
  lines.sort((a, b) => a.at - b.at);
  const shown = log.children;
  // Mostly lines are only added at the end: those are appended, the others stay.
  const kept = shown.length <= lines.length && lines.slice(0, shown.length).every((line, i) => shown[i] === line.el);
  if (kept && shown.length === lines.length) return;
  if (kept) log.append(...lines.slice(shown.length).map((line) => line.el));
  else log.replaceChildren(...lines.map((line) => line.el));
  log.scrollTop = atEnd ? log.scrollHeight : scrolled;
}

/**
 * A chat's input and send button; `say` gets the trimmed text (never empty).
 * The input takes at most the server's `chat_max` characters, known once the
 * `welcome` came: `limitChat` sets it (again) on every form on the page.
 * @param {string} inputId
 * @param {(text: string) => boolean | void} say false: the text was not sent, keep it
 * @returns {HTMLFormElement}
 */
export function chatForm(inputId, say) {
  const input = h('input', { id: inputId, autocomplete: 'off', 'data-i18n-placeholder': 'chat.placeholder', 'data-i18n-label': 'chat.placeholder' });
  input.dataset.chatInput = '';
  return h('form.chat-form', {
    onsubmit: (/** @type {Event} */ e) => {
      e.preventDefault();
      const text = input.value.trim();
      if (!text || say(text) === false) return;
      input.value = '';
    },
  }, input, h('button', { type: 'submit', 'data-i18n': 'chat.send' }));
}

/**
 * Limit every chat input under `root` to the server's `chat_max`.
 * @param {ParentNode} root
 * @param {number | null} max
 */
export function limitChat(root, max) {
  if (max === null) return;
  for (const input of root.querySelectorAll('input[data-chat-input]')) {
    if (input instanceof HTMLInputElement) input.maxLength = max;
  }
}
