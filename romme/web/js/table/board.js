// @ts-check
// The felt: the stock and discard piles, the opponents' seats (cards, points,
// badges, whose turn), the laid melds, and before the start the waiting room.

import { cardName, cardShort, cardSVG } from '../cards.js';
import { t } from '../i18n.js';
import { avatar, clear, h } from '../ui.js';
import { levelBadge } from '../levels.js';
import { DEFAULT_BOT_LEVEL, settingsChips, showPlayerInfo } from '../widgets.js';
import { potText } from '../chips.js';
import { keyed } from './anim.js';
import { botName } from '../botname.js';

/** @import { TableScreen } from './screen.js' */

/** @param {TableScreen} screen */
export function renderPiles(screen) {
  const { state, els } = screen;
  const v = state.view;
  if (!v) return;
  const canDraw = state.myTurn && v.phase === 'draw';
  const stock = els.stock;
  stock.replaceChildren(...h('div',
    v.stock_count ? h('span.card.back', { html: cardSVG(null) }) : h('span.card.empty'),
    v.stock_count > 1 ? h('span.card.back.under', { html: cardSVG(null) }) : null,
    h('span.count', String(v.stock_count))).childNodes);
  stock.disabled = !canDraw;
  stock.classList.toggle('can', canDraw);
  stock.setAttribute('aria-label', t('table.stock_label', { n: v.stock_count }));
  const discard = els.discard;
  const top = v.discard_top;
  discard.replaceChildren(
    top ? h('span.card.face', { role: 'img', 'aria-label': cardName(top, t), html: cardSVG(top), dataset: { key: `d:${v.discard_count}:${top}`, card: top } }) : h('span.card.empty'),
    h('span.count', { 'aria-hidden': 'true', dataset: { n: v.discard_count } }));
  discard.disabled = !(canDraw && top) && !state.discardTargetActive;
  discard.classList.toggle('can', canDraw && !!top);
  discard.setAttribute('aria-label', top ? t('table.discard_label', { card: cardName(top, t) }) : t('table.discard_empty'));
}

/**
 * The other seats, in playing order after the own seat.
 * @param {TableScreen} screen
 */
export function renderOpponents(screen) {
  const state = screen.state;
  const v = state.view;
  const n = v ? v.seats : state.table?.seats.length ?? 0;
  const me = state.mySeat;
  const order = [];
  for (let i = 1; i <= n; i += 1) {
    const seat = me === null ? i - 1 : (me + i) % n;
    if (seat !== me) order.push(seat);
  }
  const box = screen.els.opponents;
  clear(box);
  box.dataset.count = String(order.length);
  for (const seat of order) box.append(seatBox(screen, seat));
}

/**
 * @param {TableScreen} screen
 * @param {number} seat
 */
function seatBox(screen, seat) {
  const state = screen.state;
  const v = state.view;
  const info = state.table?.seats?.[seat];
  const name = state.seatName(seat);
  const active = !v || v.active[seat];
  const turn = !!v && v.current === seat && ['draw', 'play'].includes(v.phase);
  const count = v ? v.hand_counts[seat] : 0;
  const backs = h('div.mini-fan', { 'aria-hidden': 'true' });
  for (let i = 0; i < Math.min(count, 14); i += 1) backs.append(h('span.card.back', { html: cardSVG(null), style: `--i:${i};--n:${Math.min(count, 14)}` }));
  const badges = [];
  if (info?.bot) badges.push(h('span.badge.bot', botName(info.bot)));
  if (info?.left) badges.push(h('span.badge.away', t('table.left')));
  else if (info?.away) badges.push(h('span.badge.away', t('table.away')));
  else if (info?.nickname && info.connected === false) badges.push(h('span.badge.offline', t('table.offline')));
  if (v && v.opened[seat]) badges.push(h('span.badge.opened', t('table.opened')));
  const label = [name, v ? state.totalText(v.totals[seat]) : '', v ? t('table.cards_n', { n: count }) : '',
    turn ? t('table.their_turn') : '', active ? '' : t('table.eliminated')].filter(Boolean).join(', ');
  const nickname = info?.nickname;
  if (!nickname && !info?.bot) {
    return h('div.seat.opponent.free', { dataset: { seat }, id: `seat-${seat}` }, h('span.nick', t('lobby.free_seat')));
  }
  return h('div.seat.opponent', {
    class: `${turn ? 'turn' : ''} ${active ? '' : 'out'}`,
    dataset: { seat, key: `seat:${seat}` }, id: `seat-${seat}`, 'aria-label': label, role: 'group',
  },
  turn ? h('span.turn-arrow', { 'aria-hidden': 'true', title: t('table.their_turn') }) : null,
  backs,
  h('button.seat-name', { onclick: () => nickname && showPlayerInfo(screen.app, nickname), disabled: !nickname },
    avatar(name, !!info?.bot), h('span.nick', name), levelBadge(info?.level), active ? null : h('span.red-cross', { 'aria-hidden': 'true' }, '✕')),
  h('div.seat-stats',
    v ? h('span.points', { title: t(state.scoredByRounds ? 'summary.score' : 'table.points') }, state.totalText(v.totals[seat])) : null,
    v ? h('span.count', { title: t('table.cards') }, h('i.card-icon', { 'aria-hidden': 'true' }), String(count)) : null),
  h('div.seat-badges', badges),
  h('div.turn-bar', { dataset: { seat } }));
}

