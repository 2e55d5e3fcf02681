"""Ratings: openskill's Plackett-Luce model for games of 2 to 4 seats.

Every seat is a team of one. A seat's place comes from the game's winners first
(they share place 1), then from the penalty totals, lower being better; equal
totals share a place (competition ranking: 1, 2, 2, 4).

>>> places(winners=[2], totals=[40, 120, 3, 40])
[2, 4, 1, 2]
>>> before = [(DEFAULT_MU, DEFAULT_SIGMA)] * 2
>>> (winner_mu, _), (loser_mu, _) = rate(before, places([0], [0, 30]))
>>> winner_mu > DEFAULT_MU > loser_mu
True

The number shown is the *ordinal* ``mu - 3 * sigma``: a cautious estimate that
starts at 0 and grows as a player wins and the model grows sure of it.

>>> ordinal(DEFAULT_MU, DEFAULT_SIGMA)
0.0
"""

from __future__ import annotations

from collections.abc import Sequence

from openskill.models import PlackettLuce

__all__ = ["DEFAULT_MU", "DEFAULT_SIGMA", "ordinal", "places", "rate", "shown"]

_MODEL = PlackettLuce()
DEFAULT_MU: float = float(_MODEL.mu)
DEFAULT_SIGMA: float = float(_MODEL.sigma)


def ordinal(mu: float, sigma: float) -> float:
    """The rating shown for ``(mu, sigma)``: ``mu - 3 sigma``."""
    return float(mu - 3.0 * sigma)


def shown(value: float) -> float:
    """A rating as the protocol shows it: rounded to one decimal."""
    rounded = round(value, 1)
    return 0.0 if rounded == 0 else rounded  # never "-0.0"


def places(winners: Sequence[int], totals: Sequence[int]) -> list[int]:
    """Each seat's place (1 is best): winners first, then by lower total."""
    winning = set(winners)

    def better(a: int, b: int) -> bool:
        if (a in winning) != (b in winning):
            return a in winning
        return a not in winning and totals[a] < totals[b]

    seats = range(len(totals))
    return [1 + sum(1 for other in seats if better(other, seat)) for seat in seats]


def rate(
    ratings: Sequence[tuple[float, float]], seat_places: Sequence[int]
) -> list[tuple[float, float]]:
    """The ``(mu, sigma)`` of every seat after a game with these places."""
    if len(ratings) != len(seat_places):
        raise ValueError("one place per rating")
    teams = [[_MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]
    after = _MODEL.rate(teams, ranks=[float(p) for p in seat_places])
    return [(float(team[0].mu), float(team[0].sigma)) for team in after]
