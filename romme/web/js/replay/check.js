// @ts-check
// The shuffle check of a replay: for every round, the browser hashes the revealed
// seed (WebCrypto SHA-256) and compares it with the commitment published at the
// deal, derives the seed from the match seed, shuffles and deals with its own port
// of the engine's shuffle (../fairness.js) and compares the hands and the upturned
// card with those the replay shows at the deal. Nothing of it trusts the server's
// word: only the cards it served are compared.

import { dealOrder, verifyRound } from '../fairness.js';
import { cardShort } from '../cards.js';
import { t } from '../i18n.js';
import { h } from '../ui.js';

/** @import { Verdict, Problem } from '../fairness.js' */
/** @import { ReplayData } from './types.js' */

/**
 * One round's verdict with where its deal is in the replay.
 * @typedef {{roundNo: number, position: number, verdict: Verdict}} RoundCheck
 */

/**
 * Check every round's deal of a replay.
 * @param {ReplayData} replay
 * @returns {Promise<RoundCheck[]>}
 */
export async function checkShuffle(replay) {
  const handSize = Number(replay.rules.hand_size ?? 13);
  /** @type {Promise<RoundCheck>[]} */
  const checks = [];
  replay.positions.forEach((position, index) => {
    if (position.action?.type !== 'next_round') return;
    const round = replay.rounds.find((r) => r.round_no === position.round_no);
    const order = dealOrder(position.dealer, position.active);
    const verdict = verifyRound({
      seed: round?.seed ?? '',
      commitment: round?.commitment ?? '',
      hands: order.map((seat) => position.hands[seat]),
      upcard: position.discard[0],
      handSize,
      matchSeed: replay.match_seed,
      roundNo: position.round_no,
    });
    checks.push(verdict.then((v) => ({ roundNo: position.round_no, position: index, verdict: v })));
  });
  return Promise.all(checks);
}

/**
 * A problem in words.
 * @param {Problem} problem
 * @param {(seat: number) => string} handName the player of the n-th hand dealt
 * @returns {string}
 */
function problemText(problem, handName) {
  const cards = (/** @type {string[] | undefined} */ list) => (list || []).map(cardShort).join(' ') || '–';
  switch (problem.code) {
    case 'hand_mismatch':
      return t('replay.check_hand', { name: handName(problem.hand ?? 0), missing: cards(problem.missing), extra: cards(problem.extra) });
    case 'upcard_mismatch':
      return t('replay.check_upcard', { expected: cardShort(problem.expected ?? ''), got: cardShort(problem.got ?? '') });
    case 'commitment_mismatch':
      return t('replay.check_commitment');
    case 'round_seed_mismatch':
      return t('replay.check_round_seed');
    default:
      return t('replay.check_bad_seed');
  }
}

/**
 * The list of rounds with a mark each: verified, or what does not match.
 * @param {ReplayData} replay
 * @param {RoundCheck[] | null} checks null while the check runs
 * @param {(seat: number) => string} seatName
 * @param {string | null} failure why the check could not run (no WebCrypto)
 * @returns {HTMLElement}
 */
export function renderShuffleCheck(replay, checks, seatName, failure) {
  const body = [];
  if (failure) body.push(h('p.form-error', failure));
  else if (!checks) body.push(h('p.muted', t('replay.checking')));
  else {
    body.push(h('ul.check-list', checks.map(({ roundNo, position, verdict }) => {
      const at = replay.positions[position];
      const order = dealOrder(at.dealer, at.active);
      const name = (/** @type {number} */ hand) => seatName(order[hand] ?? hand);
      const round = replay.rounds.find((r) => r.round_no === roundNo);
      return h('li', { 'data-round': roundNo, 'data-ok': String(verdict.ok), class: verdict.ok ? 'ok' : 'bad' },
        h('strong', verdict.ok ? `✓ ${t('replay.check_ok', { round: roundNo })}` : `✗ ${t('replay.check_failed', { round: roundNo })}`),
        verdict.ok ? null : h('ul', verdict.problems.map((p) => h('li', problemText(p, name)))),
        h('code', `seed ${round?.seed ?? ''}`),
        h('code', `sha256 ${verdict.commitment ?? ''}`));
    })));
  }
  return h('section.panel.replay-check', { id: 'shuffle-check', 'aria-labelledby': 'check-h', 'aria-busy': String(!checks && !failure) },
    h('h2', { id: 'check-h' }, t('replay.check_title')),
    h('p.muted', t('replay.check_text')),
    body);
}
