// The table: piles, opponents, laid melds, the own hand as a fan, the side
// panel (timer, limit, buttons, chat), the round summary and game over.
// Everything is rendered from the server's `view`; `events` only animate.

import { cardName, cardShort, cardSVG, isJoker } from './cards.js';
import { currentLanguage, t, translateDom } from './i18n.js';
import { renderChatLog, settingsChips, showPlayerInfo, BOT_LEVELS } from './lobby.js';
import { HandDrag } from './dnd.js';
import { play, setSound, soundOn } from './sound.js';
import { canLay, handMelds, layOffEnds, exchangePositions, sortByRank, sortBySuit, targetsFor } from './preview.js';
import { avatar, clear, dialog, h, languagePicker, toast } from './ui.js';

const FLIP_MS = 320;
const TROPHY = '<svg viewBox="0 0 64 64" width="56" height="56"><path d="M18 8h28v14c0 10-6 17-14 17S18 32 18 22z" fill="#f4c542" stroke="#a16207" stroke-width="3"/><path d="M18 14H8c0 10 5 15 12 15M46 14h10c0 10-5 15-12 15" fill="none" stroke="#a16207" stroke-width="3"/><path d="M28 39h8v9h-8z" fill="#eab308"/><rect x="20" y="48" width="24" height="8" rx="2" fill="#a16207"/></svg>';

function keyed(list, prefix) {
  const seen = {};
  return list.map((code) => {
    seen[code] = (seen[code] || 0) + 1;
    return `${prefix}${code}:${seen[code]}`;
  });
}

/** One sign convention: penalty points are counted up (classic: the total of
 * penalty points); a three-rounds score is minus the penalties, shown negative. */
export function scoreNumber(penalties, rounds) {
  return rounds && penalties ? `−${penalties}` : String(penalties);
}

function sameCards(a, b) {
  if (a.length !== b.length) return false;
  const x = [...a].sort().join();
  const y = [...b].sort().join();
  return x === y;
}

export class TableScreen {
  constructor(app, root) {
    this.app = app;
    this.root = root;
    this.table = null;
    this.hand = [];
    this.pendingOrder = null;
    this.picked = null;
    this.hint = null;
    this.deferred = null;
    this.summaryFor = null;
    this.build();
    this.tick = setInterval(() => this.renderTimer(), 250);
    this.onResize = () => this.layoutHand();
    window.addEventListener('resize', this.onResize);
    this.onKey = (e) => this.globalKey(e);
    document.addEventListener('keydown', this.onKey);
  }

  destroy() {
    clearInterval(this.tick);
    window.removeEventListener('resize', this.onResize);
    document.removeEventListener('keydown', this.onKey);
    document.title = t('app.name');
    clear(this.root);
  }

  get view() { return this.table?.view || null; }
  get mySeat() { return this.table?.my_seat ?? null; }
  get myTurn() {
    const v = this.view;
    return !!v && v.seat !== null && v.seat === v.current && (v.phase === 'draw' || v.phase === 'play');
  }

  send(action) {
    // One move at a time: a second click before the server answered is ignored.
    if (action.type !== 'arrange') {
      this.busy = true;
      clearTimeout(this.busyTimer);
      this.busyTimer = setTimeout(() => { this.busy = false; }, 3000);
    }
    return this.app.send({ type: 'action', table: this.table.id, action });
  }

  // ------------------------------------------------------------ building

  build() {
    const els = {};
    this.els = els;
    els.back = h('button.icon-btn.to-lobby', { id: 'to-lobby', onclick: () => this.app.openLobby(), 'data-i18n-label': 'table.to_lobby', 'data-i18n-title': 'table.to_lobby' }, '←');
    els.stock = h('button.pile.stock', { id: 'stock', onclick: () => this.draw('stock') });
    els.discard = h('button.pile.discard', { id: 'discard', onclick: () => this.draw('discard') });
    els.piles = h('div.piles', els.stock, els.discard);
    els.opponents = h('div.opponents', { id: 'opponents' });
    els.melds = h('div.melds', { id: 'melds', 'aria-label': t('table.melds') });
    els.center = h('div.center', els.melds);
    els.lay = h('button.primary.lay', { id: 'lay-cards', onclick: () => this.layCards() });
    els.knock = h('button.knock', { id: 'knock', onclick: () => this.knock(), hidden: true });
    els.sortSuit = h('button.tool', { id: 'sort-suit', onclick: () => this.sortHand('suit'), 'data-i18n': 'table.sort_suit' });
    els.sortRank = h('button.tool', { id: 'sort-rank', onclick: () => this.sortHand('rank'), 'data-i18n': 'table.sort_rank' });
    els.hintBtn = h('button.tool', { id: 'hint', onclick: () => this.askHint(), 'data-i18n': 'table.hint' });
    els.status = h('div.turn-status', { id: 'turn-status', 'aria-live': 'polite' });
    els.handActions = h('div.hand-actions', els.lay, els.knock, els.sortSuit, els.sortRank, els.hintBtn);
    els.hand = h('div.hand', { id: 'hand', role: 'group', 'data-i18n-label': 'table.your_hand', onkeydown: (e) => this.handKey(e) });
    els.meName = h('div.me-label', { id: 'me-label' });
    els.me = h('div.me-area', els.status, els.handActions, els.hand, els.meName);
    els.waiting = h('div.waiting', { id: 'waiting', hidden: true });
    els.overlay = h('div.overlay', { id: 'overlay', hidden: true });

    els.timerRing = h('div.timer', { id: 'timer', role: 'timer' });
    els.limit = h('div.limit', { id: 'limit' });
    els.info = h('button', { id: 'player-info', onclick: () => this.playerInfoDialog(), 'data-i18n': 'table.player_info' });
    els.invite = h('button', { id: 'invite', onclick: () => this.inviteDialog(), 'data-i18n': 'table.invite' });
    els.results = h('button', { id: 'results', onclick: () => this.openResults(), 'data-i18n': 'table.results' });
    els.leave = h('button.ghost', { id: 'leave', onclick: () => this.leave(), 'data-i18n': 'table.leave' });
    els.rules = h('ul.chips.small', { id: 'table-settings' });
    els.chatLog = h('ol.chat-log', { id: 'table-chat-log', 'aria-live': 'polite' });
    const chatInput = h('input', { id: 'table-chat-input', maxlength: 500, autocomplete: 'off', 'data-i18n-placeholder': 'chat.placeholder', 'data-i18n-label': 'chat.placeholder' });
    els.chatForm = h('form.chat-form', {
      onsubmit: (e) => {
        e.preventDefault();
        const text = chatInput.value.trim();
        if (!text || !this.table) return;
        this.app.send({ type: 'table_chat', table: this.table.id, text });
        chatInput.value = '';
      },
    }, chatInput, h('button', { type: 'submit', 'data-i18n': 'chat.send' }));
    els.sideToggle = h('button.icon-btn.side-toggle', { id: 'side-toggle', 'aria-expanded': 'false', 'data-i18n-label': 'table.menu',
      onclick: () => this.toggleSide() }, h('span.unread', { hidden: true }), '☰');
    els.mini = h('div.mini-info',
      h('button.icon-btn', { onclick: () => this.app.openLobby(), 'data-i18n-label': 'table.to_lobby' }, '←'),
      h('span.mini-timer', { id: 'mini-timer' }), h('span.mini-limit', { id: 'mini-limit' }), h('span.spacer'), els.sideToggle);
    els.felt = h('div.felt', els.mini, h('div.felt-top', els.back, els.piles, els.opponents), els.center, els.waiting, els.me, els.overlay);
    els.side = h('aside.side', { id: 'side' },
      h('button.icon-btn.side-close', { onclick: () => this.toggleSide(false), 'data-i18n-label': 'common.close' }, '×'),
      h('div.side-top', els.timerRing, els.limit),
      h('div.side-buttons', els.info, els.invite, els.results, els.leave),
      h('div.side-lang', languagePicker(),
        h('button.small.ghost', { id: 'keys-help', onclick: () => this.keysDialog(), 'data-i18n': 'keys.title', 'aria-keyshortcuts': '?' }),
        h('button.small.ghost', {
          id: 'sound', 'aria-pressed': String(soundOn()), 'data-i18n': 'table.sound',
          onclick: (e) => { setSound(!soundOn()); e.currentTarget.setAttribute('aria-pressed', String(soundOn())); },
        })),
      els.rules,
      h('h2.chat-title', { 'data-i18n': 'table.chat' }), els.chatLog, els.chatForm);
    this.root.replaceChildren(h('div.table-screen', els.felt, els.side, h('div.side-scrim', { onclick: () => this.toggleSide(false) })));
    translateDom(this.root);

    this.drag = new HandDrag(els.hand, {
      canDrag: () => !!this.view && this.view.seat !== null && ['draw', 'play'].includes(this.view.phase),
      onStart: (i) => this.showTargets(this.hand[i], true),
      onMove: (i, insertAt) => this.layoutHand(insertAt === null ? null : { from: i, to: insertAt }),
      onEnd: () => {
        this.showTargets(null, false);
        if (this.deferred) { const events = this.deferred; this.deferred = null; this.render(events); } else this.layoutHand();
      },
      onDrop: (i, data) => this.dropOn(this.hand[i], data),
      onReorder: (from, to) => this.reorder(from, to),
      onTap: (i, how) => this.tapCard(i, how),
      insertionIndex: (x, y) => this.insertionIndex(x, y),
    });
  }

