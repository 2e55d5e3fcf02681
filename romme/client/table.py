"""One table as the client knows it, kept up to date from the server's messages.

The server sends the whole table (``table``) on join, on reconnect and on
``resync``, and then one ``update`` per accepted action, each with the next
``version``. :class:`TableState` applies them in order and says when one is
missing (a gap), so that the client asks for what it missed instead of playing
on a stale view.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from romme.client.models import GameOver, NextRound, SeatInfo, Settings, Timer
from romme.engine.events import Event, event_from_json
from romme.engine.view import SeatView

__all__ = ["CLOSED", "FINISHED", "PLAYING", "WAITING", "TableState"]

WAITING = "waiting"
PLAYING = "playing"
FINISHED = "finished"
CLOSED = "closed"
"""Not a status the server sends: the table was closed before its game started
(``table_closed``), or it was not given back after a reconnection."""


@dataclass(slots=True)
class TableState:
    """What this connection knows of one table."""

    id: int
    host: str = ""
    settings: Settings = field(default_factory=lambda: Settings())
    status: str = WAITING
    seats: tuple[SeatInfo, ...] = ()
    my_seat: int | None = None
    """This player's seat, ``None`` when watching."""
    version: int | None = None
    """The version of the newest update applied (``None`` before the first ``table``)."""
    view: SeatView | None = None
    timer: Timer | None = None
    next_round: NextRound | None = None
    events: tuple[Event, ...] = ()
    """The events of the newest update (seen as this seat may see them)."""
    game_over: GameOver | None = None
    closed_reason: str | None = None
    chat: list[dict[str, Any]] = field(default_factory=list)
    resyncing: bool = False
    """A ``resync`` for a gap is under way: updates are not applied until it is answered."""

    @property
    def over(self) -> bool:
        """The game has ended (or the table closed): nothing more to play here."""
        return self.status in (FINISHED, CLOSED)

    @property
    def my_info(self) -> SeatInfo | None:
        if self.my_seat is None or self.my_seat >= len(self.seats):
            return None
        return self.seats[self.my_seat]

    @property
    def free_seats(self) -> int:
        return sum(1 for seat in self.seats if not seat.taken)

    def apply_table(self, data: dict[str, Any]) -> None:
        """The full state (``Table``): replaces everything known."""
        self.host = str(data.get("host", ""))
        self.settings = data.get("settings", {})
        self.status = str(data["status"])
        self.seats = SeatInfo.many(data.get("seats", []))
        self.my_seat = data.get("my_seat")
        self.version = int(data["version"])
        view = data.get("view")
        self.view = None if view is None else SeatView.from_json(view)
        self.timer = Timer.from_json(data.get("timer"))
        self.next_round = NextRound.from_json(data.get("next_round"))
        self.chat = list(data.get("chat", []))
        self.events = ()
        self.resyncing = False
        if self.status == FINISHED and self.view is not None and self.game_over is None:
            ratings = GameOver.ratings_from(data.get("ratings"))
            self.game_over = GameOver(self.id, self.view.winners, self.view.totals, ratings)

    def apply_update(self, data: dict[str, Any]) -> bool:
        """An ``update``; returns False if it does not follow the version known (a
        gap: the caller should ``resync``). An update already applied is ignored,
        but for the answer to this seat's own ``arrange`` that replaced its last
        one: the same version, with the new order in the view."""
        version = int(data["version"])
        events = data.get("events") or []
        rearranged = (
            version == self.version
            and data.get("view") is not None
            and bool(events)
            and all(e.get("type") == "hand_arranged" for e in events)
        )
        if self.version is not None and version <= self.version and not rearranged:
            return True
        if self.version is not None and version != self.version + 1 and not rearranged:
            return False
        self.version = version
        self.events = tuple(event_from_json(e) for e in data.get("events", []))
        view = data.get("view")
        if view is not None:
            self.view = SeatView.from_json(view)
            self.timer = Timer.from_json(data.get("timer"))
            self.next_round = NextRound.from_json(data.get("next_round"))
            if self.status == WAITING:
                self.status = PLAYING
        return True

    def apply_game_over(self, data: dict[str, Any]) -> None:
        self.game_over = GameOver.from_json(data)
        self.status = FINISHED
        self.timer = None

    def close(self, reason: str) -> None:
        self.status = CLOSED
        self.closed_reason = reason
        self.timer = None
