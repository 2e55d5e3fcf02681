"""One client's WebSocket: its player, the tables it follows, its outgoing queue.

A message is written to the socket at once when the socket takes it without
waiting and nothing is queued before it (:meth:`WebSocketProtocol.send_now
<romme.server.wsprotocol.WebSocketProtocol.send_now>`: no task switch per frame).
Otherwise it goes into the connection's queue and its writer task sends it when
the socket drains, so a slow client slows nobody else down (past ``queue_limit``
waiting messages it is disconnected and may come back and resync). Either way
messages leave in the order they were sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from romme.engine.errors import EngineError
from romme.server import messages
from romme.server.errors import ProtocolError
from romme.server.wsprotocol import SEND_NOW
from romme.store import StoreError

if TYPE_CHECKING:
    from starlette.websockets import WebSocket

    from romme.server.lobby_feed import Subscription
    from romme.store import PlayerRecord

__all__ = ["Connection", "ConnectionRefused"]

log = logging.getLogger("romme.server.lobby")

_LOBBY_SLOT = "\x00lobby"
"""Queued in place of a lobby update: the writer sends the newest one then."""


class ConnectionRefused(Exception):
    """A new connection over a limit: it gets ``error`` and is closed with ``close_code``."""

    def __init__(self, error: ProtocolError, close_code: int = 4429) -> None:
        super().__init__(error.message)
        self.error = error
        self.close_code = close_code


class Connection:
    """One client's WebSocket: its player, its tables and its outgoing queue."""

    _ids = 0

    def __init__(
        self,
        websocket: WebSocket | None,
        player: PlayerRecord,
        address: str | None = None,
        queue_limit: int = 1000,
    ) -> None:
        Connection._ids += 1
        self.id = Connection._ids
        self.websocket = websocket
        self.player = player
        self.address = address
        """The client's network address (for the per-address connection limit)."""
        self.queue_limit = queue_limit
        self.player_id = player.id
        self.nickname = player.nickname
        self.level = player.level
        """The player's level when it connected (shown beside its nickname at a table)."""
        self.tables: set[int] = set()
        self.has_lobby = False
        """Whether its whole ``lobby`` was sent: lobby updates and lobby chat lines
        go to it only from then on (docs/protocol.md "On connect": ``welcome``,
        then ``lobby``)."""
        self.hidden_ids: set[int] = set()
        """The ids of the players this connection's player has blocked: their chat
        lines and invitations are not sent to it (:mod:`romme.server.social`). Ids,
        not nicknames: a blocked guest who registers under another name keeps its id."""
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._send_now: Callable[[str], bool] | None = (
            None if websocket is None else websocket.scope.get("extensions", {}).get(SEND_NOW)
        )
        """Writes a frame at once if the socket takes it (``None``: always queue)."""
        self._writing = False
        """The writer task holds a message the socket has not taken yet."""
        self.lobby_slot: str | None = None
        """The newest lobby update not yet sent (a slow client gets only the latest)."""
        self.lobby_sent: str | None = None
        """The last lobby update queued (the same lists again are not sent)."""
        self.lobby_feed: Subscription | None = None
        """Set when the client takes lobby deltas (``lobby_subscribe``)."""
        self.closed = False
        self.close_code = 1000
        self.refused: list[float] = []
        self.session_token: str | None = None
        """The token of the login session that opened the socket (a password change
        closes the sockets of the player's other sessions)."""

    def __repr__(self) -> str:
        return f"<Connection {self.id} {self.nickname}>"

    def send_from(self, sender_id: int, text: str) -> None:
        """A chat line of ``sender_id``: not sent if this player blocked that one."""
        if sender_id not in self.hidden_ids:
            self.send(text)

    def send(self, text: str) -> None:
        if self.closed or self._sent_now(text):
            return
        if self.queue.qsize() >= self.queue_limit:
            log.warning("slow_client_dropped", extra={"player": self.nickname})
            self.close(1008)
            return
        self.queue.put_nowait(text)

    def _sent_now(self, text: str) -> bool:
        """Whether ``text`` went to the socket at once (nothing waits before it)."""
        send_now = self._send_now
        return send_now is not None and not self._writing and self.queue.empty() and send_now(text)

    def send_json(self, data: dict[str, Any]) -> None:
        self.send(messages.dumps(data))

    def reply(self, data: dict[str, Any], msg_id: Any) -> None:
        """Send ``data`` as the reply to the request ``msg_id``."""
        self.send_json(messages.with_id(data, msg_id))

    def send_lobby(self, text: str) -> None:
        """Queue a lobby update; one that is still waiting is replaced, not repeated."""
        if self.closed:
            return
        if text == self.lobby_sent:
            return
        self.lobby_sent = text
        if self.lobby_slot is None and self._sent_now(text):
            return
        waiting = self.lobby_slot is not None
        self.lobby_slot = text
        if not waiting:
            self.queue.put_nowait(_LOBBY_SLOT)

    def error(self, exc: ProtocolError | EngineError | StoreError, msg_id: Any = None) -> None:
        self.send_json(messages.error(exc.code, exc.message, msg_id))

    def close(self, code: int = 1000) -> None:
        if not self.closed:
            self.closed = True
            self.close_code = code
            self.queue.put_nowait(None)

    async def writer(self) -> None:
        """Send what is queued until the connection closes."""
        websocket = self.websocket
        assert websocket is not None
        try:
            while True:
                text = await self.queue.get()
                if text is None:
                    break
                if text is _LOBBY_SLOT:
                    text, self.lobby_slot = self.lobby_slot, None
                    if text is None:
                        continue
                self._writing = True
                await websocket.send_text(text)
                self._writing = False
        except Exception:
            self.closed = True
        finally:
            with contextlib.suppress(Exception):
                await websocket.close(self.close_code)
