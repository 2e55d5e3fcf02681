// @ts-check
// The table's dialogs and ways out: who sits here, invite players, leave the
// table (during a game only after asking), exit after being put out.

import { t } from '../i18n.js';
import { avatar, dialog, h, toast } from '../ui.js';
import { socialButtons } from '../friends.js';
import { showPlayerInfo } from '../widgets.js';

/** @import { TableScreen } from './screen.js' */

/** @param {TableScreen} screen */
export function playerInfoDialog(screen) {
  const table = screen.state.table;
  if (!table) return;
  const people = table.seats.filter((s) => s.nickname);
  const dlg = dialog(t('table.player_info'), h('div',
    h('ul.pick-list', people.map((s) => {
      const nickname = s.nickname ?? '';
      const info = () => showPlayerInfo(screen.app, nickname, (d, about) => socialButtons(screen.app, nickname, d, about, table.id));
      return h('li', h('button.player-link', { onclick: () => { dlg.close(); info(); } },
        avatar(nickname), h('span', nickname)));
    })),
    h('div.dialog-buttons', h('button', { onclick: () => dlg.close() }, t('common.close')))));
}

/**
 * Invite a player by nickname or from the players online; the lists follow the
 * lobby while the dialog is open.
 * @param {TableScreen} screen
 */
export function inviteDialog(screen) {
  const app = screen.app;
  const table = screen.state.table;
  if (!table) return;
  const input = h('input', { id: 'invite-nick', placeholder: t('invite.nickname'), 'aria-label': t('invite.nickname'), maxlength: 20 });
  /** @param {string} nickname */
  const invite = (nickname) => {
    if (!nickname) return;
    app.send({ type: 'invite', table: table.id, nickname });
    toast(t('invite.sent_toast', { name: nickname }));
  };
  const lists = h('div.invite-lists');
  const fill = () => {
    const seated = new Set((screen.state.table?.seats || []).map((s) => s.nickname).filter(Boolean));
    const online = app.lobby.players.filter((p) => !seated.has(p.nickname));
    const sent = app.lobby.invitations.filter((i) => i.table === table.id);
    lists.replaceChildren(...[
      h('h3', t('lobby.players_online')),
      online.length ? h('ul.pick-list', online.map((p) => h('li', avatar(p.nickname), h('span', p.nickname),
        h('button.small', { dataset: { invite: p.nickname }, onclick: () => invite(p.nickname) }, t('invite.invite'))))) : h('p.muted', t('lobby.nobody_online')),
      sent.length ? h('h3', t('invite.sent')) : null,
      sent.length ? h('ul.invite-list', sent.map((i) => h('li', h('span', i.to), h('span.badge', t(`invite.status_${i.status}`))))) : null,
    ].filter((el) => el !== null));
  };
  fill();
  screen.refreshInvite = fill;
  const dlg = dialog(t('table.invite'), h('div.invite-dialog',
    table.free_seats === 0 || table.status !== 'waiting' ? h('p.muted', t('invite.table_full')) : null,
    h('form.inline-form', { onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); invite(input.value.trim()); input.value = ''; } },
      input, h('button.primary', { type: 'submit', id: 'invite-send' }, t('invite.send'))),
    lists,
    h('div.dialog-buttons', h('button', { onclick: () => dlg.close() }, t('common.close')))),
  { onClose: () => { screen.refreshInvite = null; } });
}

/**
 * Leave the table for good and go to the lobby.
 * @param {TableScreen} screen
 */
export function exit(screen) {
  const { app, state } = screen;
  if (!state.table) return;
  app.send({ type: 'leave_table', table: state.table.id });
  app.tables.delete(state.table.id);
  app.openLobby();
}

/**
 * "Leave": during a game, after asking (a computer opponent plays the seat on; a
 * staked game's stake is forfeit unless the player comes back).
 * @param {TableScreen} screen
 */
export function leave(screen) {
  const { app, state } = screen;
  const table = state.table;
  if (!table) { app.openLobby(); return; }
  const playing = table.status === 'playing' && state.view && state.view.phase !== 'game_over';
  if (!playing || table.my_seat === null) {
    if (table.my_seat !== null && table.status !== 'finished') app.send({ type: 'leave_table', table: table.id });
    app.tables.delete(table.id);
    app.openLobby();
    return;
  }
  // A staked game's stake stays in the pot (docs/protocol.md, "Chips and stakes").
  const stake = table.settings.stake ?? 0;
  const dlg = dialog(t('table.leave_title'), h('div', h('p', t('table.leave_text')),
    stake ? h('p.forfeit', { id: 'leave-forfeit' }, t('table.leave_forfeits', { n: stake })) : null,
    h('div.dialog-buttons', h('button', { onclick: () => dlg.close() }, t('common.cancel')),
      h('button.primary.danger', { id: 'confirm-leave', onclick: () => { dlg.close(); exit(screen); } }, t('table.leave')))));
}
