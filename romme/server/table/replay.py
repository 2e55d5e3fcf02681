"""What a table takes from its action log when it is rebuilt after a restart,
besides the game itself: the running deadlines and the timeouts in a row."""

from __future__ import annotations

from typing import Any

from romme.engine.events import Discarded, Event, TurnStarted
from romme.engine.game import Game

__all__ = ["events_after_replay", "timeouts_in_a_row"]


def events_after_replay(game: Game) -> list[Event]:
    """Events standing for the state after a replay (to set the deadlines): the
    turn that runs, and the knock window if one is open."""
    if game.in_round:
        if game.knock is not None and game.knock_seats():
            return [
                Discarded(game.knock.discarder, game.discard[-1], game.knock_seats()),
                TurnStarted(game.current),
            ]
        return [TurnStarted(game.current)]
    return []


def timeouts_in_a_row(actions: list[dict[str, Any]], seats: int) -> list[int]:
    """Timeouts in a row per seat at the end of the log: a discard the server
    played (``"by": "timeout"``) counts one, a move of the player's own (sorting
    the hand aside) starts again from none."""
    counts = [0] * seats
    for record in actions:
        seat = record.get("seat")
        if not isinstance(seat, int) or not 0 <= seat < seats:
            continue
        if record.get("by") == "timeout":
            if record.get("type") == "discard":
                counts[seat] += 1
        elif record.get("by") is None and record.get("type") != "arrange":
            counts[seat] = 0
    return counts
