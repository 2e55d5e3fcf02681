// @ts-check
// The lobby: "Play now", quick seat by stake, the live table list with its
// filters, the running games to watch, "New game", the player at a glance, the
// best players, invitations, players online, chat.

import { t, translateDom } from './i18n.js';
import { moderationLink } from './moderation.js';
import { avatar, clear, dialog, h, languagePicker, toast } from './ui.js';
import { friendsPanel, renderFriends, socialButtons } from './friends.js';
import { helpButton } from './help.js';
import { levelBadge } from './levels.js';
import { chipBalance, potText, stakeField } from './chips.js';
import { DEFAULT_BOT_LEVEL, chatForm, limitChat, renderChatLog, settingsChips, showPlayerInfo } from './widgets.js';
import { filterBar, passes, savedFilters } from './lobby/filters.js';
import { glancePanel, topPlayersPanel } from './lobby/glance.js';
import { renderLive } from './lobby/live.js';
import { quickSeatPanel } from './lobby/quickseat.js';
import { drawnAlready, keyedList } from './keyed.js';
import { DEFAULT_TURN_SECONDS, playNow } from './lobby/playnow.js';
import { settingsButton } from './settings.js';
import { botName } from './botname.js';

/** The rankings link's icon on narrow screens (a trophy). */
const TROPHY = '<svg viewBox="0 0 24 24" width="20" height="20" fill="currentColor"><path d="M7 3h10v2h3v4a4 4 0 0 1-4 4h-.4A5 5 0 0 1 13 15.9V18h3v3H8v-3h3v-2.1A5 5 0 0 1 8.4 13H8a4 4 0 0 1-4-4V5h3V3zM6 7v2a2 2 0 0 0 1.2 1.8A5 5 0 0 1 7 9.5V7H6zm11 0v2.5c0 .4 0 .9-.2 1.3A2 2 0 0 0 18 9V7h-1z"/></svg>';

/** The turn times the new-game dialog offers, in seconds. */
export const TURN_TIMES = [15, 20, 30, 45, 60, 90, 120];

/** @import { App, Invitation, Settings } from './types.js' */

/**
 * Whether the player may take a seat at a table of the list.
 * @param {import('./types.js').TableSummary} table
 * @param {boolean} seated the player sits at it
 * @param {boolean} invited the player holds an open invitation to it
 */
function mayJoin(table, seated, invited) {
  return !seated && table.status === 'waiting' && table.free_seats > 0 && (table.settings.access !== 'invite' || invited);
}

export class LobbyScreen {
  /**
   * @param {App} app
   * @param {HTMLElement} root
   */
  constructor(app, root) {
    this.app = app;
    this.root = root;
    // The parts that change; build() places them (again after a change of language).
    this.tablesEl = h('div.table-list', { id: 'table-list', 'aria-live': 'polite' });
    this.playersEl = h('ul.player-list', { id: 'player-list' });
    this.invitesEl = h('div.invitations', { id: 'invitations' });
    this.chatLog = h('ol.chat-log', { id: 'lobby-chat-log', 'aria-live': 'polite' });
    this.meEl = h('span.me');
    this.liveEl = h('div.live', { id: 'live-games' });
    this.filters = savedFilters();
    this.quickSeat = quickSeatPanel((table) => this.join(table.id));
    this.build();
  }

  destroy() { clear(this.root); }