  waitFor(id) {
    this.table = null;
    clear(this.els.hand);
    this.els.waiting.hidden = false;
    this.els.waiting.replaceChildren(h('p', t('table.loading', { id })));
  }

  setTable(table, events) {
    if (events.length) this.busy = false;
    this.noteMoves(events, table);
    const prevRound = this.view?.round_no;
    this.table = table;
    this.app.tableId = table.id;
    if (this.view && prevRound !== undefined && this.view.round_no !== prevRound) { this.summaryFor = null; this.reopened = false; }
    if (this.drag.active) { this.deferred = [...(this.deferred || []), ...events]; this.renderSide(); return; }
    this.render(events);
  }

  update(what) {
    if (!this.table) return;
    if (what === 'language') { this.build(); this.render([]); return; }
    if (what === 'chat') { this.renderChat(); return; }
    if (what === 'lobby' || what === 'invitations') { this.refreshInvite?.(); return; }
    this.render([]);
  }

  // ----------------------------------------------------------- rendering

  render(events) {
    const before = this.captureRects();
    const table = this.table;
    const view = this.view;
    this.syncHand();
    // A new deal comes sorted by suit, as players expect; they may rearrange it.
    const dealt = view && view.seat !== null && events.some((e) => e.type === 'hand_dealt' && e.seat === view.seat);
    if (dealt && this.hand.length) {
      this.hand = sortBySuit(this.hand);
      this.pendingOrder = [...this.hand];
      this.send({ type: 'arrange', cards: this.hand });
    }
    this.renderSide();
    const waiting = !view || view.phase === 'not_started';
    this.els.waiting.hidden = !waiting;
    this.els.center.hidden = waiting;
    this.els.me.hidden = waiting;
    const watching = !waiting && view.seat === null;
    this.els.handActions.hidden = watching;
    this.els.hand.hidden = watching;
    this.els.meName.hidden = watching;
    this.els.piles.hidden = waiting;
    if (waiting) {
      this.renderWaiting();
      this.renderOpponents();
      this.els.overlay.hidden = true;
      return;
    }
    this.renderPiles();
    this.renderOpponents();
    this.renderMelds();
    this.renderHand();
    this.renderControls();
    this.renderSummary();
    this.animate(before, events);
    this.markFresh(events);
    if (!performance.getEntriesByName('romme-table').length) performance.mark('romme-table');

    if (events.some((e) => e.type === 'turn_started' && e.seat === view.seat)) { this.flashTurn(); play('turn'); }
    if (events.some((e) => ['drew', 'discarded', 'laid', 'laid_off', 'joker_exchanged', 'knocked'].includes(e.type))) play('card');
    const ended = events.find((e) => e.type === 'round_ended');
    if (ended) play(ended.result.winner === view.seat ? 'win' : 'end');
    document.title = `${this.myTurn ? '❗ ' : ''}${t('app.name')} · ${t('table.title', { id: table.id })}`;
  }

  /** Three rounds: the score is minus the penalties (the highest wins). */
  get scoredByRounds() { return this.view?.rules?.scoring === 'rounds'; }

  /** A seat's running total, the same in the seats, the own label and the summary. */
  totalText(total) {
    return t('table.points_n', { n: scoreNumber(total, this.scoredByRounds) });
  }

  seatName(seat) {
    const info = this.table?.seats?.[seat];
    if (!info) return t('table.seat_n', { n: seat + 1 });
    if (info.nickname) return info.nickname;
    if (info.bot) return t('table.bot_name', { level: t(`bot.${info.bot}`), n: seat + 1 });
    return t('lobby.free_seat');
  }

  renderSide() {
    const table = this.table;
    const s = table.settings || {};
    const three = s.preset === 'three-rounds';
    const limitText = three ? t('table.rounds_of', { round: this.view?.round_no || 1, rounds: this.view?.rules?.rounds || 3 })
      : (s.point_limit ?? this.view?.rules?.point_limit) === 1 ? t('settings.single_round')
        : t('table.limit', { n: s.point_limit ?? this.view?.rules?.point_limit ?? 100 });
    this.els.limit.replaceChildren(h('span.label', t(three ? 'table.game' : 'table.point_limit')), h('strong', limitText));
    document.getElementById('mini-limit').textContent = limitText;
    this.els.rules.replaceChildren(...settingsChips(s).map((c) => h('li', c)));
    this.els.invite.disabled = table.my_seat === null || !(table.status === 'waiting');
    this.els.results.disabled = !this.view?.results?.length;
    this.renderChat();
    this.renderTimer();
  }

  renderChat() {
    renderChatLog(this.els.chatLog, this.table?.chat || []);
    const dot = this.els.sideToggle.querySelector('.unread');
    const count = (this.table?.chat || []).length;
    if (this.seenChat === undefined) this.seenChat = count;
    if (document.body.classList.contains('side-open')) this.seenChat = count;
    dot.hidden = count <= this.seenChat;
  }

  toggleSide(force) {
    const open = force ?? !document.body.classList.contains('side-open');
    document.body.classList.toggle('side-open', open);
    this.els.sideToggle.setAttribute('aria-expanded', String(open));
    if (open) { this.seenChat = (this.table?.chat || []).length; this.renderChat(); }
  }

