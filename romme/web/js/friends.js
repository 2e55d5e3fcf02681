// @ts-check
// Friends, blocks and muting: the lobby's friends panel (add by nickname, answer
// requests, friends online with a one-click invite, the block list), the buttons
// under a player's info, and the players muted at one table (kept in this
// browser only: docs/protocol.md, "Friends and blocks").

import { t } from './i18n.js';
import { avatar, clear, h, toast } from './ui.js';

/** @import { App, Friends } from './types.js' */

/** @returns {Friends} */
export function noFriends() {
  return { friends: [], incoming: [], outgoing: [], blocked: [] };
}

/**
 * A new `friends` message: a toast for each request that just arrived.
 * @param {App} app
 * @param {Friends} next
 */
export function takeFriends(app, next) {
  const before = new Set(app.friends.incoming);
  for (const name of next.incoming) {
    if (!before.has(name)) toast(t('friends.request_toast', { name }), 'info', 6000);
  }
  app.friends = next;
}

/**
 * `friend_online`: a friend came online or left.
 * @param {App} app
 * @param {{nickname: string, online: boolean}} msg
 */
export function friendOnline(app, msg) {
  const friend = app.friends.friends.find((f) => f.nickname === msg.nickname);
  if (friend) friend.online = msg.online;
}

/**
 * Send a friends request; errors are shown (the reply updates the lists through
 * the `friends` message it is).
 * @param {App} app
 * @param {import('./types.js').Message} msg
 * @param {string} [done] a text key to show when it succeeded
 * @param {Record<string, string>} [vars]
 */
function ask(app, msg, done, vars) {
  return app.request(msg).then((reply) => {
    if (reply && reply.type === 'friends') takeFriends(app, reply);
    app.friendsChanged();
    if (done) toast(t(done, vars));
  }).catch((err) => app.showError(err));
}

/**
 * Invite a friend with one click: to the player's waiting table, or to a new
 * invite-only table for two, which then opens.
 * @param {App} app
 * @param {string} nickname
 */
export async function inviteFriend(app, nickname) {
  const waiting = [...app.tables.values()].find((x) => x.my_seat !== null && x.my_seat !== undefined && x.status === 'waiting');
  try {
    let id = waiting?.id;
    if (id === undefined) {
      const reply = await app.request({ type: 'create_table', settings: { access: 'invite', seats: 2 } });
      app.tables.set(reply.table.id, reply.table);
      id = reply.table.id;
    }
    await app.request({ type: 'invite', table: id, nickname });
    toast(t('invite.sent_toast', { name: nickname }));
    app.openTable(/** @type {number} */ (id));
  } catch (err) {
    app.showError(/** @type {any} */ (err));
  }
}

/** The lobby's friends panel, filled by {@link renderFriends}. */
export function friendsPanel() {
  return h('section.panel.friends-panel', { 'aria-labelledby': 'friends-h' },
    h('h2', { id: 'friends-h', 'data-i18n': 'friends.title' }),
    h('div', { id: 'friends' }));
}

/**
 * @param {App} app
 * @param {HTMLElement} root the lobby
 * @param {(nickname: string) => void} showInfo open a player's info
 */
export function renderFriends(app, root, showInfo) {
  const el = root.querySelector('#friends');
  if (!(el instanceof HTMLElement)) return;
  clear(el);
  if (app.me?.guest) {
    el.append(h('p.muted', t('friends.guest')));
    return;
  }
  const { friends, incoming, outgoing, blocked } = app.friends;
  const input = h('input', { id: 'friend-nick', placeholder: t('invite.nickname'), 'aria-label': t('friends.add_label'), maxlength: 20 });
  const form = h('form.friend-add', {
    onsubmit: (/** @type {Event} */ e) => {
      e.preventDefault();
      const name = /** @type {HTMLInputElement} */ (input).value.trim();
      if (name) ask(app, { type: 'friend_request', nickname: name }, 'friends.sent_toast', { name });
    },
  }, input, h('button', { type: 'submit', id: 'friend-add' }, t('friends.add')));
  el.append(form);
  if (incoming.length) {
    el.append(h('h3', t('friends.requests')), h('ul.friend-list', incoming.map((name) => h('li.friend', { dataset: { request: name } },
      avatar(name), h('span.name', name),
      h('span.friend-buttons',
        h('button.primary.small', { dataset: { acceptFriend: name }, onclick: () => ask(app, { type: 'answer_friend', nickname: name, accept: true }) }, t('invite.accept')),
        h('button.small', { onclick: () => ask(app, { type: 'answer_friend', nickname: name, accept: false }) }, t('invite.decline')))))));
  }
  const online = friends.filter((f) => f.online);
  const offline = friends.filter((f) => !f.online);
  el.append(h('ul.friend-list', { id: 'friend-list' }, [...online, ...offline].map((f) => h('li.friend', { dataset: { friend: f.nickname, online: String(f.online) } },
    h('span.presence', { class: f.online ? 'on' : 'off', title: t(f.online ? 'friends.online' : 'friends.offline') }),
    h('button.player-link', { onclick: () => showInfo(f.nickname), title: t('info.show', { name: f.nickname }) }, avatar(f.nickname), h('span', f.nickname)),
    f.online ? h('button.primary.small', { dataset: { inviteFriend: f.nickname }, onclick: () => inviteFriend(app, f.nickname) }, t('invite.invite')) : null))));
  if (!friends.length) el.append(h('p.empty', t('friends.none')));
  if (outgoing.length) el.append(h('p.muted', t('friends.pending', { names: outgoing.join(', ') })));
  if (blocked.length) {
    el.append(h('details.blocked', h('summary', t('friends.blocked', { n: blocked.length })),
      h('ul.friend-list', blocked.map((name) => h('li.friend', h('span.name', name),
        h('button.small', { dataset: { unblock: name }, onclick: () => ask(app, { type: 'unblock', nickname: name }) }, t('friends.unblock')))))));
  }
}