  build() {
    const app = this.app;
    const chat = chatForm('lobby-chat-input', (text) => { app.send({ type: 'lobby_chat', text }); });
    const header = h('header.topbar',
      h('div.brand', h('img.brand-icon', { src: 'img/favicon.svg', alt: '', width: 28, height: 28 }), h('span', { 'data-i18n': 'app.name' })),
      chipBalance(app),
      h('div.topbar-right', h('a.top-link', { href: '#/rankings/rating', id: 'rankings-link', 'data-i18n-label': 'rankings.title' },
        h('span.top-icon', { 'aria-hidden': 'true', html: TROPHY }), h('span.top-label', { 'data-i18n': 'rankings.title' })),
        h('a.me-link', { href: '#/account', id: 'account-link', 'data-i18n-title': 'account.open' }, this.meEl), moderationLink(), languagePicker(), settingsButton(), helpButton('help-link'),
        h('button.ghost', { id: 'logout', onclick: () => app.logout(), 'data-i18n': 'lobby.logout' })));

    const newGame = h('button.big', { id: 'new-game', onclick: () => app.welcomed.then(() => this.newGameDialog()), 'data-i18n': 'lobby.new_game' });
    const play = h('button.primary.big', { id: 'play-now', onclick: () => playNow(app, this.filters).catch((err) => app.showError(err)), 'data-i18n': 'lobby.play_now' });
    const filters = filterBar(this.filters, (chosen) => { this.filters = chosen; this.renderTables(); });
    this.root.replaceChildren(h('div.lobby',
      header,
      h('div.lobby-grid',
        h('section.panel.tables-panel', { 'aria-labelledby': 'tables-h' },
          h('div.panel-head', h('h2', { id: 'tables-h', 'data-i18n': 'lobby.tables' }), h('div.panel-head-buttons', play, newGame)),
          filters,
          this.quickSeat.element,
          this.tablesEl,
          h('p.my-games-row', h('button.link', { id: 'my-games', type: 'button', 'data-i18n': 'replay.my_games',
            onclick: () => { if (app.me) location.hash = `#/history/${encodeURIComponent(app.me.nickname)}`; } }))),
        h('section.panel.live-panel', { 'aria-labelledby': 'live-h' },
          h('h2', { id: 'live-h', 'data-i18n': 'lobby.live' }), this.liveEl),
        glancePanel(app, (player) => {
          if (!app.me || app.me.nickname !== player.nickname) return;
          app.me = { ...app.me, ...player };
          this.renderMe();
          this.renderPlayers();
        }),
        topPlayersPanel(app),
        h('section.panel.invites-panel', { 'aria-labelledby': 'inv-h' },
          h('h2', { id: 'inv-h', 'data-i18n': 'lobby.invitations' }), this.invitesEl),
        friendsPanel(),
        h('section.panel.players-panel', { 'aria-labelledby': 'players-h' },
          h('h2', { id: 'players-h', 'data-i18n': 'lobby.players_online' }), this.playersEl),
        h('section.panel.chat-panel', { 'aria-labelledby': 'chat-h' },
          h('h2', { id: 'chat-h', 'data-i18n': 'lobby.chat' }), this.chatLog, chat))));
    translateDom(this.root);
    limitChat(this.root, app.chatMax);
  }

  /** @param {string} what what changed: all, tables, chat, invitations, language */
  update(what) {
    if (what === 'language') { this.build(); what = 'all'; }
    if (what === 'all' || what === 'tables') { this.renderTables(); this.renderPlayers(); this.renderMe(); }
    if (what === 'all' || what === 'chat') this.renderChat();
    if (what === 'all' || what === 'invitations' || what === 'tables') this.renderInvitations();
    if (what === 'all' || what === 'friends') renderFriends(this.app, this.root, (name) => this.showInfo(name));
    if (what === 'friends' && this.filters.friends) this.renderTables(); // who counts as a friend changed
    if (!performance.getEntriesByName('romme-lobby').length) performance.mark('romme-lobby');
  }

  renderMe() {
    const me = this.app.me;
    if (!me) return;
    const parts = [avatar(me.nickname), h('span', { id: 'me-name' }, me.nickname), levelBadge(me.level),
      me.guest ? h('span.badge', t('info.guest')) : h('span.badge', { id: 'me-rating' }, `★ ${Math.round(me.rating)}`)];
    this.meEl.replaceChildren(...parts.filter((part) => part !== null));
    const logout = this.root.querySelector('#logout');
    if (logout instanceof HTMLElement) logout.title = me.guest ? t('lobby.logout_guest') : '';
  }

  myTables() {
    return [...this.app.tables.values()].filter((x) => x.my_seat !== null && x.my_seat !== undefined && x.status !== 'finished');
  }

  renderTables() {
    const app = this.app;
    const tables = [...app.lobby.tables].sort((a, b) => (a.status === 'waiting' ? 0 : 1) - (b.status === 'waiting' ? 0 : 1) || b.id - a.id);
    const mine = new Set(this.myTables().map((x) => x.id));
    /** @param {import('./types.js').TableSummary} table */
    const seatedAt = (table) => mine.has(table.id) || table.seats.some((s) => s.nickname === app.me?.nickname);
    const friends = new Set(app.friends.friends.map((f) => f.nickname));
    // A running game the player does not sit at is one to watch: the list below.
    const running = tables.filter((x) => x.status === 'playing' && !seatedAt(x));
    renderLive(app, this.liveEl, running.filter((x) => passes(x, { ...this.filters, free: false }, friends)));
    const listed = tables.filter((x) => !running.includes(x));
    const shown = listed.filter((x) => seatedAt(x) || passes(x, this.filters, friends));
    const me = app.me?.nickname;
    /** @param {import('./types.js').TableSummary} table */
    const invited = (table) => app.lobby.invitations.some((i) => i.table === table.id && i.to === me && i.status === 'open');
    this.quickSeat.render(shown.filter((x) => mayJoin(x, seatedAt(x), invited(x))));
    if (!shown.length) {
      this.tablesEl.replaceChildren(h('p.empty', { id: 'tables-empty' }, t(listed.length ? 'lobby.no_match' : 'lobby.no_tables')));
      return;
    }
    keyedList(this.tablesEl, shown, (table) => String(table.id),
      (table) => JSON.stringify([table, seatedAt(table), invited(table), me, document.documentElement.lang]),
      (table) => this.tableCard(table, seatedAt(table), invited(table)));
  }

