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

The model's number is the *ordinal* ``mu - 3 * sigma``: a cautious estimate that
starts at 0 and grows as a player wins and the model grows sure of it. It is kept
as it is (the store sorts by it); players see it on the scale they know from chess
and most games: a new player has 1500, and one point of the ordinal is worth
``SCALE`` rating points (openskill's ``ordinal(alpha=SCALE, target=BASE)``). On
that scale one game moves a new player by a few dozen points, as players expect.

>>> ordinal(DEFAULT_MU, DEFAULT_SIGMA)
0.0
>>> shown(0.0), shown(-1.83), shown(3.44)
(1500, 1463, 1569)
"""

from __future__ import annotations

from collections.abc import Sequence

from openskill.models import PlackettLuce

__all__ = ["BASE", "DEFAULT_MU", "DEFAULT_SIGMA", "SCALE", "ordinal", "places", "rate", "shown"]

_MODEL = PlackettLuce()
DEFAULT_MU: float = float(_MODEL.mu)
DEFAULT_SIGMA: float = float(_MODEL.sigma)
BASE = 1500
"""The rating shown for a new player (ordinal 0)."""
SCALE = 20
"""Rating points per point of the ordinal."""


def ordinal(mu: float, sigma: float) -> float:
    """The rating shown for ``(mu, sigma)``: ``mu - 3 sigma``."""
    return float(mu - 3.0 * sigma)


def shown(value: float) -> int:
    """The rating players see for an ordinal: ``BASE + SCALE * ordinal``, a whole
    number. Every number the protocol calls a rating goes through here, so that the
    lobby, player info, rankings and the game's end agree."""
    return BASE + round(SCALE * value)


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
