// @ts-check
// The table screen's elements, built once (and again when the language changes):
// the felt with piles, opponents, melds and the own hand; the side panel with
// timer, limit, buttons and chat. The other modules fill them.

import { t, translateDom } from '../i18n.js';
import { setSound, soundOn } from '../sound.js';
import { h } from '../ui.js';
import { settingsButton } from '../settings.js';
import { chatForm, limitChat } from '../widgets.js';

/** @import { TableScreen } from './screen.js' */

/** The table chat's quick phrases (their texts' keys). */
const PHRASES = ['chat.phrase_hello', 'chat.phrase_luck', 'chat.phrase_well_played', 'chat.phrase_thanks', 'chat.phrase_good_game', 'chat.phrase_moment'];

/**
 * Build the screen's elements into `screen.root`; returns them by name.
 * @param {TableScreen} screen
 */
export function buildTable(screen) {
  const app = screen.app;
  const state = screen.state;
  const back = h('button.icon-btn.to-lobby', { id: 'to-lobby', onclick: () => app.openLobby(), 'data-i18n-label': 'table.to_lobby', 'data-i18n-title': 'table.to_lobby' }, '←');
  const stock = h('button.pile.stock', { id: 'stock', onclick: () => screen.draw('stock') });
  const discard = h('button.pile.discard', { id: 'discard', onclick: () => screen.draw('discard') });
  const piles = h('div.piles', stock, discard);
  const opponents = h('div.opponents', { id: 'opponents' });
  const melds = h('div.melds', { id: 'melds', 'aria-label': t('table.melds') });
  const center = h('div.center', melds);
  const lay = h('button.primary.lay', { id: 'lay-cards', onclick: () => screen.layCards() });
  const knock = h('button.knock', { id: 'knock', onclick: () => screen.knock(), hidden: true });
  const sortSuit = h('button.tool', { id: 'sort-suit', onclick: () => screen.sortHand('suit'), 'data-i18n': 'table.sort_suit' });
  const sortRank = h('button.tool', { id: 'sort-rank', onclick: () => screen.sortHand('rank'), 'data-i18n': 'table.sort_rank' });
  const hintBtn = h('button.tool', { id: 'hint', onclick: () => screen.askHint(), 'data-i18n': 'table.hint' });
  const status = h('div.turn-status', { id: 'turn-status', 'aria-live': 'polite' });
  const handActions = h('div.hand-actions', lay, knock, sortSuit, sortRank, hintBtn);
  const hand = h('div.hand', { id: 'hand', role: 'group', 'data-i18n-label': 'table.your_hand', onkeydown: (/** @type {KeyboardEvent} */ e) => screen.handKey(e) });
  // A press on a meld's blue line leaves that meld out of "Lay cards" (or puts it back); it
  // is caught before the hand's drag and tap see it.
  hand.addEventListener('pointerdown', (e) => {
    const line = e.target instanceof Element ? e.target.closest('.meld-line') : null;
    if (!(line instanceof HTMLElement) || e.button !== 0) return;
    e.stopPropagation();
    e.preventDefault();
    screen.toggleMeld(line.dataset.meld ?? '');
  }, true);
  const meName = h('div.me-label', { id: 'me-label' });
  // Within a thumb's reach on a phone: the piles (moved here by placePiles) beside the
  // actions, just above the hand; notifications there take the status line's place.
  const tray = h('div.tray', handActions);
  const toastLane = h('div.toast-lane', { id: 'toast-lane', 'aria-live': 'polite' });
  const me = h('div.me-area', status, toastLane, tray, hand, meName);
  const waiting = h('div.waiting', { id: 'waiting', hidden: true });
  const overlay = h('div.overlay', { id: 'overlay', hidden: true });

  const timerRing = h('div.timer', { id: 'timer', role: 'timer' });
  const limit = h('div.limit', { id: 'limit' });
  const info = h('button', { id: 'player-info', onclick: () => screen.playerInfoDialog(), 'data-i18n': 'table.player_info' });
  const invite = h('button', { id: 'invite', onclick: () => screen.inviteDialog(), 'data-i18n': 'table.invite' });
  const results = h('button', { id: 'results', onclick: () => screen.openResults(), 'data-i18n': 'table.results' });
  const leave = h('button.leave', { id: 'leave', onclick: () => screen.leave() }, icon('⎋'), h('span', { 'data-i18n': 'table.leave' }));
  const sound = h('button.tool-btn', { id: 'sound', 'aria-pressed': String(soundOn()), onclick: () => { setSound(!soundOn()); showSound(sound); } });
  showSound(sound);
  const onSound = () => { if (!sound.isConnected) document.removeEventListener('romme-sound', onSound); else showSound(sound); };
  document.addEventListener('romme-sound', onSound);
  const rules = h('ul.chips.small', { id: 'table-settings' });
  // It scrolls (the table's log fills it): it takes the focus, so that keys scroll it too.
  const chatLog = h('ol.chat-log', { id: 'table-chat-log', 'aria-live': 'polite', tabindex: '0', 'data-i18n-label': 'table.chat' });
  /** @param {string} text */
  const say = (text) => {
    if (!state.table) return false;
    app.send({ type: 'table_chat', table: state.table.id, text });
    return true;
  };
  const chat = chatForm('table-chat-input', say);
  // Quick phrases: a friendly word with one tap, sent as a chat line in the sender's language.
  const phrases = h('div.phrases', { role: 'group', 'data-i18n-label': 'chat.phrases' },
    PHRASES.map((key) => h('button.phrase', { type: 'button', dataset: { phrase: key }, 'data-i18n': key, onclick: () => say(t(key)) })));
  const sideToggle = h('button.icon-btn.side-toggle', { id: 'side-toggle', 'aria-expanded': 'false', 'data-i18n-label': 'table.menu',
    onclick: () => screen.toggleSide() }, h('span.unread', { hidden: true }), '☰');
  const miniTimer = h('span.mini-timer', { id: 'mini-timer' });
  const miniLimit = h('span.mini-limit', { id: 'mini-limit' });
  const mini = h('div.mini-info',
    h('button.icon-btn', { onclick: () => app.openLobby(), 'data-i18n-label': 'table.to_lobby' }, '←'),
    miniTimer, miniLimit, h('span.spacer'), sideToggle);
  const felt = h('div.felt', mini, h('div.felt-top', back, piles, opponents), center, waiting, me, overlay);
  const side = h('aside.side', { id: 'side' },
    h('button.icon-btn.side-close', { onclick: () => screen.toggleSide(false), 'data-i18n-label': 'common.close' }, '×'),
    h('div.side-top', timerRing, limit),
    h('div.side-buttons', info, invite, results),
    h('div.side-tools',
      h('button.tool-btn', { id: 'keys-help', onclick: () => screen.keysDialog(), 'aria-keyshortcuts': '?' }, icon('⌨'), h('span', { 'data-i18n': 'keys.title' })),
      sound,
      h('button.tool-btn', { id: 'help-link', type: 'button', onclick: () => { location.hash = '#/help'; } }, icon('?'), h('span', { 'data-i18n': 'help.button' })),
      settingsButton('tool-btn')),
    leave,
    rules,
    h('h2.chat-title', { 'data-i18n': 'table.chat' }), phrases, chatLog, chat);
  screen.root.replaceChildren(h('div.table-screen', felt, side, h('div.side-scrim', { onclick: () => screen.toggleSide(false) })));
  translateDom(screen.root);
  limitChat(screen.root, app.chatMax);
  const els = {
    stock, discard, piles, opponents, melds, center, lay, knock, sortSuit, sortRank, hintBtn, status,
    handActions, hand, meName, me, waiting, overlay, timerRing, limit, invite, results, rules, chatLog,
    sideToggle, miniTimer, miniLimit, tray,
  };
  placePiles(els);
  return els;
}

