"""What a finished game counts as, once leaving is taken into account.

A person who leaves a running game gives the seat to a computer opponent for
the rest of it (``left`` in the stored seats, with ``left_turns``: how many
turns the person had played at the table when leaving). The result of the
cards is the engine's; what the game *counts as* is decided here, from the
stored seats alone, so that a restart, a replay or a second node decides alike:

* **Void**: a person left before playing :data:`VOID_TURNS` turns of their own
  (and did not come back). Nothing of the game counts: the stakes go back to
  whoever paid them, nobody is rated, nobody gets experience or a game played.
  Giving up at once can then neither move chips to another account nor cost
  the leaver more than the time.
* Otherwise every seat given up is a **loss** in every figure: its places come
  after every seat that stayed, it is never a winner (not in the games won, not
  in the experience, not in the payout), and the leaver gets no experience. The
  winners are the engine's winners who stayed; if none stayed, the best-placed
  seats that stayed (by place: winners, then lower penalty points); if nobody
  stayed, nobody.

>>> seats = [{"player": 1}, {"player": 2, "left": True, "left_turns": 5}]
>>> judged = judge(seats, winners=[1], totals=[40, 0])
>>> judged.void, judged.gave_up, judged.winners, judged.places
(False, frozenset({1}), [0], [1, 2])
>>> judge([{"player": 1, "left": True, "left_turns": 1}, {"bot": "casual"}], [1], [9, 0]).void
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from romme.store import ratings

__all__ = ["VOID_TURNS", "Judged", "judge"]

VOID_TURNS = 3
"""A person who leaves before playing this many turns of their own voids the
game (a turn: a draw from the stock or the discard pile, or a knock, made by
the person, not by a timeout or a stand-in)."""


@dataclass(frozen=True, slots=True)
class Judged:
    """What a game counts as."""

    void: bool
    """Nothing of the game counts (stakes returned)."""
    gave_up: frozenset[int]
    """The seats whose person left and did not come back."""
    winners: list[int]
    """The seats that count as winners (and share the pot)."""
    places: list[int]
    """Each seat's place for the ratings: the seats given up last."""


def judge(stored_seats: Any, winners: Sequence[int], totals: Sequence[int]) -> Judged:
    """Judge a game from its stored seats (``GameTable.seats``) and the engine's
    ``winners`` and ``totals``. Seats the stored list does not describe stayed."""
    count = len(totals)
    seats = stored_seats if isinstance(stored_seats, list) else []
    gave_up: set[int] = set()
    void = False
    for index, seat in enumerate(seats[:count]):
        if not isinstance(seat, dict) or seat.get("bot") is not None or not seat.get("left"):
            continue
        gave_up.add(index)
        turns = seat.get("left_turns")
        # A seat stored before the turns were kept counts as given up late.
        if isinstance(turns, int) and not isinstance(turns, bool) and turns < VOID_TURNS:
            void = True
    engine_places = ratings.places(winners, totals)
    stayed = [s for s in range(count) if s not in gave_up]
    counted = [s for s in winners if s not in gave_up]
    if not counted and stayed:
        best = min(engine_places[s] for s in stayed)
        counted = [s for s in stayed if engine_places[s] == best]
    # Places: the stayed seats among themselves as the engine placed them, the
    # seats given up after all of them (sharing the last place).
    places = [0] * count
    for seat in stayed:
        places[seat] = 1 + sum(
            1
            for other in stayed
            if engine_places[other] < engine_places[seat]
            or (other in counted and seat not in counted)
        )
    for seat in gave_up:
        places[seat] = len(stayed) + 1
    return Judged(void, frozenset(gave_up), sorted(counted), places)