/** @param {TableScreen} screen */
export function renderMelds(screen) {
  const state = screen.state;
  const v = state.view;
  if (!v) return;
  const box = screen.els.melds;
  clear(box);
  if (!v.melds.length) {
    box.append(h('p.melds-empty', t('table.no_melds')));
    return;
  }
  v.melds.forEach((meld, index) => {
    const keys = keyed(meld.cards, `m:${index}:`);
    const owner = v.meld_owners[index];
    const cards = meld.cards.map((code, j) => h('span.card.face', {
      html: cardSVG(code),
      dataset: { key: keys[j], card: code, meld: index, pos: j },
      role: 'img',
      'aria-label': cardName(code, t),
    }));
    const low = h('button.meld-arrow.low', { hidden: true, dataset: { meld: index, end: 'low' }, 'aria-label': t('table.lay_off_low') }, '◀');
    const high = h('button.meld-arrow.high', { hidden: true, dataset: { meld: index, end: meld.kind === 'group' ? 'group' : 'high' }, 'aria-label': t('table.lay_off_high') }, '▶');
    for (const arrow of [low, high]) arrow.addEventListener('click', () => screen.dropOn(state.picked?.code, arrow));
    box.append(h('div.meld', {
      class: meld.kind, dataset: { meld: index, owner }, id: `meld-${index}`,
      'aria-label': t('table.meld_label', { n: index + 1, owner: state.seatName(owner), cards: meld.cards.map(cardShort).join(' ') }),
    }, low, h('div.meld-cards', cards), high, h('span.meld-owner', { style: `--c:${owner}` }, state.seatName(owner))));
  });
}

/** The meld cards' width: never smaller (still readable), never larger than a hand's card. */
const MELD_CARD_MIN = 24;
const MELD_CARD_MAX = 110;

/**
 * Size the meld cards to the felt: as large as the melds still fit the meld area
 * without scrolling (they wrap into rows), down to a readable minimum. A binary
 * search over the card width, each step one layout of the meld area. Measured on
 * the layout, which transforms leave alone: cards flying in from the hand or a seat
 * (and a joker raised as a target) must not count as overflow, or the melds would
 * shrink for the length of a flight and stay small.
 * @param {TableScreen} screen
 */
export function fitMelds(screen) {
  const { center, melds } = screen.els;
  if (center.hidden || !center.clientHeight) return;
  const style = getComputedStyle(center);
  const room = center.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
  const boxes = /** @type {HTMLElement[]} */ ([...melds.children]);
  const fits = () => melds.offsetHeight <= room + 1
    && boxes.every((m) => m.offsetLeft - melds.offsetLeft >= -1 && m.offsetLeft - melds.offsetLeft + m.offsetWidth <= melds.clientWidth + 1);
  let lo = MELD_CARD_MIN;
  let hi = Math.min(MELD_CARD_MAX, center.clientWidth / 5);
  melds.style.setProperty('--mcw', `${hi}px`);
  if (fits()) return;
  for (let i = 0; i < 8 && hi - lo > 0.5; i += 1) {
    const mid = (lo + hi) / 2;
    melds.style.setProperty('--mcw', `${mid}px`);
    if (fits()) lo = mid; else hi = mid;
  }
  melds.style.setProperty('--mcw', `${Math.floor(lo)}px`);
}

/**
 * Before the start: the seats, computer opponents to add or remove (the host),
 * and the start button.
 * @param {TableScreen} screen
 */
export function renderWaiting(screen) {
  const app = screen.app;
  const table = screen.state.table;
  if (!table) return;
  const isHost = table.my_seat === 0 || table.host === app.me?.nickname;
  /** @param {number} seat @param {string | null} bot */
  const setSeat = (seat, bot) => app.send({ type: 'set_seat', table: table.id, seat, bot });
  const box = screen.els.waiting;
  clear(box);
  const seats = table.seats.map((s) => {
    let content;
    if (s.nickname) content = [avatar(s.nickname), h('strong', s.nickname), levelBadge(s.level), s.seat === 0 ? h('span.badge', t('table.host')) : null];
    else if (s.bot) {
      content = [avatar('bot', true), h('strong', botName(s.bot)),
        isHost ? h('button.small', { onclick: () => setSeat(s.seat, null) }, t('table.remove_bot')) : null];
    } else {
      content = [h('span.free', t('lobby.free_seat')),
        isHost ? h('select.small', {
          'aria-label': t('table.add_bot'),
          onchange: (/** @type {Event & {target: HTMLSelectElement}} */ e) => { if (e.target.value) setSeat(s.seat, e.target.value); },
        }, h('option', { value: '' }, t('table.add_bot')), app.botLevels.map((l) => h('option', { value: l }, botName(l)))) : null];
    }
    return h('li.waiting-seat', content);
  });
  const filled = table.seats.every((s) => s.nickname || s.bot);
  /** @param {string} [fill] the level of the computer opponents that take the free seats */
  const start = (fill) => app.send({ type: 'start_game', table: table.id, ...(fill ? { fill } : {}) });
  box.append(
    h('h2', t('table.waiting_title')),
    h('ul.chips', settingsChips(table.settings).map((c) => h('li', c))),
    h('p.pot', { id: 'table-pot', hidden: !potText(table) }, potText(table) ?? ''),
    h('ul.waiting-seats', seats),
    h('p.muted', filled ? (isHost ? t('table.ready_to_start') : t('table.waiting_for_host')) : t('table.waiting_for_players')),
    h('div.waiting-buttons',
      isHost ? h('button.primary.big', { id: 'start-game', disabled: !filled, onclick: () => start() }, t('table.start')) : null,
      isHost && !filled ? h('button', { id: 'start-fill', onclick: () => start(DEFAULT_BOT_LEVEL) }, t('table.start_fill')) : null,
      table.my_seat !== null ? h('button', { onclick: () => screen.inviteDialog() }, t('table.invite')) : null,
      h('button.ghost', { onclick: () => screen.leave() }, t('table.leave'))));
}
