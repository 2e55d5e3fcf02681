// @ts-check
// The name a computer opponent's level is shown by: a named level in the reader's
// language ("Strong"), a level between two named ones as the lower one and how far
// it is towards the next ("Casual +40": 40% of its turns played like Strong).

import { t } from './i18n.js';

/**
 * @param {string} level a level as the server names it: `casual` or `casual+40`
 * @returns {string}
 */
export function botName(level) {
  const plus = level.indexOf('+');
  if (plus < 0) return t(`bot.${level}`);
  return `${t(`bot.${level.slice(0, plus)}`)} +${level.slice(plus + 1)}`;
}

/** A computer opponent's account name as the server keeps it: `Bot casual` (no person's nickname holds a space). */
const BOT_ACCOUNT = /^Bot ([a-z]+(?:\+\d+)?)$/;

/**
 * The name a player of a list (rankings, the five best, the game history) is shown by:
 * a person's nickname as it is, a computer opponent's account by its level in the
 * reader's language, as the table names it ("Casual", "Amateur").
 * @param {string} nickname
 * @returns {string}
 */
export function playerName(nickname) {
  const bot = BOT_ACCOUNT.exec(nickname);
  return bot ? botName(bot[1]) : nickname;
}
