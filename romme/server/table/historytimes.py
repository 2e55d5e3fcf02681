"""When each public move of the round was made, and which ones the clock made.

The engine's view carries the round's public history (``view.history``) without
times: the engine knows no clock. A client that comes to the table later (a
spectator, a reload) would stamp every earlier move with the moment it arrived,
and could not tell a move the clock made for a seat whose time ran out from the
player's own. :class:`HistoryTimes` keeps, beside the game, one entry per history
entry of the current round: the server's time in ms, and ``"by": "timeout"`` where
the turn clock played it. It is sent in ``Table.history_meta`` (docs/protocol.md).

It lives only in the table's process: after a restart (the game replayed from the
store) the round's earlier moves have no entry, and ``history_meta`` is shorter
than the history.
"""

from __future__ import annotations

from typing import Any

from romme.engine.game import Game

__all__ = ["HistoryTimes"]


class HistoryTimes:
    __slots__ = ("_round", "_entries", "_known")

    def __init__(self) -> None:
        self._round = -1
        self._entries: list[dict[str, Any]] = []
        self._known = 0
        """How many of the round's history entries there were before the first move
        noted (those have no time: made before a restart)."""

    def note(self, game: Game, start: int, by: str | None, now_ms: int) -> None:
        """A move was applied to ``game``; its history entries from ``start`` on (the
        history's length before the move, 0 if the move began a round) are new."""
        if game.round_no != self._round or start < self._known:
            self._round = game.round_no
            self._entries = []
            self._known = start
        covered = self._known + len(self._entries)
        if covered > start:
            del self._entries[start - self._known :]
        else:
            self._entries.extend({} for _ in range(start - covered))
        entry: dict[str, Any] = {"at": now_ms}
        if by == "timeout":
            entry["by"] = "timeout"
        self._entries.extend(entry for _ in range(start, len(game.history)))

    def to_json(self, game: Game | None) -> list[dict[str, Any]]:
        """One entry per entry of ``game``'s history (``{}`` where no time is known)."""
        if game is None or game.round_no != self._round:
            return []
        return [{}] * self._known + self._entries[: len(game.history) - self._known]
