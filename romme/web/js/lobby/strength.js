// @ts-check
// The computer opponent that gives a player of a given rating an even game, for
// "Play now". The same figures and rule as romme/bots/rating.py (a test keeps the
// two in step): where an account of each named level settles on the server's
// rating scale, and where the level halfway to the next ("casual+50") stands
// between two of them; the levels Play now chooses from are 10% apart.

/**
 * Settled ratings of the named levels, weakest first (bench/calibrate_levels.py).
 * @type {[string, number][]}
 */
export const LEVEL_RATINGS = [['beginner', 1759], ['casual', 1844], ['strong', 1946], ['expert', 2059]];

/**
 * Per named level: the share of the way to the next that its "+50" level stands at.
 * @type {Record<string, number>}
 */
export const MIDPOINTS = { beginner: 0.50, casual: 0.63, strong: 0.14 };

export const PLAY_NOW_STEP = 10;

/**
 * The level nearest to a rating: a named one, or one between two named ones in
 * steps of 10% (`casual+40`); the weakest below its rating, the strongest above.
 * @param {number} rating on the server's scale (a new player has 1500)
 * @returns {string}
 */
export function levelForRating(rating) {
  if (rating <= LEVEL_RATINGS[0][1]) return LEVEL_RATINGS[0][0];
  for (let i = 0; i + 1 < LEVEL_RATINGS.length; i++) {
    const [lower, low] = LEVEL_RATINGS[i];
    const [upper, high] = LEVEL_RATINGS[i + 1];
    if (rating < high) {
      const share = (rating - low) / (high - low);
      const middle = MIDPOINTS[lower];
      const percent = share <= middle ? 50 * share / middle : 50 + 50 * (share - middle) / (1 - middle);
      const stepped = pyRound(percent / PLAY_NOW_STEP) * PLAY_NOW_STEP;
      if (stepped >= 100) return upper;
      return stepped <= 0 ? lower : `${lower}+${stepped}`;
    }
  }
  return LEVEL_RATINGS[LEVEL_RATINGS.length - 1][0];
}

/**
 * Round half to even, as Python's round() does, so that both sides agree.
 * @param {number} x
 */
function pyRound(x) {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}
