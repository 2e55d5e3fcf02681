"""Which computer opponent gives a player of a given rating an even game.

Ratings are the server's (``romme.store.ratings``): ``1500 + 20 (mu - 3 sigma)``
of openskill's Plackett-Luce model, a cautious figure that starts at 1500 and
settles as a player's games accumulate. :data:`LEVEL_RATINGS` holds where an
account of each named level settles on that scale: ``bench/calibrate_levels.py``
plays the measured ladder (the win rate of each level against the one below,
docs/bots.md) through the server's own rating function, game after game, until
the ratings settle, and averages them over many runs. A level between two named
ones (``casual+40``, :mod:`romme.bots.between`) stands between them as measured:
:data:`MIDPOINTS` holds where the ``+50`` level stands (its win rates against
both neighbours, as a share of the distance on the logistic scale the ratings
use), and the rest is read off the straight lines through that point.

>>> level_for_rating(1500), level_for_rating(1908), level_for_rating(2100)
('beginner', 'casual+50', 'expert')
>>> rating_of_level("casual+50")
1908.26
"""

from __future__ import annotations

from itertools import pairwise

from romme.bots.between import between_level, split_level

__all__ = ["LEVEL_RATINGS", "MIDPOINTS", "PLAY_NOW_STEP", "level_for_rating", "rating_of_level"]

LEVEL_RATINGS: dict[str, int] = {"beginner": 1759, "casual": 1844, "strong": 1946, "expert": 2059}
"""Where an account of each named level settles on the server's rating scale
(``bench/calibrate_levels.py``), weakest first."""

PLAY_NOW_STEP = 10
"""Play now chooses among levels 10% apart (``casual``, ``casual+10``, ...), so
that a handful of computer accounts, each rated on its own, covers the range."""

MIDPOINTS: dict[str, float] = {"beginner": 0.50, "casual": 0.63, "strong": 0.14}
"""Per named level: where the level halfway to the next (``casual+50``) stands
between the two, as a share of the rating distance (measured, docs/bots.md).
The turns of the level above count for more than their share between casual
and strong (``casual+50`` is most of the way), and for much less between strong
and expert, whose edge is a plan kept all round (it keeps its melds in hand
until it can go out), which turns played like the strong level break."""

_NAMED = tuple(LEVEL_RATINGS)


def _share(lower: str, percent: float) -> float:
    """The share of the way from ``lower`` to the next level that ``percent``
    per cent of the turns of the next level bring."""
    middle = MIDPOINTS[lower]
    if percent <= 50:
        return middle * percent / 50
    return middle + (1 - middle) * (percent - 50) / 50


def _percent(lower: str, share: float) -> float:
    """The inverse of :func:`_share`."""
    middle = MIDPOINTS[lower]
    if share <= middle:
        return 50 * share / middle
    return 50 + 50 * (share - middle) / (1 - middle)


def rating_of_level(level: str) -> float:
    """The rating a player of this level's strength settles at."""
    if level in LEVEL_RATINGS:
        return float(LEVEL_RATINGS[level])
    between = split_level(level, _NAMED)
    if between is None:
        raise ValueError(f"unknown level {level!r}")
    lower, upper, percent = between
    low, high = LEVEL_RATINGS[lower], LEVEL_RATINGS[upper]
    return round(low + (high - low) * _share(lower, percent), 2)


def level_for_rating(rating: float, step: int = PLAY_NOW_STEP) -> str:
    """The level whose rating is nearest to ``rating``, among the named levels
    and those ``step`` per cent apart between them: the weakest below its
    rating, the strongest above its."""
    if rating <= LEVEL_RATINGS[_NAMED[0]]:
        return _NAMED[0]
    for lower, upper in pairwise(_NAMED):
        low, high = LEVEL_RATINGS[lower], LEVEL_RATINGS[upper]
        if rating < high:
            percent = round(_percent(lower, (rating - low) / (high - low)) / step) * step
            return upper if percent >= 100 else between_level(lower, percent)
    return _NAMED[-1]
