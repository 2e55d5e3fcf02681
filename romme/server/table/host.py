"""What a table needs from the server around it: the :class:`TableHost`, and the
:class:`Subscriber` (a connection as the table sees it).

The table knows nothing of the hub, the lobby or the WebSocket: the hub is one
host, a test's small fake is another (``tests/server/table``), so a table can be
driven with a manual clock and a real store, without a server process.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, Protocol

from romme.engine.errors import EngineError
from romme.server.botpool import BotPool
from romme.server.config import ServerOptions
from romme.server.movetimes import MoveTimes
from romme.server.protocol import ProtocolError
from romme.server.timers import Clock
from romme.store import Store, StoreError

__all__ = ["Subscriber", "TableHost"]


class Subscriber(Protocol):
    """A connection at a table: it is sent texts and errors, and knows its tables."""

    player_id: int
    nickname: str
    level: int
    tables: set[int]
    """The ids of the tables this connection follows (the table adds and removes
    its own)."""
    hidden_ids: set[int]
    """Ids of the players whose chat lines this connection is not sent (its player
    blocked them)."""

    def send(self, text: str) -> None:
        """Queue a message (JSON text); never blocks the table."""
        ...

    def send_from(self, sender_id: int, text: str) -> None:
        """Queue a chat line of the player ``sender_id``, unless this connection's
        player blocked that one."""
        ...

    def error(self, exc: ProtocolError | EngineError | StoreError, msg_id: Any = None) -> None:
        """Send an ``error`` (answering the request ``msg_id``)."""
        ...


class TableHost(Protocol):
    """The server around a table."""

    @property
    def store(self) -> Store:
        """Where the table's seats, actions, chat and result are kept."""
        ...

    @property
    def clock(self) -> Clock:
        """The clock of every deadline."""
        ...

    @property
    def options(self) -> ServerOptions: ...

    @property
    def move_times(self) -> MoveTimes:
        """Where the table counts how long its moves took (``/healthz``)."""
        ...

    @property
    def botpool(self) -> BotPool:
        """Where the computer opponents think."""
        ...

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run a background task (a computer opponent thinking)."""
        ...

    def lobby_changed(self) -> None:
        """What the lobby shows of the table changed (seats, status, round)."""
        ...

    def game_finished(self, table_id: int) -> None:
        """The game ended: its players return to the lobby."""
        ...

    def table_gone(self, table_id: int) -> None:
        """The table closed or finished long ago: it leaves memory (and is stopped)."""
        ...

    def lease_lost(self, table_id: int) -> None:
        """Another node took the table (its append was refused): it leaves memory
        here, and the connections at it are told to reconnect."""
        ...

    def restore_failed(self, table_id: int) -> None:
        """The restored table's log could not be replayed: it leaves memory, and
        its game stays in the store untouched (an alarm for the operator)."""
        ...
