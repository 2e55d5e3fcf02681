// @ts-check
// Levels, statistics and card luck as the profile, the player info dialog, the
// rankings and the card-luck page show them (docs/protocol.md, "Statistics,
// experience and levels").

import { currentLanguage, t } from './i18n.js';
import { h } from './ui.js';

/**
 * @typedef {{number: number, name: string, xp_from: number, next_at: number | null}} Level
 * @typedef {{games: number, wins: number, win_rate: number | null, rounds_played: number,
 *   rounds_won: number, hand_rummies: number, knocks: number, average_penalty: number | null,
 *   biggest_win: number, best_rating: number | null, xp: number}} Statistics
 * @typedef {{hands: number, jokers: number, jokers_expected: number, jokers_spread: number,
 *   meld_ready_hands: number, meld_ready: number, meld_ready_expected: number,
 *   meld_ready_spread: number, players?: number}} CardLuck
 * @typedef {{overall: Statistics, classic: Statistics, 'three-rounds': Statistics,
 *   rating: number | null, card_luck: CardLuck, chips_won: number, chips_lost: number}} Stats
 */

/** @param {number} n */
export function formatNumber(n) { return n.toLocaleString(currentLanguage()); }

/**
 * The small level mark beside a nickname; nothing without a level (a computer seat).
 * @param {number | null | undefined} number
 */
export function levelBadge(number) {
  if (!number) return null;
  return h('span.level-badge', { title: t('level.title_n', { level: number }) }, t('level.short', { level: number }));
}

/**
 * The chips won and lost over the player's staked games, as two rows of a `<dl>`
 * (ids `PREFIX-chips-won`, `PREFIX-chips-lost`).
 * @param {Stats} stats
 * @param {string} prefix
 */
export function chipsWonAndLost(stats, prefix) {
  return [
    h('dt', t('stats.chips_won')), h('dd', { id: `${prefix}-chips-won` }, formatNumber(stats.chips_won)),
    h('dt', t('stats.chips_lost')), h('dd', { id: `${prefix}-chips-lost` }, formatNumber(stats.chips_lost)),
  ];
}

/**
 * A level's name, its XP and the way to the next level as a bar.
 * @param {Level} level
 * @param {number} xp
 */
export function levelProgress(level, xp) {
  const name = t(`level.${level.name}`);
  const next = level.next_at;
  const share = next === null ? 1 : (xp - level.xp_from) / (next - level.xp_from);
  const way = next === null ? t('level.top', { xp: formatNumber(xp) })
    : t('level.next', { xp: formatNumber(xp), left: formatNumber(next - xp) });
  return h('div.level-progress', { id: 'level-progress' },
    h('div.level-head', h('strong', t('level.title', { level: level.number, name })), h('span.muted', way)),
    h('div.level-bar', { role: 'progressbar', 'aria-label': way, 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': Math.round(share * 100) },
      h('span', { style: `width:${Math.round(share * 100)}%` })));
}

/**
 * One column of figures: a preset's (or all games') statistics.
 * @param {Statistics} s
 */
function statisticsRows(s) {
  const dash = '–';
  return [
    ['stats.games', formatNumber(s.games)],
    ['stats.wins', formatNumber(s.wins)],
    ['stats.win_rate', s.win_rate === null ? dash : `${Math.round(s.win_rate * 100)} %`],
    ['stats.rounds_played', formatNumber(s.rounds_played)],
    ['stats.rounds_won', formatNumber(s.rounds_won)],
    ['stats.hand_rummies', formatNumber(s.hand_rummies)],
    ['stats.knocks', formatNumber(s.knocks)],
    ['stats.average_penalty', s.average_penalty === null ? dash : s.average_penalty.toLocaleString(currentLanguage())],
    ['stats.biggest_win', formatNumber(s.biggest_win)],
    ['stats.best_rating', s.best_rating === null ? dash : String(s.best_rating)],
    ['stats.xp', formatNumber(s.xp)],
  ];
}

/**
 * The statistics overall and per preset, one column each.
 * @param {Stats} stats
 */
export function statisticsTable(stats) {
  const columns = [['stats.overall', stats.overall], ['settings.preset_classic', stats.classic],
    ['settings.preset_three_rounds', stats['three-rounds']]];
  const rows = columns.map(([, s]) => statisticsRows(/** @type {Statistics} */ (s)));
  return h('div.table-scroll', h('table.stats-table', { id: 'stats-table' },
    h('thead', h('tr', h('th', ''), columns.map(([key]) => h('th', { scope: 'col' }, t(/** @type {string} */ (key)))))),
    h('tbody', rows[0].map(([key], i) => h('tr', { dataset: { stat: key.slice(6) } },
      h('th', { scope: 'row' }, t(key)), rows.map((r) => h('td', r[i][1])))))));
}

/**
 * How a count stands against a fair shuffle's: within two spreads, above or below.
 * @param {number} got @param {number} expected @param {number} spread
 */
function verdict(got, expected, spread) {
  if (spread === 0 || Math.abs(got - expected) <= 2 * spread) return t('luck.within');
  return got > expected ? t('luck.above') : t('luck.below');
}

/**
 * Jokers and meld-ready hands dealt, against the expected figures with their spread.
 * @param {CardLuck} luck
 */
export function cardLuckTable(luck) {
  /** @param {string} key @param {number} got @param {number} hands @param {number} expected @param {number} spread */
  const row = (key, got, hands, expected, spread) => h('tr', { dataset: { luck: key } },
    h('th', { scope: 'row' }, t(`luck.${key}`)),
    h('td.luck-got', formatNumber(got)),
    h('td', formatNumber(hands)),
    h('td.luck-expected', `${expected.toLocaleString(currentLanguage())} ± ${spread.toLocaleString(currentLanguage())}`),
    h('td.muted', hands ? verdict(got, expected, spread) : '–'));
  return h('div.table-scroll', h('table.stats-table.luck-table', { id: 'luck-table' },
    h('thead', h('tr', h('th', ''), ['luck.received', 'luck.hands', 'luck.expected', 'luck.verdict'].map((k) => h('th', { scope: 'col' }, t(k))))),
    h('tbody',
      row('jokers', luck.jokers, luck.hands, luck.jokers_expected, luck.jokers_spread),
      row('meld_ready', luck.meld_ready, luck.meld_ready_hands, luck.meld_ready_expected, luck.meld_ready_spread))));
}

/** What the card-luck figures mean, in a sentence or two. */
export function cardLuckNote() {
  return h('p.muted.luck-note', t('luck.note'));
}