  renderTimer() {
    this.renderCountdown();
    const timer = this.table?.timer;
    const ring = this.els.timerRing;
    const mini = document.getElementById('mini-timer');
    const view = this.view;
    if (!timer || !view || !['draw', 'play'].includes(view.phase)) {
      ring.replaceChildren(h('span.timer-label', t('table.time_left')), h('strong', '–'));
      ring.style.setProperty('--p', '0');
      if (mini) mini.textContent = '';
      for (const bar of this.root.querySelectorAll('.turn-bar')) bar.style.setProperty('--p', '0');
      return;
    }
    // The seat's own time: while a knock window is open it has not started yet
    // (the window is shown apart).
    const now = this.app.now();
    const knock = timer.knock;
    const knockOpen = !!knock && knock.deadline > now;
    const start = timer.start ?? (knockOpen ? knock.deadline : now);
    const left = Math.max(0, (timer.deadline - Math.max(now, start)) / 1000);
    const frac = Math.max(0, Math.min(1, left / (timer.seconds || 30)));
    ring.style.setProperty('--p', String(frac));
    ring.classList.toggle('low', left < 10);
    ring.classList.toggle('mine', timer.seat === view.seat);
    // Built with h(), which leaves out a null child (replaceChildren would print "null").
    ring.replaceChildren(...h('div', h('span.timer-label', t('table.time_left')), h('strong', String(Math.ceil(left))),
      h('span.timer-who', timer.seat === view.seat ? t('table.your_turn_short') : this.seatName(timer.seat)),
      knockOpen ? h('span.knock-window', { id: 'knock-window' }, t('table.knock_window', { n: Math.ceil((knock.deadline - now) / 1000) })) : null).childNodes);
    ring.setAttribute('aria-label', t('table.seconds_left', { n: Math.ceil(left) }));
    if (mini) { mini.textContent = `${Math.ceil(left)} s`; mini.classList.toggle('low', left < 10); }
    for (const bar of this.root.querySelectorAll('.turn-bar')) {
      bar.style.setProperty('--p', Number(bar.dataset.seat) === timer.seat ? String(frac) : '0');
    }
    if (knockOpen && knock.seats?.includes(view.seat)) {
      this.els.knock.style.setProperty('--p', String(Math.max(0, (knock.deadline - this.app.now()) / (view.rules.knock_window_seconds * 1000))));
    } else if (!this.els.knock.hidden) {
      this.renderControls(); // the knock window has closed
    }
  }

  renderPiles() {
    const v = this.view;
    const canDraw = this.myTurn && v.phase === 'draw';
    const stock = this.els.stock;
    stock.replaceChildren(
      v.stock_count ? h('span.card.back', { html: cardSVG(null) }) : h('span.card.empty'),
      v.stock_count > 1 ? h('span.card.back.under', { html: cardSVG(null) }) : null,
      h('span.count', String(v.stock_count)));
    stock.disabled = !canDraw;
    stock.classList.toggle('can', canDraw);
    stock.setAttribute('aria-label', t('table.stock_label', { n: v.stock_count }));
    const discard = this.els.discard;
    const top = v.discard_top;
    discard.replaceChildren(
      top ? h('span.card.face', { html: cardSVG(top), dataset: { key: `d:${v.discard_count}:${top}`, card: top } }) : h('span.card.empty'),
      h('span.count', String(v.discard_count)));
    discard.disabled = !(canDraw && top) && !this.discardTargetActive;
    discard.classList.toggle('can', canDraw && !!top);
    discard.setAttribute('aria-label', top ? t('table.discard_label', { card: cardName(top, t) }) : t('table.discard_empty'));
  }

  renderOpponents() {
    const table = this.table;
    const v = this.view;
    const n = v ? v.seats : table.seats.length;
    const me = this.mySeat;
    const order = [];
    for (let i = 1; i <= n; i += 1) {
      const seat = me === null ? i - 1 : (me + i) % n;
      if (seat !== me) order.push(seat);
    }
    clear(this.els.opponents);
    this.els.opponents.dataset.count = String(order.length);
    for (const seat of order) this.els.opponents.append(this.seatBox(seat));
  }

  seatBox(seat) {
    const v = this.view;
    const info = this.table.seats?.[seat] || {};
    const name = this.seatName(seat);
    const active = !v || v.active[seat];
    const turn = v && v.current === seat && ['draw', 'play'].includes(v.phase);
    const count = v ? v.hand_counts[seat] : 0;
    const backs = h('div.mini-fan', { 'aria-hidden': 'true' });
    for (let i = 0; i < Math.min(count, 14); i += 1) backs.append(h('span.card.back', { html: cardSVG(null), style: `--i:${i};--n:${Math.min(count, 14)}` }));
    const badges = [];
    if (info.bot) badges.push(h('span.badge.bot', t(`bot.${info.bot}`)));
    if (info.left) badges.push(h('span.badge.away', t('table.left')));
    else if (info.away) badges.push(h('span.badge.away', t('table.away')));
    else if (info.nickname && info.connected === false) badges.push(h('span.badge.offline', t('table.offline')));
    if (v && v.opened[seat]) badges.push(h('span.badge.opened', t('table.opened')));
    const label = [name, v ? this.totalText(v.totals[seat]) : '', v ? t('table.cards_n', { n: count }) : '',
      turn ? t('table.their_turn') : '', active ? '' : t('table.eliminated')].filter(Boolean).join(', ');
    if (!info.nickname && !info.bot) {
      return h('div.seat.opponent.free', { dataset: { seat }, id: `seat-${seat}` }, h('span.nick', t('lobby.free_seat')));
    }
    return h('div.seat.opponent', {
      class: `${turn ? 'turn' : ''} ${active ? '' : 'out'}`,
      dataset: { seat, key: `seat:${seat}` }, id: `seat-${seat}`, 'aria-label': label, role: 'group',
    },
    turn ? h('span.turn-arrow', { 'aria-hidden': 'true', title: t('table.their_turn') }) : null,
    backs,
    h('button.seat-name', { onclick: () => info.nickname && showPlayerInfo(this.app, info.nickname), disabled: !info.nickname },
      avatar(name, !!info.bot), h('span.nick', name), active ? null : h('span.red-cross', { 'aria-hidden': 'true' }, '✕')),
    h('div.seat-stats',
      v ? h('span.points', { title: t(this.scoredByRounds ? 'summary.score' : 'table.points') }, this.totalText(v.totals[seat])) : null,
      v ? h('span.count', { title: t('table.cards') }, h('i.card-icon', { 'aria-hidden': 'true' }), String(count)) : null),
    h('div.seat-badges', badges),
    h('div.turn-bar', { dataset: { seat } }));
  }

