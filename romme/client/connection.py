"""The client: one HTTP session and one WebSocket to a romme server, kept open.

:class:`Client` logs in, opens the WebSocket (with the session cookie and the
server's own ``Origin``), reads every server message in a task of its own and
keeps :attr:`Client.tables` up to date. Requests carry an id; each gets exactly
one reply (docs/protocol.md), returned by :meth:`Client.request` or raised as a
:class:`ServerError`. Sending stays under the server's rate limit (20 messages a
second, bursts of 40) by waiting, never by being refused.

A lost connection is opened again by itself, with growing pauses (or after the
``retry_ms`` of a server that is restarting); the server then sends the table of
every seat the player holds, so play goes on where it was. A missing ``update``
(a gap in the versions) is asked for again with ``resync``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.typing import Origin

from romme.client.errors import ConnectionRefused, Disconnected, ServerError
from romme.client.http import HttpSession
from romme.client.models import Lobby, NextRound, Player, SeatInfo, Settings, TableSummary
from romme.client.table import CLOSED, FINISHED, TableState
from romme.engine.actions import Action

__all__ = ["Client", "Listener"]

log = logging.getLogger("romme.client")

Listener = Callable[[dict[str, Any]], None]
"""Called with every message the server sends, after the client has applied it."""

FATAL_CLOSE_CODES = {4401: "not logged in (session not valid)", 4403: "foreign origin"}
MAX_MESSAGE = 4 * 2**20
RECONNECT_FIRST = 0.5
RECONNECT_MAX = 15.0


class _Bucket:
    """A token bucket a little below the server's (20/s, bursts of 40): wait, don't be refused."""

    def __init__(self, rate: float = 18.0, burst: int = 30) -> None:
        self.rate = rate
        self.burst = burst
        self._tokens = float(burst)
        self._stamp = time.monotonic()

    async def take(self) -> None:
        while True:
            now = time.monotonic()
            self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
            self._stamp = now
            if self._tokens >= 1:
                self._tokens -= 1
                return
            await asyncio.sleep((1 - self._tokens) / self.rate)


class Client:
    """A player's connection to one server. Use it as ``async with Client(url) as client``.

    ``server`` is the server's address, e.g. ``http://127.0.0.1:8000`` (``https`` for a
    server behind TLS). ``reconnect=False`` makes a lost connection final.
    """

    def __init__(
        self, server: str, *, reconnect: bool = True, request_timeout: float = 30.0
    ) -> None:
        self.http = HttpSession(server)
        self.origin = self.http.origin
        scheme, _, rest = self.origin.partition(":")
        self.ws_url = ("wss" if scheme == "https" else "ws") + ":" + rest + "/ws"
        self.reconnect = reconnect
        self.request_timeout = request_timeout
        self.player: Player | None = None
        self.lobby: Lobby | None = None
        self.tables: dict[int, TableState] = {}
        """Every table this connection sits at or watches, by id."""
        self.clock_offset_ms = 0
        """Server time minus local time (from ``welcome`` and ``pong``)."""
        self.connected = False
        self.failure: ConnectionRefused | None = None
        """Why the connection ended for good, if it did."""
        self._ws: ClientConnection | None = None
        self._ids = itertools.count(1)
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._listeners: list[Listener] = []
        self._bucket = _Bucket()
        self._change = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None
        self._closing = False
        self._retry_ms: int | None = None
        self._watching: set[int] = set()
        self._background: set[asyncio.Task[None]] = set()
        self._seated_before: set[int] = set()
        """The player's open tables when the newest connection was opened."""
        self._given_back: set[int] = set()
        """The tables the server has sent on the newest connection."""

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ------------------------------------------------------------ logging in

    async def login_guest(self, nickname: str) -> Player:
        """Play as a guest (no password; see :attr:`HttpSession.session_cookie` to keep
        the session for a later run)."""
        self.player = await self.http.guest(nickname)
        return self.player

    async def login(self, nickname: str, password: str) -> Player:
        self.player = await self.http.login(nickname, password)
        return self.player

    async def register(self, nickname: str, password: str) -> Player:
        self.player = await self.http.register(nickname, password)
        return self.player

    # ------------------------------------------------------------ connection

    async def connect(self) -> None:
        """Open the WebSocket; return once the server has sent the lobby and the table
        of every seat this player holds (they are in :attr:`tables` then)."""
        if self._reader is not None:
            raise RuntimeError("already connected")
        self._closing = False
        await self._open()
        self._reader = asyncio.create_task(self._run(), name="romme-client-reader")
        await self._settle()

    async def close(self) -> None:
        """Close the connection for good (the seats stay the player's)."""
        self._closing = True
        if self._ws is not None:
            await self._ws.close()
        for task in [self._reader, *self._background]:
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._reader = None
        await self.http.close()

    async def _open(self) -> None:
        cookie = self.http.session_cookie
        headers = {"Cookie": f"romme_session={cookie}"} if cookie else {}
        try:
            ws = await connect(
                self.ws_url,
                origin=Origin(self.origin),
                additional_headers=headers,
                user_agent_header="romme.client",
                max_size=MAX_MESSAGE,
            )
        except (OSError, InvalidHandshake, TimeoutError) as exc:
            raise Disconnected(f"cannot connect to {self.ws_url}: {exc}") from exc
        # welcome and lobby come first; a refused connection gets an error and a close.
        welcomed = False
        try:
            async with asyncio.timeout(self.request_timeout):
                while self.lobby is None or not welcomed:
                    data = json.loads(await ws.recv())
                    if data.get("type") == "welcome":
                        welcomed = True
                        self.lobby = None
                    self._handle(data)
        except ConnectionClosed as exc:
            code = ws.close_code or 1006
            if code in FATAL_CLOSE_CODES:
                self.failure = ConnectionRefused(code, FATAL_CLOSE_CODES[code])
                raise self.failure from exc
            raise Disconnected(f"the server closed the connection ({code})") from exc
        except TimeoutError as exc:
            await ws.close()
            raise Disconnected("the server did not say welcome") from exc
        self._ws = ws
        self.connected = True

    async def _settle(self) -> None:
        """Wait until the server has sent what it sends on connect (a ping's answer
        comes after it); the player's tables not given back since are gone."""
        pong = await self.request({"type": "ping"})
        self._clock(pong)
        for table_id in self._seated_before - self._given_back:
            self.tables[table_id].close("not given back after reconnecting")
        for table_id in self._watching:
            with contextlib.suppress(ServerError):
                await self.request({"type": "watch_table", "table": table_id})
        self._notify()

    async def _run(self) -> None:
        """Read messages until closed; reconnect when the connection drops."""
        delay = RECONNECT_FIRST
        while True:
            ws = self._ws
            assert ws is not None
            try:
                async for text in ws:
                    self._receive(text)
                    delay = RECONNECT_FIRST
            except ConnectionClosed:
                pass
            self.connected = False
            self._fail_pending()
            self._notify()
            code = ws.close_code or 1006
            if self._closing:
                return
            if code in FATAL_CLOSE_CODES or not self.reconnect:
                self.failure = ConnectionRefused(code, FATAL_CLOSE_CODES.get(code, "closed"))
                self._notify()
                return
            log.info("connection lost (%s), reconnecting", code)
            while True:
                # A restarting server says when to come back; after that, or after any
                # other loss, the pauses grow up to RECONNECT_MAX.
                if self._retry_ms is not None:
                    wait, self._retry_ms = self._retry_ms / 1000, None
                else:
                    wait, delay = delay, min(RECONNECT_MAX, delay * 2)
                await asyncio.sleep(wait)
                try:
                    await self._open()
                except ConnectionRefused:
                    self._notify()
                    return
                except Disconnected as exc:
                    log.info("%s; trying again", exc)
                    continue
                break
            # This task reads the answers that settling waits for: settle beside it.
            self._spawn(self._settle_again())

    async def _settle_again(self) -> None:
        try:
            await self._settle()
        except (Disconnected, ServerError, TimeoutError) as exc:
            log.info("reconnected, but not settled: %s", exc)
        else:
            log.info("reconnected")

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _fail_pending(self) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_exception(Disconnected("the connection was lost"))
        self._pending.clear()

    # ------------------------------------------------------------- messages

    def add_listener(self, listener: Listener) -> None:
        """Call ``listener`` with every server message (chat, invitations, ...)."""
        self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        self._listeners.remove(listener)

    def _clock(self, data: dict[str, Any]) -> None:
        server_time = data.get("server_time")
        if isinstance(server_time, int):
            self.clock_offset_ms = server_time - int(time.time() * 1000)

    def server_now_ms(self) -> int:
        """The server's clock now, in milliseconds (timer deadlines are on it)."""
        return int(time.time() * 1000) + self.clock_offset_ms

    def _table(self, table_id: Any) -> TableState:
        state = self.tables.get(table_id)
        if state is None:
            state = self.tables[table_id] = TableState(table_id)
        return state

    def _receive(self, text: str | bytes) -> None:
        """One message from the socket. One that cannot be understood is logged and
        skipped: the connection goes on (a missing update is then asked for again)."""
        try:
            data = json.loads(text)
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            self._handle(data)
        except Exception:
            log.exception("cannot read a message from the server: %.200r", text)

    def _handle(self, data: dict[str, Any]) -> None:
        kind = data.get("type")
        table_id = data.get("table")
        if kind == "welcome":
            self.player = Player.from_json(data["player"])
            self._clock(data)
            self._seated_before = {
                tid for tid, t in self.tables.items() if not t.over and t.my_seat is not None
            }
            self._given_back = set()
        elif kind in ("lobby", "lobby_update"):
            self.lobby = Lobby.from_json(data)
        elif kind == "table":
            self._table(data["table"]["id"]).apply_table(data["table"])
            self._given_back.add(data["table"]["id"])
        elif kind == "update" and table_id in self.tables:
            state = self.tables[table_id]
            if not state.apply_update(data) and not state.resyncing:
                self._resync_gap(state)
        elif kind == "seat_update" and table_id in self.tables:
            self.tables[table_id].seats = SeatInfo.many(data.get("seats", []))
        elif kind == "next_round" and table_id in self.tables:
            self.tables[table_id].next_round = NextRound.from_json(data.get("next_round"))
        elif kind == "game_over" and table_id in self.tables:
            self.tables[table_id].apply_game_over(data)
        elif kind == "table_closed" and table_id in self.tables:
            self.tables[table_id].close(str(data.get("reason", "")))
        elif kind == "table_chat" and table_id in self.tables:
            self.tables[table_id].chat.append(data["message"])
        elif kind == "shutdown":
            self._retry_ms = int(data.get("retry_ms", 2000))
        elif kind == "error" and data.get("id") is None:
            log.warning("server error: %s %s", data.get("code"), data.get("message"))
        msg_id = data.get("id")
        if isinstance(msg_id, str) and msg_id in self._pending:
            future = self._pending.pop(msg_id)
            if not future.done():
                future.set_result(data)
        for listener in list(self._listeners):
            try:
                listener(data)
            except Exception:  # a listener's bug must not stop the reading
                log.exception("listener failed on a %s message", kind)
        self._notify()

    def _resync_gap(self, state: TableState) -> None:
        state.resyncing = True
        since = state.version

        async def resync() -> None:
            try:
                await self.request({"type": "resync", "table": state.id, "since": since})
            except (ServerError, Disconnected) as exc:
                log.info("resync of table %s failed: %s", state.id, exc)
            finally:
                state.resyncing = False

        self._spawn(resync())

    def _notify(self) -> None:
        """Wake everyone waiting in :meth:`wait_changed`."""
        self._change.set()
        self._change = asyncio.Event()

    def next_change(self) -> asyncio.Event:
        """An event set at the next change of the client's state: take it before
        looking at the state, then wait on it, and no change can slip in between."""
        return self._change

    async def wait_changed(
        self, timeout: float | None = None, change: asyncio.Event | None = None
    ) -> bool:
        """Wait until the client's state changes (any message, a lost or regained
        connection), or until ``change`` (from :meth:`next_change`) is set; False
        if ``timeout`` seconds passed first."""
        change = change or self._change
        try:
            await asyncio.wait_for(change.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def wait_for(self, condition: Callable[[], bool], timeout: float | None = None) -> None:
        """Wait until ``condition()`` holds (checked after every change); raise
        TimeoutError after ``timeout`` seconds, or the :attr:`failure` if the
        connection ends for good meanwhile."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            change = self._change
            if condition():
                return
            if self.failure is not None:
                raise self.failure
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise TimeoutError
            await self.wait_changed(left, change)

    # ------------------------------------------------------------- requests

    async def send(self, message: dict[str, Any]) -> None:
        """Send a message as it is (no id: no reply is awaited)."""
        await self._bucket.take()
        ws = self._ws
        if ws is None or not self.connected:
            raise Disconnected("not connected")
        try:
            await ws.send(json.dumps(message))
        except ConnectionClosed as exc:
            raise Disconnected("the connection was lost") from exc

    async def request(
        self, message: dict[str, Any], timeout: float | None = None
    ) -> dict[str, Any]:
        """Send ``message`` with a fresh id; return the reply carrying that id, or raise
        :class:`ServerError` for an ``error``, :class:`Disconnected` if the connection
        drops first, TimeoutError after ``timeout`` (default :attr:`request_timeout`)."""
        msg_id = f"c{next(self._ids)}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = future
        try:
            await self.send({**message, "id": msg_id})
            reply = await asyncio.wait_for(future, timeout or self.request_timeout)
        finally:
            self._pending.pop(msg_id, None)
        if reply.get("type") == "error":
            raise ServerError(str(reply.get("code")), str(reply.get("message", "")))
        return reply

    async def _table_request(self, message: dict[str, Any]) -> TableState:
        reply = await self.request(message)
        return self.tables[int(reply["table"]["id"])]

    async def create_table(self, settings: Settings | None = None) -> TableState:
        """Open a table with this player at seat 0 as its host."""
        return await self._table_request({"type": "create_table", "settings": settings or {}})

    async def join_table(self, table_id: int) -> TableState:
        """Take the first free seat (or one's own seat back)."""
        return await self._table_request({"type": "join_table", "table": table_id})

    async def watch_table(self, table_id: int) -> TableState:
        """Follow a table as a spectator (followed again after a reconnection)."""
        state = await self._table_request({"type": "watch_table", "table": table_id})
        self._watching.add(table_id)
        return state

    async def leave_table(self, table_id: int) -> None:
        await self.request({"type": "leave_table", "table": table_id})
        self._watching.discard(table_id)
        state = self.tables.pop(table_id, None)
        if state is not None and state.status not in (FINISHED, CLOSED):
            state.close("left")

    async def set_seat(self, table_id: int, seat: int, bot: str | None) -> None:
        """Host only, before the start: a computer opponent in seat ``seat`` (or none)."""
        await self.request({"type": "set_seat", "table": table_id, "seat": seat, "bot": bot})

    async def start_game(self, table_id: int, fill: str | None = None) -> None:
        """Host only: deal; ``fill`` puts computer opponents of that level in the free seats."""
        message: dict[str, Any] = {"type": "start_game", "table": table_id}
        if fill is not None:
            message["fill"] = fill
        await self.request(message)

    async def act(self, table_id: int, action: Action) -> TableState:
        """Play an engine action for this player's seat (its ``seat`` is left out: the
        server fills it in). Returns once the server has committed it and sent the new
        view; raises :class:`ServerError` with the engine's code if it is refused."""
        data = {k: v for k, v in action.to_json().items() if k != "seat"}
        await self.request({"type": "action", "table": table_id, "action": data})
        return self.tables[table_id]

    async def next_round(self, table_id: int) -> None:
        """ "Next" after a round summary."""
        await self.request({"type": "next_round", "table": table_id})

    async def back(self, table_id: int) -> None:
        """End ``away``: this player plays the seat again, not the server's computer opponent."""
        await self.request({"type": "back", "table": table_id})

    async def resync(self, table_id: int) -> TableState:
        """Ask for the whole table again."""
        await self.request({"type": "resync", "table": table_id})
        return self.tables[table_id]

    async def chat(self, text: str, table_id: int | None = None) -> None:
        """Say something in the lobby, or at a table."""
        if table_id is None:
            await self.request({"type": "lobby_chat", "text": text})
        else:
            await self.request({"type": "table_chat", "table": table_id, "text": text})

    async def hint(self, table_id: int) -> dict[str, Any]:
        """The server's hint (the strong level's move, without ``seat``, and a reason)."""
        return await self.request({"type": "hint", "table": table_id})

    async def list_tables(self) -> list[TableSummary]:
        """Every open table of the server, waiting or running (over HTTP)."""
        return await self.http.tables()
