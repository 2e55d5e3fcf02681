// @ts-check
// The lobby's table filters: the rules (preset), the point limit, only tables with
// a free seat, only tables where a friend sits. The choice is kept in the browser
// (localStorage) for the next visit.

import { t } from '../i18n.js';
import { h } from '../ui.js';

/** @import { TableSummary } from '../types.js' */

/**
 * `preset`: 'any', 'classic' or 'three-rounds'; `limit`: 'any', 'single' (one
 * round), 'upto100' (2 to 100 points) or 'over100'.
 * @typedef {{preset: string, limit: string, free: boolean, friends: boolean}} Filters
 */

const STORE_KEY = 'romme.lobbyFilters';
/** @type {Filters} */
const NO_FILTER = { preset: 'any', limit: 'any', free: false, friends: false };

/** @returns {Filters} the filters chosen last time, or none */
export function savedFilters() {
  try {
    return { ...NO_FILTER, ...JSON.parse(localStorage.getItem(STORE_KEY) || '{}') };
  } catch {
    return { ...NO_FILTER };
  }
}

/**
 * A classic table's point limit as the filter groups it ('' for three-rounds).
 * @param {TableSummary} table
 */
function limitGroup(table) {
  if (table.settings.preset === 'three-rounds') return '';
  const limit = table.settings.point_limit ?? 100;
  return limit === 1 ? 'single' : limit <= 100 ? 'upto100' : 'over100';
}

/**
 * Whether a table passes the filters.
 * @param {TableSummary} table
 * @param {Filters} filters
 * @param {Set<string>} friends the player's friends' nicknames
 */
export function passes(table, filters, friends) {
  if (filters.preset !== 'any' && (table.settings.preset ?? 'classic') !== filters.preset) return false;
  if (filters.limit !== 'any' && limitGroup(table) !== filters.limit) return false;
  if (filters.free && !(table.status === 'waiting' && table.free_seats > 0)) return false;
  if (filters.friends && !table.seats.some((s) => s.nickname && friends.has(s.nickname))) return false;
  return true;
}

/**
 * The filter bar; `onChange` gets the new filters (already saved).
 * @param {Filters} filters
 * @param {(filters: Filters) => void} onChange
 */
export function filterBar(filters, onChange) {
  const changed = () => {
    const next = {
      preset: preset.value,
      limit: limit.value,
      free: free.checked,
      friends: withFriends.checked,
    };
    try { localStorage.setItem(STORE_KEY, JSON.stringify(next)); } catch { /* private mode: kept for this page only */ }
    onChange(next);
  };
  /** @param {string} id @param {string} label @param {[string, string][]} options @param {string} value */
  const select = (id, label, options, value) => h('select', { id, 'aria-label': label, onchange: changed },
    options.map(([v, text]) => h('option', { value: v, selected: v === value }, text)));
  const preset = select('filter-preset', t('newgame.preset'), [['any', t('lobby.filter_any')],
    ['classic', t('settings.preset_classic')], ['three-rounds', t('settings.preset_three_rounds')]], filters.preset);
  const limit = select('filter-limit', t('newgame.point_limit'), [['any', t('lobby.filter_any')],
    ['single', t('newgame.limit_1')], ['upto100', t('lobby.limit_upto100')], ['over100', t('lobby.limit_over100')]], filters.limit);
  const free = h('input', { type: 'checkbox', id: 'filter-free', checked: filters.free, onchange: changed });
  const withFriends = h('input', { type: 'checkbox', id: 'filter-friends', checked: filters.friends, onchange: changed });
  return h('div.table-filters', { id: 'table-filters', role: 'group', 'aria-label': t('lobby.filters') },
    h('label.filter', h('span', t('newgame.preset')), preset),
    h('label.filter', h('span', t('newgame.point_limit')), limit),
    h('label.check.filter', free, h('span', t('lobby.filter_free'))),
    h('label.check.filter', withFriends, h('span', t('lobby.filter_friends'))));
}