  renderMelds() {
    const v = this.view;
    const box = this.els.melds;
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
      for (const arrow of [low, high]) arrow.addEventListener('click', () => this.dropOn(this.picked?.code, arrow));
      box.append(h('div.meld', {
        class: meld.kind, dataset: { meld: index, owner }, id: `meld-${index}`,
        'aria-label': t('table.meld_label', { n: index + 1, owner: this.seatName(owner), cards: meld.cards.map(cardShort).join(' ') }),
      }, low, h('div.meld-cards', cards), high, h('span.meld-owner', { style: `--c:${owner}` }, this.seatName(owner))));
    });
  }

  syncHand() {
    const v = this.view;
    const hand = v && v.seat !== null ? v.hand : [];
    if (this.pendingOrder) {
      if (sameCards(this.pendingOrder, hand)) {
        if (this.pendingOrder.join() === hand.join()) this.pendingOrder = null;
        else { this.hand = [...this.pendingOrder]; return; }
      } else {
        this.pendingOrder = null;
      }
    }
    this.hand = [...hand];
  }

  renderHand() {
    const v = this.view;
    const box = this.els.hand;
    const keys = keyed(this.hand, 'h:');
    const segments = handMelds(this.hand, v.rules);
    this.segments = segments;
    const inMeld = new Map();
    segments.forEach((seg, si) => {
      for (let i = seg.from; i < seg.to; i += 1) inMeld.set(i, { si, first: i === seg.from, last: i === seg.to - 1 });
    });
    const focused = document.activeElement && box.contains(document.activeElement) ? document.activeElement.dataset.key : null;
    clear(box);
    this.hand.forEach((code, i) => {
      const m = inMeld.get(i);
      const el = h('button.card.face.hand-card', {
        html: cardSVG(code),
        type: 'button',
        id: `hand-${i}`,
        dataset: { index: i, key: keys[i], card: code },
        class: `${m ? 'in-meld' : ''} ${m?.first ? 'meld-first' : ''} ${m?.last ? 'meld-last' : ''} ${isJoker(code) ? 'joker' : ''}`,
        'aria-label': cardName(code, t) + (m ? `, ${t('table.in_meld')}` : ''),
        'aria-pressed': this.picked?.key === keys[i] ? 'true' : 'false',
      });
      if (this.picked?.key === keys[i]) el.classList.add('picked');
      if (this.hint?.cards?.includes(code)) el.classList.add('hinted');
      box.append(el);
    });
    if (this.picked && !keys.includes(this.picked.key)) this.picked = null;
    this.layoutHand();
    if (focused) box.querySelector(`[data-key="${focused}"]`)?.focus();
  }

  /** Place the cards as a fan; `gap` ({from, to}) previews a drag's landing place. */
  layoutHand(gap = null) {
    const box = this.els.hand;
    const cards = [...box.children];
    const n = cards.length;
    if (!n) return;
    const width = box.clientWidth;
    const cw = cards[0].offsetWidth || 80;
    const mid = (n - 1) / 2;
    const angle = Math.min(2.6, (width < 500 ? 18 : 26) / n);
    // The outermost cards turn about a point below them: leave room for their swing.
    const swing = 1.96 * cw * Math.sin((angle * mid * Math.PI) / 180);
    const step = n > 1 ? Math.max(4, Math.min(cw * 0.62, (width - cw - 2 * swing - 4) / (n - 1))) : 0;
    const total = cw + step * (n - 1);
    const left0 = (width - total) / 2;
    // With a gap, the dragged card is taken out and the others close ranks around `to`.
    const slots = cards.map((_, i) => i);
    if (gap) {
      const order = cards.map((_, i) => i).filter((i) => i !== gap.from);
      order.splice(gap.to, 0, gap.from);
      order.forEach((cardIndex, slot) => { slots[cardIndex] = slot; });
    }
    this.fan = { left0, step, cw, n, rect: box.getBoundingClientRect() };
    box.style.setProperty('--step', `${step}px`);
    cards.forEach((el, i) => {
      const slot = slots[i];
      const off = slot - mid;
      el.style.left = `${left0 + slot * step}px`;
      el.style.zIndex = String(slot + 1);
      el.style.setProperty('--rot', `${off * angle}deg`);
      el.style.setProperty('--lift', `${Math.abs(off) * Math.abs(off) * 0.9 * (cw / 90)}px`);
    });
  }

  insertionIndex(x, y) {
    const f = this.fan;
    if (!f) return null;
    const r = this.els.hand.getBoundingClientRect();
    if (y < r.top - 60 || y > r.bottom + 40 || x < r.left - 40 || x > r.right + 40) return null;
    const i = Math.round((x - r.left - f.left0 - f.cw / 2) / (f.step || 1));
    return Math.max(0, Math.min(f.n - 1, i));
  }

  renderControls() {
    const v = this.view;
    const my = this.myTurn;
    const play = my && v.phase === 'play';
    const knockable = v.seat !== null && v.knock_seats.includes(v.seat) && this.table.timer?.knock?.seats?.includes(v.seat)
      && this.table.timer.knock.deadline > this.app.now();
    this.els.knock.hidden = !knockable;
    this.els.lay.hidden = knockable;
    this.els.knock.textContent = t('table.knock');
    const lay = canLay(this.segments || [], v);
    this.els.lay.disabled = !lay;
    const value = (this.segments || []).reduce((s, g) => s + g.value, 0);
    this.els.lay.replaceChildren(t('table.lay_cards'));
    if (this.segments?.length && v.seat !== null && !v.opened[v.seat]) {
      this.els.lay.append(h('span.lay-value', { class: value >= v.rules.opening_points ? 'enough' : '' }, `${value}/${v.rules.opening_points}`));
    }
    if (play && !lay && !v.opened[v.seat] && this.segments?.length) {
      this.els.lay.title = t('table.opening_needed', { need: v.rules.opening_points, have: value });
    } else {
      this.els.lay.title = '';
    }
    this.els.hintBtn.disabled = !my;
    const inRound = ['draw', 'play'].includes(v.phase);
    this.els.sortSuit.disabled = !inRound || v.seat === null;
    this.els.sortRank.disabled = !inRound || v.seat === null;
    const status = this.els.status;
    clear(status);
    const meInfo = v.seat !== null ? this.table.seats?.[v.seat] : null;
    if (meInfo?.away) {
      status.append(t('table.away_me'), ' ', h('button.small', { id: 'back', onclick: () => this.app.send({ type: 'back', table: this.table.id }) }, t('table.back')));
    } else if (v.seat === null) status.append(t('table.watching'));
    else if (!v.active[v.seat]) {
      status.append(t('table.you_are_out'), ' ', h('button.small', { id: 'status-exit', onclick: () => this.exit() }, t('summary.exit')));
    }
    else if (my) {
      status.append(h('span.exclaim', { 'aria-hidden': 'true' }, '!'),
        v.phase === 'draw' ? t('table.status_draw') : t('table.status_play'));
      if (v.pending_jokers) status.append(' ', t('table.status_joker_pending'));
    } else if (knockable) status.append(t('table.status_knock'));
    else if (inRound) {
      status.append(t('table.status_wait', { name: this.seatName(v.current) }));
      if (this.lastMove) status.append(h('span.last-move', this.lastMoveText()));
    }
    status.classList.toggle('mine', my);
    this.els.me.classList.toggle('my-turn', my);
    // Own label below the fan.
    const seat = v.seat;
    if (seat !== null) {
      this.els.meName.replaceChildren(...[
        my ? h('span.exclaim.big', { title: t('table.your_turn'), 'aria-label': t('table.your_turn') }, '!') : null,
        avatar(this.app.me?.nickname || '?'),
        h('strong', this.app.me?.nickname || ''),
        v.active[seat] ? null : h('span.red-cross', '✕'),
        h('span.points', this.totalText(v.totals[seat])),
        v.opened[seat] ? h('span.badge.opened', t('table.opened')) : null,
        h('div.turn-bar', { dataset: { seat } })].filter(Boolean));
    }
  }

  /** Remember the latest move of another player, told in the status line. It is kept
   * as a key and its values, so that it is told in the language shown at the time. */
  noteMoves(events, table) {
    const me = table.view?.seat ?? null;
    const keys = { discarded: 'move.discarded', laid: 'move.laid', laid_off: 'move.laid_off', joker_exchanged: 'move.exchanged', knocked: 'move.knocked' };
    for (const e of events) {
      if (typeof e.seat !== 'number' || e.seat === me) continue;
      const key = e.type === 'drew' ? (e.source === 'discard' ? 'move.took' : 'move.drew') : keys[e.type];
      if (key) this.lastMove = { key, seat: e.seat, card: e.card, n: e.melds?.length };
    }
    if (events.some((e) => e.type === 'round_started')) this.lastMove = null;
  }

  lastMoveText() {
    const m = this.lastMove;
    const params = { name: this.seatName(m.seat) };
    if (m.card) params.card = cardShort(m.card);
    if (m.n !== undefined) params.n = m.n;
    return t(m.key, params);
  }

  /** The card just drawn glows for a moment, so the eye finds it in the fan. */
  markFresh(events) {
    const drawn = events.filter((e) => (e.type === 'drew' && e.seat === this.view.seat && e.card)
      || (e.type === 'knocked' && e.seat === this.view.seat));
    if (!drawn.length) return;
    const codes = drawn.flatMap((e) => (e.type === 'drew' ? [e.card] : [e.card, ...(e.drawn || [])]));
    const cards = [...this.els.hand.children];
    for (const code of codes) {
      const el = [...cards].reverse().find((c) => c.dataset.card === code && !c.classList.contains('fresh'));
      if (!el) continue;
      el.classList.add('fresh');
      setTimeout(() => el.classList.remove('fresh'), 1800);
    }
  }

  flashTurn() {
    this.els.me.classList.remove('flash');
    void this.els.me.offsetWidth;
    this.els.me.classList.add('flash');
  }

  // ------------------------------------------------------------ waiting room

  renderWaiting() {
    const table = this.table;
    const isHost = table.my_seat === 0 || table.host === this.app.me?.nickname;
    const box = this.els.waiting;
    clear(box);
    const seats = table.seats.map((s) => {
      let content;
      if (s.nickname) content = [avatar(s.nickname), h('strong', s.nickname), s.seat === 0 ? h('span.badge', t('table.host')) : null];
      else if (s.bot) {
        content = [avatar('bot', true), h('strong', t(`bot.${s.bot}`)),
          isHost ? h('button.small', { onclick: () => this.app.send({ type: 'set_seat', table: table.id, seat: s.seat, bot: null }) }, t('table.remove_bot')) : null];
      } else {
        content = [h('span.free', t('lobby.free_seat')),
          isHost ? h('select.small', {
            'aria-label': t('table.add_bot'),
            onchange: (e) => { if (e.target.value) this.app.send({ type: 'set_seat', table: table.id, seat: s.seat, bot: e.target.value }); },
          }, h('option', { value: '' }, t('table.add_bot')), BOT_LEVELS.map((l) => h('option', { value: l }, t(`bot.${l}`)))) : null];
      }
      return h('li.waiting-seat', content);
    });
    const filled = table.seats.every((s) => s.nickname || s.bot);
    box.append(
      h('h2', t('table.waiting_title')),
      h('ul.chips', settingsChips(table.settings).map((c) => h('li', c))),
      h('ul.waiting-seats', seats),
      h('p.muted', filled ? (isHost ? t('table.ready_to_start') : t('table.waiting_for_host')) : t('table.waiting_for_players')),
      h('div.waiting-buttons',
        isHost ? h('button.primary.big', { id: 'start-game', disabled: !filled, onclick: () => this.app.send({ type: 'start_game', table: table.id }) }, t('table.start')) : null,
        isHost && !filled ? h('button', { id: 'start-fill', onclick: () => this.app.send({ type: 'start_game', table: table.id, fill: 'casual' }) }, t('table.start_fill')) : null,
        table.my_seat !== null ? h('button', { onclick: () => this.inviteDialog() }, t('table.invite')) : null,
        h('button.ghost', { onclick: () => this.leave() }, t('table.leave'))));
  }

  // ------------------------------------------------------------ summary

  /** Which round summary the overlay shows, and why: the round just over; the round
   * that put this player out (kept, with Exit, until they leave or watch on); or
   * one the player reopened ("Results"). */
  summaryShown() {
    const v = this.view;
    const results = v.results || [];
    if (!results.length) return null;
    const last = results[results.length - 1];
    if (v.phase === 'round_over' || v.phase === 'game_over') return { result: last, why: 'over' };
    const me = v.seat;
    if (me !== null && !v.active[me] && !this.watchingOn) {
      return { result: results.find((r) => r.eliminated.includes(me)) || last, why: 'out' };
    }
    if (this.reopened) return { result: last, why: 'reopened' };
    return null;
  }

  renderSummary() {
    const v = this.view;
    const overlay = this.els.overlay;
    const shown = this.summaryShown();
    if (!shown) {
      overlay.hidden = true;
      return;
    }
    const { result, why } = shown;
    overlay.hidden = false;
    const me = v.seat;
    const nextRound = this.table.next_round;
    // Drawn again only when it changes: the others' moves must not replace the
    // buttons under the pointer of a player who watches on.
    const content = JSON.stringify([result.round_no, why, v.phase === 'game_over', v.active, v.results.length, nextRound,
      this.nextSent === v.round_no, this.table.game_over?.ratings, this.table.seats, currentLanguage()]);
    if (content === this.summaryContent && overlay.firstChild) { this.renderCountdown(); return; }
    this.summaryContent = content;
    const rows = [];
    const rounds = this.scoredByRounds;
    for (let s = 0; s < v.seats; s += 1) {
      const out = result.eliminated.includes(s) || !v.active[s];
      rows.push(h('tr', { class: `${s === me ? 'me' : ''} ${out ? 'out' : ''} ${result.winner === s ? 'winner' : ''}` },
        h('th', { scope: 'row' }, h('span.name', out ? h('span.red-cross', { title: t('table.eliminated') }, '✕') : null,
          this.seatName(s), result.winner === s ? h('span.badge.win', t('summary.went_out')) : null)),
        h('td', h('div.summary-cards', (result.hands[s] || []).map((c) => h('span.card.face.mini', { html: cardSVG(c), role: 'img', 'aria-label': cardName(c, t) })))),
        h('td.num', { class: 'penalty' }, String(result.penalties[s])),
        h('td.num.total', scoreNumber(result.totals[s], rounds))));
    }
    const gameOver = v.phase === 'game_over';
    const eliminated = me !== null && !v.active[me];
    const buttons = [];
    if (gameOver) {
      buttons.push(h('button.primary.big', { id: 'summary-lobby', onclick: () => this.app.openLobby() }, t('summary.back_to_lobby')));
    } else if (eliminated) {
      // Out of the game: Exit to the lobby, or stay and watch the others play on.
      buttons.push(h('button.primary.big', { id: 'summary-exit', onclick: () => this.exit() }, t('summary.exit')));
      if (why !== 'reopened') buttons.push(h('button.big', { id: 'summary-watch', onclick: () => { this.watchingOn = true; this.render([]); } }, t('summary.watch')));
    } else if (me !== null && why === 'over') {
      const waiting = nextRound?.waiting_for || [];
      const said = this.nextSent === v.round_no || (nextRound && !waiting.includes(me));
      buttons.push(h('button.primary.big', { id: 'summary-next', disabled: said, onclick: () => this.next() }, t('summary.next')));
      if (said && waiting.length) buttons.push(h('p.muted', t('summary.waiting_for', { names: waiting.map((s) => this.seatName(s)).join(', ') })));
    }
    if (why === 'reopened') buttons.push(h('button.big', { id: 'summary-close', onclick: () => { this.reopened = false; this.render([]); } }, t('common.close')));
    const title = gameOver ? this.gameOverTitle() : t('summary.title', { n: result.round_no });
    let sub = '';
    if (result.winner === null && result.ended === 'stall') sub = t('summary.stalled', { n: v.rules.stall_turns });
    else if (result.winner === null) sub = t('summary.no_winner');
    else if (result.hand_rummy) sub = t('summary.hand_rummy', { name: this.seatName(result.winner) });
    else sub = t('summary.winner', { name: this.seatName(result.winner) });
    const ratings = this.table.game_over?.ratings;
    const ratingRow = ratings && me !== null && ratings[String(me)]
      ? h('p.rating-change', t('summary.rating', { before: Math.round(ratings[String(me)].before), after: Math.round(ratings[String(me)].after) }))
      : null;
    overlay.replaceChildren(h('div.summary', { role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'summary-title', id: 'summary' },
      gameOver ? h('div.trophy', { 'aria-hidden': 'true', html: v.winners.includes(me) ? TROPHY : '' }) : null,
      h('h2', { id: 'summary-title' }, title),
      h('p.summary-sub', sub),
      h('table.summary-table',
        h('thead', h('tr', h('th', t('summary.player')), h('th', t('summary.cards_left')), h('th.num', t('summary.penalty')), h('th.num', t(rounds ? 'summary.score' : 'summary.total')))),
        h('tbody', rows)),
      ratingRow,
      v.results.length > 1 || why === 'reopened' ? this.scoreSheet() : null,
      h('details.fair', h('summary', t('summary.fair_play')),
        h('p', t('summary.fair_text')), h('code', `seed ${result.seed}`), h('code', `sha256 ${result.commitment}`)),
      h('p.next-countdown', { id: 'next-countdown', hidden: true }),
      h('div.summary-buttons', buttons)));
    this.renderCountdown();
    const key = `${result.round_no}:${v.phase}:${why}`;
    if (this.summaryFor !== key) {
      this.summaryFor = key;
      overlay.querySelector('.summary-buttons button')?.focus();
    }
  }

  /** Every round so far: each seat's penalty points, and the totals (or scores). */
  scoreSheet() {
    const v = this.view;
    const seats = [...Array(v.seats).keys()];
    const last = v.results[v.results.length - 1];
    const sheet = h('details.sheet', { id: 'score-sheet', open: this.sheetOpen },
      h('summary', t('sheet.title')),
      h('table.summary-table.sheet-table',
        h('thead', h('tr', h('th', t('sheet.round')), seats.map((s) => h('th.num', { scope: 'col' }, this.seatName(s))))),
        h('tbody', v.results.map((r) => h('tr', h('th', { scope: 'row' }, String(r.round_no)),
          seats.map((s) => h('td.num', { class: r.winner === s ? 'winner' : '' }, String(r.penalties[s])))))),
        h('tfoot', h('tr', h('th', { scope: 'row' }, t(this.scoredByRounds ? 'summary.score' : 'summary.total')),
          seats.map((s) => h('td.num.total', scoreNumber(last.totals[s], this.scoredByRounds)))))));
    sheet.addEventListener('toggle', () => { this.sheetOpen = sheet.open; });
    return sheet;
  }

  /** The seconds left before the next deal, under a round summary. */
  renderCountdown() {
    const el = this.root.querySelector('#next-countdown');
    if (!el) return;
    const deadline = this.table?.next_round?.deadline;
    const show = this.view?.phase === 'round_over' && !!deadline;
    el.hidden = !show;
    if (show) el.textContent = t('summary.next_in', { n: Math.max(0, Math.ceil((deadline - this.app.now()) / 1000)) });
  }

  openResults() {
    this.reopened = true;
    this.watchingOn = true;
    this.toggleSide(false);
    this.render([]);
  }

  gameOverTitle() {
    const v = this.view;
    if (v.seat !== null && v.winners.includes(v.seat)) return t('summary.you_won');
    const names = v.winners.map((s) => this.seatName(s)).join(', ');
    return t('summary.game_over', { names });
  }

  next() {
    this.nextSent = this.view.round_no;
    this.app.send({ type: 'next_round', table: this.table.id });
    this.renderSummary();
  }

  exit() {
    this.app.send({ type: 'leave_table', table: this.table.id });
    this.app.tables.delete(this.table.id);
    this.app.openLobby();
  }

  leave() {
    const table = this.table;
    if (!table) { this.app.openLobby(); return; }
    const playing = table.status === 'playing' && this.view && !['game_over'].includes(this.view.phase);
    if (!playing || table.my_seat === null) {
      if (table.my_seat !== null && table.status !== 'finished') this.app.send({ type: 'leave_table', table: table.id });
      this.app.tables.delete(table.id);
      this.app.openLobby();
      return;
    }
    const dlg = dialog(t('table.leave_title'), h('div', h('p', t('table.leave_text')),
      h('div.dialog-buttons', h('button', { onclick: () => dlg.close() }, t('common.cancel')),
        h('button.primary.danger', { id: 'confirm-leave', onclick: () => { dlg.close(); this.exit(); } }, t('table.leave')))));
  }

  // --------------------------------------------------------------- actions

  draw(source) {
    const v = this.view;
    if (this.picked && source === 'discard' && this.discardTargetActive) {
      this.dropOn(this.picked.code, this.els.discard);
      return;
    }
    if (!this.myTurn || v.phase !== 'draw' || this.busy) return;
    if (source === 'discard' && !v.discard_top) return;
    this.clearHint();
    this.send({ type: 'draw', source });
  }

  tapCard(index, how) {
    const v = this.view;
    const code = this.hand[index];
    if (!v || code === undefined || this.busy) return;
    if (!this.myTurn) { this.nudge(index, t('table.not_your_turn')); return; }
    if (v.phase === 'draw') { this.nudge(index, t('table.draw_first')); return; }
    if (isJoker(code)) { this.nudge(index, t(how === 'keyboard' ? 'table.joker_keyboard' : 'table.joker_drag')); return; }
    this.discard(code);
  }

  nudge(index, text) {
    const el = this.els.hand.querySelector(`[data-index="${index}"]`);
    if (el) { el.classList.remove('shake'); void el.offsetWidth; el.classList.add('shake'); }
    toast(text, 'info', 2200);
  }

  discard(code) {
    this.clearHint();
    this.picked = null;
    this.send({ type: 'discard', card: code });
  }

  layCards() {
    const segs = this.segments || [];
    if (!segs.length) return;
    this.clearHint();
    this.send({ type: 'lay', melds: segs.map((s) => this.hand.slice(s.from, s.to)) });
  }

  knock() { this.send({ type: 'knock' }); }

  reorder(from, to) {
    if (from === to) { this.layoutHand(); return; }
    const order = [...this.hand];
    const [card] = order.splice(from, 1);
    order.splice(to, 0, card);
    this.setOrder(order);
  }

  setOrder(order) {
    const before = this.captureRects();
    this.hand = order;
    this.pendingOrder = [...order];
    this.renderHand();
    this.renderControls();
    this.animate(before, []);
    this.send({ type: 'arrange', cards: order });
  }

  sortHand(how) {
    if (!this.view) return;
    this.setOrder(how === 'suit' ? sortBySuit(this.hand) : sortByRank(this.hand));
  }

  /** Show where `code` may go: the discard pile, meld ends (blue arrows), jokers. */
  showTargets(code, on) {
    const v = this.view;
    for (const el of this.root.querySelectorAll('[data-drop]')) { el.removeAttribute('data-drop'); el.classList.remove('target', 'drop-over'); }
    for (const el of this.root.querySelectorAll('.meld-arrow')) el.hidden = true;
    this.discardTargetActive = false;
    if (!on || !code || !v) { if (v) this.renderPiles(); return; }
    const play = this.myTurn && v.phase === 'play';
    if (!play) return;
    this.discardTargetActive = true;
    const discard = this.els.discard;
    discard.dataset.drop = 'discard';
    discard.disabled = false;
    discard.classList.add('target');
    const targets = targetsFor(code, v);
    for (const { meld, end } of targets.ends) {
      const box = this.els.melds.querySelector(`#meld-${meld}`);
      if (!box) continue;
      box.dataset.drop = 'meld';
      box.classList.add('target');
      const arrow = box.querySelector(end === 'low' ? '.meld-arrow.low' : '.meld-arrow.high');
      arrow.hidden = false;
      arrow.dataset.drop = 'end';
    }
    for (const { meld, index } of targets.jokers) {
      const card = this.els.melds.querySelector(`#meld-${meld} [data-pos="${index}"]`);
      if (!card) continue;
      // The whole meld takes the card too (the joker alone is a narrow strip on a phone).
      const box = this.els.melds.querySelector(`#meld-${meld}`);
      box.dataset.drop = 'meld';
      box.classList.add('target');
      card.dataset.drop = 'joker';
      card.classList.add('target');
      card.tabIndex = 0;
      card.setAttribute('role', 'button');
      card.setAttribute('aria-label', t('table.exchange_label', { card: cardName(code, t) }));
      card.onkeydown = (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); this.dropOn(code, card); } };
      card.onclick = () => { if (this.picked) this.dropOn(code, card); };
    }
  }

  /** Play `code` onto a drop target, given by its data attributes (or the element). */
  dropOn(code, target) {
    const v = this.view;
    if (!code || !target || !v) return;
    const data = target instanceof HTMLElement ? { ...target.dataset } : target;
    const kind = data.drop;
    this.picked = null;
    this.showTargets(null, false);
    if (kind === 'discard') { this.discard(code); return; }
    if (kind === 'end') {
      const meld = Number(data.meld);
      const end = data.end === 'group' ? null : data.end;
      this.send({ type: 'lay_off', card: code, meld, end });
    } else if (kind === 'meld') {
      // Dropped on a meld's body: exchange a joker if the card replaces one,
      // else lay it off (at the end that fits; the arrows choose explicitly).
      const meld = Number(data.meld);
      const jokers = v.opened[v.seat] ? exchangePositions(v.melds[meld], code) : [];
      if (jokers.length) {
        this.send({ type: 'exchange_joker', card: code, meld, index: jokers[0] });
      } else {
        const ends = layOffEnds(v.melds[meld], code, v.rules);
        this.send({ type: 'lay_off', card: code, meld, end: ends[0] ?? null });
      }
    } else if (kind === 'joker') {
      const meld = Number(data.meld);
      const index = Number(data.pos);
      if (!exchangePositions(v.melds[meld], code).includes(index)) return;
      this.send({ type: 'exchange_joker', card: code, meld, index });
    }
    this.clearHint();
    this.renderHand();
  }

  onError() {
    this.busy = false;
    // The server refused: show the table as it is (the toast says why).
    if (this.table?.view) this.render([]);
  }

  // ------------------------------------------------------------- keyboard

  handKey(e) {
    const el = e.target.closest('[data-index]');
    if (!el) return;
    const i = Number(el.dataset.index);
    const focus = (j) => this.els.hand.querySelector(`[data-index="${Math.max(0, Math.min(this.hand.length - 1, j))}"]`)?.focus();
    if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
      e.preventDefault();
      const d = e.key === 'ArrowLeft' ? -1 : 1;
      if (e.shiftKey || e.altKey) {
        const to = i + d;
        if (to < 0 || to >= this.hand.length) return;
        this.reorder(i, to);
        focus(to);
      } else focus(i + d);
    } else if (e.key === 'Home') { e.preventDefault(); focus(0); }
    else if (e.key === 'End') { e.preventDefault(); focus(this.hand.length - 1); }
    else if (e.key === ' ') {
      e.preventDefault();
      this.pick(i);
    } else if (e.key === 'Escape' && this.picked) {
      this.picked = null;
      this.showTargets(null, false);
      this.renderHand();
    }
  }

  pick(i) {
    const key = this.els.hand.querySelector(`[data-index="${i}"]`)?.dataset.key;
    if (this.picked?.key === key) {
      this.picked = null;
      this.showTargets(null, false);
    } else {
      this.picked = { key, code: this.hand[i] };
      this.showTargets(this.hand[i], true);
      toast(t('table.picked', { card: cardName(this.hand[i], t) }), 'info', 2500);
    }
    for (const el of this.els.hand.children) {
      el.classList.toggle('picked', el.dataset.key === this.picked?.key);
      el.setAttribute('aria-pressed', String(el.dataset.key === this.picked?.key));
    }
  }

  globalKey(e) {
    if (e.target.closest('input, textarea, select') || e.ctrlKey || e.metaKey || e.altKey) return;
    if (document.querySelector('.backdrop')) return;
    const k = e.key.toLowerCase();
    if (k === 's' && !e.shiftKey) { this.draw('stock'); } else if (k === 'd') { this.draw('discard'); } else if (k === 'l' && !this.els.lay.disabled && !this.els.lay.hidden) { this.layCards(); } else if (k === 'k' && !this.els.knock.hidden) { this.knock(); } else if (k === 'h') { this.askHint(); } else if (k === '?') { this.keysDialog(); } else return;
    e.preventDefault();
  }

  keysDialog() {
    const rows = ['keys.draw', 'keys.take_discard', 'keys.move_focus', 'keys.move_card', 'keys.discard', 'keys.pick', 'keys.lay', 'keys.knock', 'keys.hint'];
    const dlg = dialog(t('keys.title'), h('div', h('ul.keys', rows.map((r) => h('li', t(r)))),
      h('div.dialog-buttons', h('button', { onclick: () => dlg.close() }, t('common.close')))));
  }

  // ---------------------------------------------------------------- hint

  askHint() {
    if (!this.myTurn) return;
    this.app.send({ type: 'hint', table: this.table.id });
  }

  showHint(msg) {
    const a = msg.action;
    if (!a) { toast(t('hint.none')); return; }
    let text;
    let cards = [];
    this.clearHint();
    switch (a.type) {
      case 'draw':
        text = t(a.source === 'discard' ? 'hint.draw_discard' : 'hint.draw_stock');
        (a.source === 'discard' ? this.els.discard : this.els.stock).classList.add('hinted');
        break;
      case 'lay': {
        cards = a.melds.flat();
        text = t('hint.lay', { melds: a.melds.map((m) => m.map(cardShort).join(' ')).join(' · ') });
        // Show it in the hand: the melds side by side (blue lines), "Lay cards" ready.
        const rest = [...this.hand];
        for (const c of cards) {
          const i = rest.indexOf(c);
          if (i >= 0) rest.splice(i, 1);
        }
        if (rest.length + cards.length === this.hand.length) this.setOrder([...cards, ...rest]);
        break;
      }
      case 'lay_off':
        cards = [a.card];
        text = t('hint.lay_off', { card: cardShort(a.card), n: a.meld + 1 });
        this.els.melds.querySelector(`#meld-${a.meld}`)?.classList.add('hinted');
        break;
      case 'exchange_joker':
        cards = [a.card];
        text = t('hint.exchange', { card: cardShort(a.card), n: a.meld + 1 });
        this.els.melds.querySelector(`#meld-${a.meld}`)?.classList.add('hinted');
        break;
      case 'discard':
        cards = [a.card];
        text = t('hint.discard', { card: cardShort(a.card) });
        break;
      case 'knock':
        text = t('hint.knock');
        break;
      default:
        text = t('hint.none');
    }
    this.hint = { cards };
    for (const el of this.els.hand.children) if (cards.includes(el.dataset.card)) el.classList.add('hinted');
    toast(text, 'hint', 5000);
    clearTimeout(this.hintTimer);
    this.hintTimer = setTimeout(() => this.clearHint(), 6000);
  }

  clearHint() {
    this.hint = null;
    for (const el of this.root.querySelectorAll('.hinted')) el.classList.remove('hinted');
  }

  // -------------------------------------------------------------- dialogs

  playerInfoDialog() {
    const table = this.table;
    const people = table.seats.filter((s) => s.nickname);
    const dlg = dialog(t('table.player_info'), h('div',
      h('ul.pick-list', people.map((s) => h('li', h('button.player-link', { onclick: () => { dlg.close(); showPlayerInfo(this.app, s.nickname); } },
        avatar(s.nickname), h('span', s.nickname))))),
      h('div.dialog-buttons', h('button', { onclick: () => dlg.close() }, t('common.close')))));
  }

  inviteDialog() {
    const table = this.table;
    const input = h('input', { id: 'invite-nick', placeholder: t('invite.nickname'), 'aria-label': t('invite.nickname'), maxlength: 20 });
    const invite = (nickname) => {
      if (!nickname) return;
      this.app.send({ type: 'invite', table: table.id, nickname });
      toast(t('invite.sent_toast', { name: nickname }));
    };
    // The lists follow the lobby while the dialog is open.
    const lists = h('div.invite-lists');
    const fill = () => {
      const seated = new Set((this.table?.seats || []).map((s) => s.nickname).filter(Boolean));
      const online = this.app.lobby.players.filter((p) => !seated.has(p.nickname));
      const sent = this.app.lobby.invitations.filter((i) => i.table === table.id);
      lists.replaceChildren(...[
        h('h3', t('lobby.players_online')),
        online.length ? h('ul.pick-list', online.map((p) => h('li', avatar(p.nickname), h('span', p.nickname),
          h('button.small', { dataset: { invite: p.nickname }, onclick: () => invite(p.nickname) }, t('invite.invite'))))) : h('p.muted', t('lobby.nobody_online')),
        sent.length ? h('h3', t('invite.sent')) : null,
        sent.length ? h('ul.invite-list', sent.map((i) => h('li', h('span', i.to), h('span.badge', t(`invite.status_${i.status}`))))) : null,
      ].filter(Boolean));
    };
    fill();
    this.refreshInvite = fill;
    const dlg = dialog(t('table.invite'), h('div.invite-dialog',
      table.free_seats === 0 || table.status !== 'waiting' ? h('p.muted', t('invite.table_full')) : null,
      h('form.inline-form', { onsubmit: (e) => { e.preventDefault(); invite(input.value.trim()); input.value = ''; } },
        input, h('button.primary', { type: 'submit', id: 'invite-send' }, t('invite.send'))),
      lists,
      h('div.dialog-buttons', h('button', { onclick: () => dlg.close() }, t('common.close')))),
    { onClose: () => { this.refreshInvite = null; } });
  }

  // ------------------------------------------------------------ animation

  /** A card flying from a pile to the opponent who drew it (face down from the stock). */
  flyToOpponents(events) {
    for (const e of events) {
      if (e.type !== 'drew' || e.seat === this.view?.seat) continue;
      const pile = e.source === 'discard' ? this.els.discard : this.els.stock;
      const seat = this.root.querySelector(`#seat-${e.seat} .mini-fan`) || this.root.querySelector(`#seat-${e.seat}`);
      if (!seat) continue;
      const from = pile.getBoundingClientRect();
      const to = seat.getBoundingClientRect();
      const fly = h('span.card.flying', { html: cardSVG(e.source === 'discard' ? e.card : null), 'aria-hidden': 'true' });
      Object.assign(fly.style, { left: `${from.left}px`, top: `${from.top}px`, width: `${from.width}px` });
      document.body.append(fly);
      const dx = to.left + to.width / 2 - (from.left + from.width / 2);
      const dy = to.top + to.height / 2 - (from.top + from.height / 2);
      fly.animate([
        { translate: '0 0', scale: '1', opacity: 1 },
        { translate: `${dx}px ${dy}px`, scale: '0.55', opacity: 0.3 },
      ], { duration: 420, easing: 'cubic-bezier(.3,.6,.3,1)' }).onfinish = () => fly.remove();
    }
  }

  captureRects() {
    const map = new Map();
    for (const el of this.root.querySelectorAll('[data-key]')) {
      map.set(el.dataset.key, { rect: el.getBoundingClientRect(), code: el.dataset.card });
    }
    return map;
  }

  animate(before, events) {
    if (!before.size || window.matchMedia('(prefers-reduced-motion: reduce)').matches) return;
    this.flyToOpponents(events);
    const after = [...this.root.querySelectorAll('[data-key]')];
    const keys = new Set(after.map((el) => el.dataset.key));
    const vanished = [];
    for (const [key, info] of before) if (!keys.has(key) && info.code) vanished.push({ ...info, used: false });
    const dealt = events.some((e) => e.type === 'round_started');
    const actor = [...events].reverse().find((e) => typeof e.seat === 'number' && e.type !== 'turn_started')?.seat;
    let dealIndex = 0;
    for (const el of after) {
      if (el.closest('.drag-ghost')) continue;
      const key = el.dataset.key;
      let from = before.get(key)?.rect;
      let delay = 0;
      if (!from) {
        const match = vanished.find((x) => !x.used && x.code === el.dataset.card);
        if (match) { match.used = true; from = match.rect; }
        else if (key.startsWith('h:')) {
          from = this.els.stock.getBoundingClientRect();
          if (dealt) delay = 40 * dealIndex++;
        } else if (actor !== undefined && actor !== this.view?.seat) {
          from = this.root.querySelector(`#seat-${actor}`)?.getBoundingClientRect();
        }
        if (!from) { el.animate([{ opacity: 0 }, { opacity: 1 }], { duration: 200 }); continue; }
      }
      const to = el.getBoundingClientRect();
      const dx = from.left - to.left;
      const dy = from.top - to.top;
      if (Math.abs(dx) < 1 && Math.abs(dy) < 1 && Math.abs(from.width - to.width) < 1) continue;
      const s = to.width ? from.width / to.width : 1;
      el.animate([
        { translate: `${dx}px ${dy}px`, scale: `${s}` },
        { translate: '0 0', scale: '1' },
      ], { duration: FLIP_MS, delay, easing: 'cubic-bezier(.2,.75,.25,1)', fill: 'backwards' });
    }
  }
}