  /**
   * One waiting or own table in the list, with the buttons the player may use.
   * @param {import('./types.js').TableSummary} table
   * @param {boolean} seated the player sits at it
   * @param {boolean} invited the player holds an open invitation to it
   */
  tableCard(table, seated, invited) {
    const app = this.app;
    const canJoin = mayJoin(table, seated, invited);
    const seats = table.seats.map((s) => h('li.seat-chip', { class: s.nickname || s.bot ? '' : 'free' },
      s.bot ? [avatar(s.bot, true), botName(s.bot)]
        : s.nickname ? [avatar(s.nickname), s.nickname, levelBadge(s.level)] : t('lobby.free_seat')));
    const actions = [];
    if (seated) actions.push(h('button.primary', { onclick: () => app.openTable(table.id) }, t('lobby.open_table')));
    if (canJoin) {
      actions.push(h('button.primary', { 'data-join': table.id, onclick: () => this.join(table.id) }, t('lobby.join')));
    }
    return h('article.table-card', { dataset: { table: table.id } },
      h('div.table-card-head',
        h('strong', t('lobby.table_of', { host: table.host })),
        h('span.table-status', { class: `status-${table.status}` }, t(`status.${table.status}`)),
        h('span.free', t('lobby.free_seats', { n: table.free_seats }))),
      h('ul.chips', settingsChips(table.settings).map((c) => h('li', c))),
      h('p.pot', { hidden: !potText(table) }, potText(table) ?? ''),
      h('ul.seats', seats),
      h('div.table-card-actions', actions));
  }

  /**
   * Take a seat at a waiting table and go there: the list's "Join", the quick seat's "Sit down".
   * @param {number} id
   */
  join(id) {
    const app = this.app;
    app.request({ type: 'join_table', table: id })
      .then((res) => { if (res.table) { app.tables.set(res.table.id, res.table); } app.openTable(id); })
      .catch((err) => app.showError(err));
  }

  renderPlayers() {
    const app = this.app;
    const me = app.me;
    if (drawnAlready(this.playersEl, JSON.stringify([app.lobby.players, document.documentElement.lang, me?.level, me?.rating]))) return;
    clear(this.playersEl);
    // The player's own row with the newest figures the page has of them (the list's
    // are those of when they came online).
    const players = app.lobby.players.map((p) => (me && p.nickname === me.nickname ? { ...p, level: me.level, rating: me.rating } : p));
    for (const p of players) {
      this.playersEl.append(h('li', h('button.player-link', {
        onclick: () => this.showInfo(p.nickname),
        title: t('info.show', { name: p.nickname }),
      }, avatar(p.nickname), h('span', p.nickname), levelBadge(p.level), p.guest ? null : h('span.rating', `★ ${Math.round(p.rating)}`))));
    }
    if (!app.lobby.players.length) this.playersEl.append(h('li.empty', t('lobby.nobody_online')));
  }

  /**
   * A player's info, with invite, friend and block buttons under it.
   * @param {string} nickname
   */
  showInfo(nickname) {
    showPlayerInfo(this.app, nickname, (dlg, info) => h('div.info-actions',
      [this.inviteExtra(nickname, dlg), socialButtons(this.app, nickname, dlg, info)].filter((x) => x !== null)));
  }

  /**
   * Under a player's info: invite them to the player's waiting table.
   * @param {string} nickname
   * @param {{close: () => void}} dlg
   */
  inviteExtra(nickname, dlg) {
    const app = this.app;
    if (nickname === app.me?.nickname) return null;
    const table = this.myTables().find((x) => x.status === 'waiting');
    if (!table) return null;
    return h('button.primary', {
      onclick: () => {
        app.send({ type: 'invite', table: table.id, nickname });
        toast(t('invite.sent_toast', { name: nickname }));
        dlg.close();
      },
    }, t('invite.invite_to_table'));
  }

