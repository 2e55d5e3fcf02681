"""Sorting a hand (``arrange``) without growing the game's log.

A seat's order of its hand is stored like any action, so that it survives a
reload, a restart and a move of the table to another node. But a player (or a
script) can sort a thousand times between two moves, and no one else can see
the order of a hand: so the first ``arrange`` after a move is a new action (the
other seats get an update without events, so that their versions follow), and a
further one before the next move takes the place of that seat's stored arrange
(:meth:`romme.store.Store.replace_arrange`). The version stays, the log keeps the
latest order only, nobody but the sender is told, and the log replays to the
same game: between the replaced arrange and the log's end there are only
arranges of other seats, which leave this hand alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["arrange_to_replace"]


def arrange_to_replace(actions: Sequence[dict[str, Any]], seat: int) -> int | None:
    """The version of ``seat``'s ``arrange`` after the log's last move, if there
    is one (the log ends with arranges only, and one of them is the seat's): a
    new arrange of the seat takes its place."""
    for index in range(len(actions) - 1, -1, -1):
        record = actions[index]
        if record.get("type") != "arrange":
            return None
        if record.get("seat") == seat:
            return index + 1
    return None
