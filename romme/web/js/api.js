// @ts-check
// HTTP calls of docs/protocol.md. Errors come back as ApiError with the
// server's code and message.

/** @import { Player } from './types.js' */

/**
 * A login session (GET /api/sessions).
 * @typedef {{id: number, created_at: string, last_seen_at: string, expires_at: string,
 *   address: string, user_agent: string, current: boolean}} Session
 */

/**
 * A player's public record (GET /api/players/NAME).
 * @typedef {Player & {games_played: number, games_won: number,
 *   recent: {game: number, finished_at: string, won: boolean, place: number, players: number}[],
 *   xp: number, level: import('./levels.js').Level, stats: import('./levels.js').Stats}} PlayerInfo
 */

export class ApiError extends Error {
  /**
   * @param {number} status the HTTP status (0: no answer)
   * @param {string} code
   * @param {string} [message]
   */
  constructor(status, code, message) {
    super(message || code);
    this.status = status;
    this.code = code;
  }
}

// Every POST carries a JSON body: the server refuses other bodies (415) and
// requests from other sites (403, see docs/security.md).
/**
 * @param {'GET' | 'POST'} method
 * @param {string} path
 * @param {object} [body]
 * @returns {Promise<any>} the answer's JSON
 */
async function call(method, path, body) {
  /** @type {RequestInit & {headers: Record<string, string>}} */
  const init = { method, headers: {}, credentials: 'same-origin' };
  if (body !== undefined || method !== 'GET') {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body ?? {});
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new ApiError(0, 'network', String(err));
  }
  /** @type {any} */
  let data = null;
  try { data = await response.json(); } catch { data = null; }
  if (!response.ok) {
    const error = data && data.error ? data.error : { code: `http_${response.status}`, message: response.statusText };
    throw new ApiError(response.status, error.code, error.message);
  }
  return data;
}

export const api = {
  /** @returns {Promise<{player: Player, chips: number, xp: number, level: import('./levels.js').Level}>} */
  me: () => call('GET', 'api/me'),
  /** @param {string} nickname @returns {Promise<{player: Player}>} */
  guest: (nickname) => call('POST', 'api/guest', { nickname }),
  /** @param {string} nickname @param {string} password @returns {Promise<{player: Player}>} */
  login: (nickname, password) => call('POST', 'api/login', { nickname, password }),
  /** @param {string} nickname @param {string} password @returns {Promise<{player: Player}>} */
  register: (nickname, password) => call('POST', 'api/register', { nickname, password }),
  /** @param {boolean} [everywhere] end every session of the player, not only this one */
  logout: (everywhere = false) => call('POST', 'api/logout', { everywhere }),
  /** @returns {Promise<{sessions: Session[]}>} */
  sessions: () => call('GET', 'api/sessions'),
  /** @param {number} id */
  revokeSession: (id) => call('POST', 'api/sessions/revoke', { id }),
  /** @param {string} oldPassword @param {string} newPassword @returns {Promise<{ok: true, sessions_ended: number}>} */
  changePassword: (oldPassword, newPassword) => call('POST', 'api/account/password', { old_password: oldPassword, new_password: newPassword }),
  /** @param {string} password */
  deleteAccount: (password) => call('POST', 'api/account/delete', { password }),
  /** @param {string} nickname @returns {Promise<PlayerInfo>} */
  player: (nickname) => call('GET', `api/players/${encodeURIComponent(nickname)}`),
  /**
   * A page of a player's finished games, newest first, after the game `before`.
   * @param {string} nickname @param {number} [before] @param {number} [limit]
   * @returns {Promise<{nickname: string, games: import('./replay/types.js').HistoryGame[], more: boolean}>}
   */
  history: (nickname, before, limit = 20) => call('GET', `api/players/${encodeURIComponent(nickname)}/games?limit=${limit}${before ? `&before=${before}` : ''}`),
  /** @param {number} id @returns {Promise<import('./replay/types.js').ReplayData>} */
  replay: (id) => call('GET', `api/games/${id}/replay`),
  /** @param {number} id @returns {Promise<import('./replay/marks.js').Analysis>} */
  analysis: (id) => call('GET', `api/games/${id}/analysis`),
  /** @param {number} id @returns {Promise<import('./replay/marks.js').Analysis>} */
  requestAnalysis: (id) => call('POST', `api/games/${id}/analysis`),
  /** @param {string} nickname @param {string} reason @param {string} text */
  report: (nickname, reason, text) => call('POST', 'api/reports', { nickname, reason, text }),
  /**
   * A ranking with the caller's own row (`me`) wherever it stands.
   * @param {string} by 'rating', 'level' or 'chips_month'
   * @returns {Promise<{rankings: import('./rankings.js').RankingRow[], me: import('./rankings.js').RankingRow | null}>}
   */
  rankings: (by) => call('GET', `api/rankings?by=${encodeURIComponent(by)}&limit=100`),
  /** @returns {Promise<import('./levels.js').CardLuck>} */
  cardLuck: () => call('GET', 'api/stats/cards'),
  /** @param {string} path e.g. 'moderation?open=1' @param {object} [body] a POST's body */
  moderation: (path, body) => call(body ? 'POST' : 'GET', `api/${path}`, body),
  /** @returns {Promise<import('./chips.js').BonusState>} */
  bonus: () => call('GET', 'api/bonus'),
  /** @returns {Promise<import('./chips.js').BonusState & {claimed: number}>} */
  claimBonus: () => call('POST', 'api/bonus'),
  /**
   * A page of the player's own chip movements, newest first, before the movement `before`.
   * @param {string} nickname @param {number} [before]
   * @returns {Promise<{chips: number, movements: import('./chips.js').Movement[], next: number | null}>}
   */
  ledger: (nickname, before) => call('GET', `api/players/${encodeURIComponent(nickname)}/ledger${before ? `?before=${before}` : ''}`),
};
