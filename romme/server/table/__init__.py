"""A table: its seats, its game, its deadlines and its computer opponents, run by
one actor (:class:`TableActor`) that sees the server only through a
:class:`TableHost`."""

from __future__ import annotations

from romme.server.table.actor import TableActor
from romme.server.table.host import Subscriber, TableHost
from romme.server.table.seats import CLOSED, FINISHED, PLAYING, WAITING, SeatState

__all__ = [
    "CLOSED",
    "FINISHED",
    "PLAYING",
    "WAITING",
    "SeatState",
    "Subscriber",
    "TableActor",
    "TableHost",
]