/** The layout of a phone (the same width as the stylesheet's). */
export const PHONE = matchMedia('(max-width: 760px)');

/**
 * The piles lie at the top of the felt on a wide screen, and on a phone in the tray
 * above the hand, where a thumb reaches them (their place in the document is also
 * their place in the keyboard's order).
 * @param {{piles: HTMLElement, tray: HTMLElement, opponents: HTMLElement}} els
 */
export function placePiles(els) {
  if (PHONE.matches) els.tray.prepend(els.piles);
  else els.opponents.before(els.piles);
}

/**
 * A button's icon, a symbol the screen reader skips (the button's words say it).
 * @param {string} symbol
 */
function icon(symbol) {
  return h('span.btn-icon', { 'aria-hidden': 'true' }, symbol);
}

const SPEAKER = '<path d="M3 9v6h4l5 4V5L7 9H3z" fill="currentColor"/>';
const SPEAKER_ON = `<svg viewBox="0 0 24 24" width="1em" height="1em">${SPEAKER}`
  + '<path d="M15.5 8.5a5 5 0 0 1 0 7M18 6a8.5 8.5 0 0 1 0 12" stroke="currentColor" stroke-width="2" fill="none"/></svg>';
const SPEAKER_OFF = `<svg viewBox="0 0 24 24" width="1em" height="1em">${SPEAKER}`
  + '<path d="M16 9l6 6M22 9l-6 6" stroke="currentColor" stroke-width="2"/></svg>';

/**
 * The sound button says whether the sound is on, in words and with its icon.
 * @param {HTMLElement} button
 */
function showSound(button) {
  const on = soundOn();
  button.setAttribute('aria-pressed', String(on));
  button.replaceChildren(h('span.btn-icon', { 'aria-hidden': 'true', html: on ? SPEAKER_ON : SPEAKER_OFF }),
    h('span', t(on ? 'table.sound_on' : 'table.sound_off')));
}

/** @typedef {ReturnType<typeof buildTable>} Elements */