// ------------------------------------------------------------ muting at a table

/** @param {number} tableId */
function muteKey(tableId) { return `romme.muted.${tableId}`; }

/**
 * The nicknames whose chat this browser does not show at a table.
 * @param {number} tableId
 * @returns {Set<string>}
 */
export function mutedAt(tableId) {
  try {
    const list = JSON.parse(localStorage.getItem(muteKey(tableId)) || '[]');
    return new Set(Array.isArray(list) ? list.filter((x) => typeof x === 'string') : []);
  } catch {
    return new Set();
  }
}

/**
 * @param {number} tableId
 * @param {string} nickname
 * @param {boolean} mute
 */
function setMuted(tableId, nickname, mute) {
  const muted = mutedAt(tableId);
  if (mute) muted.add(nickname); else muted.delete(nickname);
  localStorage.setItem(muteKey(tableId), JSON.stringify([...muted]));
}

// ------------------------------------------------------------ player info

/**
 * The buttons under another player's info: friend (add, accept, remove), block
 * or unblock, and at a table mute or unmute their chat there.
 * @param {App} app
 * @param {string} nickname
 * @param {{close: () => void}} dlg
 * @param {{guest?: boolean}} info the player's info (a guest cannot be a friend)
 * @param {number | null} [tableId] the table the info was opened at
 */
export function socialButtons(app, nickname, dlg, info, tableId = null) {
  if (!app.me || nickname === app.me.nickname) return null;
  const { friends, incoming, outgoing, blocked } = app.friends;
  const act = (/** @type {import('./types.js').Message} */ msg, /** @type {string} */ done) => {
    dlg.close();
    ask(app, msg, done, { name: nickname });
  };
  const buttons = [];
  const isBlocked = blocked.includes(nickname);
  if (!app.me.guest && !info.guest && !isBlocked) {
    if (friends.some((f) => f.nickname === nickname)) {
      buttons.push(h('button', { id: 'remove-friend', onclick: () => act({ type: 'remove_friend', nickname }, 'friends.removed_toast') }, t('friends.remove')));
    } else if (incoming.includes(nickname)) {
      buttons.push(h('button.primary', { id: 'accept-friend', onclick: () => act({ type: 'answer_friend', nickname, accept: true }, 'friends.accepted_toast') }, t('friends.accept')));
    } else if (outgoing.includes(nickname)) {
      buttons.push(h('button', { disabled: true }, t('friends.requested')));
    } else {
      buttons.push(h('button.primary', { id: 'add-friend', onclick: () => act({ type: 'friend_request', nickname }, 'friends.sent_toast') }, t('friends.add')));
    }
  }
  if (tableId !== null) {
    const muted = mutedAt(tableId).has(nickname);
    buttons.push(h('button', {
      id: 'mute-chat',
      onclick: () => {
        setMuted(tableId, nickname, !muted);
        dlg.close();
        toast(t(muted ? 'friends.unmuted_toast' : 'friends.muted_toast', { name: nickname }));
        app.friendsChanged();
      },
    }, t(muted ? 'friends.unmute' : 'friends.mute')));
  }
  buttons.push(isBlocked
    ? h('button', { id: 'unblock-player', onclick: () => act({ type: 'unblock', nickname }, 'friends.unblocked_toast') }, t('friends.unblock'))
    : h('button.danger', { id: 'block-player', onclick: () => act({ type: 'block', nickname }, 'friends.blocked_toast') }, t('friends.block')));
  return h('div.social-buttons', buttons);
}