  renderInvitations() {
    const app = this.app;
    const me = app.me?.nickname;
    const now = app.now();
    const received = app.lobby.invitations.filter((i) => i.to === me && i.status === 'open' && (!i.expires_at || i.expires_at > now));
    const sent = app.lobby.invitations.filter((i) => i.from === me).slice(-8).reverse();
    if (drawnAlready(this.invitesEl, JSON.stringify([received, sent, document.documentElement.lang]))) return;
    clear(this.invitesEl);
    if (!received.length && !sent.length) {
      this.invitesEl.append(h('p.empty', t('invite.none')));
      return;
    }
    if (received.length) {
      this.invitesEl.append(h('h3', t('invite.received')), h('ul.invite-list', received.map((inv) => h('li.invite', { dataset: { invitation: inv.id } },
        h('span', t('invite.from_text', { from: inv.from, table: inv.table })),
        h('span.invite-buttons',
          h('button.primary', { 'data-accept': inv.id, onclick: () => this.answer(inv, true) }, t('invite.accept')),
          h('button', { 'data-decline': inv.id, onclick: () => this.answer(inv, false) }, t('invite.decline')))))));
    }
    if (sent.length) {
      this.invitesEl.append(h('h3', t('invite.sent')), h('ul.invite-list', sent.map((inv) => h('li.invite',
        h('span', t('invite.to_text', { to: inv.to, table: inv.table })),
        h('span.badge', { class: inv.status }, t(`invite.status_${inv.status}`))))));
    }
  }

  /**
   * @param {Invitation} inv
   * @param {boolean} accept
   */
  answer(inv, accept) {
    const app = this.app;
    if (!accept) {
      // A decline is answered with an invitation_update only.
      app.send({ type: 'answer_invitation', invitation: inv.id, accept: false });
      inv.status = 'declined';
      this.renderInvitations();
      return;
    }
    app.request({ type: 'answer_invitation', invitation: inv.id, accept: true })
      .then((res) => {
        if (res.table) app.tables.set(res.table.id, res.table);
        app.openTable(inv.table);
      })
      .catch((err) => app.showError(err));
  }

  renderChat() {
    renderChatLog(this.chatLog, this.app.lobby.chat);
  }

