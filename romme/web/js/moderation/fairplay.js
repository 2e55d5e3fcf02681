// @ts-check
// The moderators' fair-play panel: the staked games of the last days that show a
// sign of chip dumping or collusion (a seat given up, one address, one-way chips,
// turns on which a seat could have gone out and did not), and the pairs of people
// who play such games together, each with the games to replay; a game's result can
// be voided (its settlement reversed by new ledger movements). docs/chips.md, "For
// moderators".

import { api } from '../api.js';
import { chipsText } from '../chips.js';
import { t } from '../i18n.js';
import { h, toast } from '../ui.js';
import { nameOf, when } from './lists.js';

/** @import { App } from '../types.js' */

/**
 * @typedef {{player_id: number, nickname: string | null, seat: number, net: number, given_up: boolean,
 *   missed_outs: number[]}} SignalSeat
 * @typedef {{game: number, finished_at: string, void: boolean, checked: boolean, score: number,
 *   same_address: boolean, players: SignalSeat[]}} GameSignal
 * @typedef {{players: (string | null)[], games: number, void_games: number, given_up: number, soft_play: number,
 *   one_way: number, flow: number, same_address: boolean, score: number, games_list: number[]}} PairSignal
 */

/** The period the panel looks at, in days. */
const DAYS = 7;

/** A replay's address at the position right after an action (`index` in the game's log). */
const replayAt = (/** @type {number} */ game, /** @type {number} */ index) => `#/replay/${game}/${index + 1}`;

export class FairPlayPanel {
  /**
   * @param {App} app
   * @param {() => void} changed called after a void (the moderation log has a new entry)
   */
  constructor(app, changed) {
    this.app = app;
    this.changed = changed;
    this.el = h('section.panel.fair-play', { id: 'mod-fair-play' });
    /** @type {GameSignal[] | null} */
    this.games = null;
    /** @type {PairSignal[] | null} */
    this.pairs = null;
    /** @type {any} */
    this.failure = null;
    /** Notes typed for a void, by game: they outlive a redraw. @type {Map<number, string>} */
    this.notes = new Map();
  }

  /** Read both lists (the server checks the games not checked yet on the way). */
  async load() {
    this.el.setAttribute('aria-busy', 'true');
    try {
      const [games, pairs] = await Promise.all([
        api.moderation(`economy/games?days=${DAYS}`), api.moderation(`economy/signals?days=${DAYS}`)]);
      this.games = games.games;
      this.pairs = pairs.pairs;
      this.failure = null;
    } catch (err) {
      this.failure = err;
    }
    this.el.setAttribute('aria-busy', 'false');
    this.draw();
  }

  draw() {
    const games = this.games ?? [];
    const pairs = (this.pairs ?? []).filter((p) => p.score > p.games);
    this.el.replaceChildren(...[
      h('h2', t('mod.fair_title', { days: DAYS })),
      h('p.muted', t('mod.fair_hint')),
      this.failure ? h('p.form-error', this.app.errorText(this.failure)) : null,
      h('h3', t('mod.fair_games')),
      games.length ? h('ul.fair-list', { id: 'fair-games' }, games.map((g) => this.gameItem(g)))
        : h('p.muted', { id: 'fair-games-empty' }, this.games ? t('mod.fair_none') : t('common.loading')),
      h('h3', t('mod.fair_pairs')),
      pairs.length ? h('ul.fair-list', { id: 'fair-pairs' }, pairs.map((p) => this.pairItem(p)))
        : h('p.muted', this.pairs ? t('mod.fair_none') : t('common.loading')),
    ].filter((part) => part !== null));
  }

  /** One suspicious game: its evidence seat by seat, a link to replay it, and Void. @param {GameSignal} g */
  gameItem(g) {
    const seats = g.players.map((p) => h('li', h('strong', nameOf(p.nickname)), ' ',
      h('span', { class: p.net < 0 ? 'chips-lost' : 'chips-won' }, `${p.net > 0 ? '+' : ''}${chipsText(p.net)}`),
      p.given_up ? [' ', h('span.badge', t('mod.fair_gave_up'))] : null,
      p.missed_outs.length ? [' ', h('span.badge.warn', t('mod.fair_missed', { n: p.missed_outs.length })), ' ',
        p.missed_outs.map((i) => h('a.small', { href: replayAt(g.game, i), dataset: { move: String(i) } }, t('mod.fair_turn', { n: i + 1 })))] : null));
    const note = h('input', { placeholder: t('mod.note'), 'aria-label': t('mod.note'), maxlength: 500 });
    note.value = this.notes.get(g.game) ?? '';
    note.addEventListener('input', () => this.notes.set(g.game, note.value));
    return h('li.fair-game', { dataset: { game: String(g.game) } },
      h('div', h('a', { href: `#/replay/${g.game}` }, t('mod.fair_game', { id: g.game })), ' ',
        h('span.badge.weight', t('mod.fair_score', { score: g.score })), ' ',
        g.same_address ? h('span.badge.warn', t('mod.fair_same_address')) : null, ' ',
        g.checked ? null : h('span.badge', t('mod.fair_unchecked')), ' ',
        h('span.muted', when(g.finished_at))),
      h('ul.fair-seats', seats),
      g.void ? h('p.muted', t('mod.fair_void'))
        : h('div.report-actions', note, h('button.small', { dataset: { void: String(g.game) },
          onclick: () => this.voidGame(g.game, note.value) }, t('mod.fair_void_button'))));
  }

  /** A pair of people and what their games together show. @param {PairSignal} p */
  pairItem(p) {
    const signs = [
      t('mod.fair_pair_games', { n: p.games }),
      p.void_games ? t('mod.fair_pair_void', { n: p.void_games }) : null,
      p.given_up ? t('mod.fair_pair_given_up', { n: p.given_up }) : null,
      p.soft_play ? t('mod.fair_missed', { n: p.soft_play }) : null,
      p.flow ? t('mod.fair_pair_flow', { chips: chipsText(p.flow) }) : null,
      p.same_address ? t('mod.fair_same_address') : null,
    ].filter(Boolean);
    return h('li.fair-pair', h('div', h('strong', `${nameOf(p.players[0])} ← ${nameOf(p.players[1])}`), ' ',
      h('span.badge.weight', t('mod.fair_score', { score: p.score })), ' ', h('span.muted', signs.join(' · '))),
    h('div.fair-links', p.games_list.map((id) => h('a.small', { href: `#/replay/${id}` }, t('mod.fair_game', { id })))));
  }

  /**
   * @param {number} game
   * @param {string} note
   */
  async voidGame(game, note) {
    try {
      await api.moderation('economy/void', { game, note });
      this.notes.delete(game);
      toast(t('mod.fair_voided', { id: game }));
    } catch (err) {
      toast(this.app.errorText(/** @type {any} */ (err)), 'error');
    }
    this.changed();
    await this.load();
  }
}