  newGameDialog() {
    const app = this.app;
    const form = h('form.new-game', { id: 'new-game-form' });
    /** @type {(name: string, value: string, label: string, checked: boolean) => HTMLLabelElement} */
    const radio = (name, value, label, checked) => h('label.radio', h('input', { type: 'radio', name, value, checked }), h('span', label));
    const presetField = h('fieldset', h('legend', t('newgame.preset')),
      radio('preset', 'classic', t('settings.preset_classic'), true),
      radio('preset', 'three-rounds', t('settings.preset_three_rounds'), false),
      h('p.field-help', { id: 'preset-help' }, t('newgame.preset_help_classic')));
    const accessField = h('fieldset', h('legend', t('newgame.who')),
      radio('access', 'open', t('newgame.access_open'), true),
      radio('access', 'invite', t('newgame.access_invite'), false));
    const opponents = h('select', { name: 'opponents', id: 'ng-opponents' }, [1, 2, 3].map((n) => h('option', { value: n }, String(n))));
    const seatList = h('div.seat-config', { id: 'ng-seats' });
    /** @type {HTMLSelectElement[]} */
    const seatChoices = [];
    const renderSeats = () => {
      const n = Number(opponents.value);
      while (seatChoices.length < n) {
        seatChoices.push(h('select', { name: `seat${seatChoices.length + 1}`, id: `ng-seat-${seatChoices.length + 1}` },
          h('option', { value: 'human' }, t('newgame.human')),
          app.botLevels.map((lvl) => h('option', { value: lvl, selected: lvl === DEFAULT_BOT_LEVEL }, t('newgame.computer', { level: botName(lvl) })))));
      }
      clear(seatList);
      seatChoices.slice(0, n).forEach((sel, i) => seatList.append(h('label.field.inline', h('span', t('newgame.opponent_n', { n: i + 1 })), sel)));
      knockRow.hidden = isThree() || n < 2;
    };
    opponents.addEventListener('change', renderSeats);
    const oppField = h('fieldset', h('legend', t('newgame.opponents')),
      h('label.field.inline', h('span', t('newgame.count')), opponents), seatList,
      h('p.field-help', t('newgame.levels_help')));
    const customLimit = h('input', { type: 'number', name: 'custom_limit', id: 'ng-custom-limit', min: 1, max: 100000, value: 200, 'aria-label': t('newgame.custom_limit') });
    const limitField = h('fieldset', { id: 'ng-limit' }, h('legend', t('newgame.point_limit')),
      radio('limit', '1', t('newgame.limit_1'), true), radio('limit', '50', '50', false), radio('limit', '100', '100', false),
      h('label.radio', h('input', { type: 'radio', name: 'limit', value: 'custom' }), h('span', t('newgame.custom')), customLimit));
    const handRummy = h('input', { type: 'checkbox', name: 'hand_rummy', checked: true, id: 'ng-hand-rummy' });
    const knock = h('input', { type: 'checkbox', name: 'knock', id: 'ng-knock' });
    const knockRow = h('label.check', knock, h('span', t('newgame.knock')), h('small', t('newgame.knock_help')));
    const optionsField = h('fieldset', { id: 'ng-options' }, h('legend', t('newgame.options')),
      h('label.check', handRummy, h('span', t('newgame.hand_rummy')), h('small', t('newgame.hand_rummy_help'))),
      knockRow);
    const turn = h('select', { name: 'turn_seconds', id: 'ng-turn' }, TURN_TIMES.map((s) => h('option', { value: s, selected: s === DEFAULT_TURN_SECONDS }, t('settings.seconds_n', { n: s }))));
    const timeField = h('fieldset', h('legend', t('newgame.turn_time')), turn);
    const stake = stakeField();
    const error = h('p.form-error', { role: 'alert' });
    /** @param {string} name a radio group's name */
    const choice = (name) => /** @type {RadioNodeList} */ (form.elements.namedItem(name)).value;
    const isThree = () => choice('preset') === 'three-rounds';
    const syncPreset = () => {
      limitField.hidden = isThree();
      optionsField.hidden = isThree();
      /** @type {HTMLElement} */ (form.querySelector('#preset-help')).textContent = t(isThree() ? 'newgame.preset_help_three' : 'newgame.preset_help_classic');
      if (isThree() && Number(opponents.value) < 3) { opponents.value = '3'; }
      renderSeats();
    };
    form.append(presetField, accessField, oppField, limitField, optionsField, timeField, stake.field, error,
      h('div.dialog-buttons',
        h('button', { type: 'button', onclick: () => dlg.close() }, t('common.cancel')),
        h('button.primary', { type: 'submit', id: 'ng-create' }, t('newgame.create'))));
    form.addEventListener('change', (e) => { if (e.target instanceof HTMLInputElement && e.target.name === 'preset') syncPreset(); });
    // Typing a number or clicking into the field chooses "Other"; focus alone (Tab) changes nothing.
    const chooseCustom = () => { /** @type {HTMLInputElement} */ (form.querySelector('input[name=limit][value=custom]')).checked = true; };
    customLimit.addEventListener('input', chooseCustom);
    customLimit.addEventListener('pointerdown', chooseCustom);
    renderSeats();
    const dlg = dialog(t('lobby.new_game'), form, { className: 'new-game-dialog' });
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const n = Number(opponents.value);
      /** @type {Record<string, string>} */
      const bots = {};
      seatChoices.slice(0, n).forEach((sel, i) => { if (sel.value !== 'human') bots[String(i + 1)] = sel.value; });
      /** @type {Settings} */
      const settings = {
        preset: choice('preset') === 'three-rounds' ? 'three-rounds' : 'classic',
        access: choice('access') === 'invite' ? 'invite' : 'open',
        seats: n + 1,
        bots,
        turn_seconds: Number(turn.value),
      };
      const chips = stake.value();
      if (chips === null) { error.textContent = t('newgame.bad_stake'); return; }
      if (chips) settings.stake = chips;
      if (!isThree()) {
        const lv = choice('limit');
        const limit = lv === 'custom' ? Number(customLimit.value) : Number(lv);
        settings.point_limit = limit;
        if (!(limit >= 1)) { error.textContent = t('newgame.bad_limit'); return; }
        settings.hand_rummy = handRummy.checked;
        settings.knock = n >= 2 && knock.checked;
      }
      try {
        const res = await app.request({ type: 'create_table', settings });
        const table = res.table;
        app.tables.set(table.id, table);
        dlg.close();
        // Against computer opponents only, there is nobody to wait for.
        if (Object.keys(bots).length === n) {
          app.send({ type: 'start_game', table: table.id });
        }
        app.openTable(table.id);
      } catch (err) {
        error.textContent = app.errorText(/** @type {import('./types.js').ServerError} */ (err));
      }
    });
  }
}
