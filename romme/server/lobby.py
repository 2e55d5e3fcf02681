"""The lobby: who is online, the open tables, lobby chat, invitations, and the
dispatch of every client message to the lobby or to a table's actor.

A :class:`Connection` is one WebSocket. It never writes to its socket from
another task: messages go into its queue and its writer task sends them, so a
slow client slows nobody else down (past ``send_queue_limit`` waiting messages
it is disconnected and may come back and resync).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Coroutine
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from romme.bots import LEVELS
from romme.engine.errors import EngineError
from romme.engine.fairness import new_match_seed
from romme.engine.rules import Rules
from romme.server import PROTOCOL_VERSION
from romme.server.auth import SESSION_MAX_AGE
from romme.server.botpool import BotPool
from romme.server.config import ServerOptions
from romme.server.gcpolicy import GcPolicy
from romme.server.guests import GuestNames
from romme.server.protocol import (
    CHAT_MAX,
    ActionMsg,
    AnswerInvitation,
    Back,
    ClientMessage,
    CreateTable,
    Hint,
    Invite,
    JoinTable,
    LeaveTable,
    LobbyChat,
    NextRoundMsg,
    Ping,
    PlayerInfoMsg,
    ProtocolError,
    Resync,
    SetSeat,
    StartGame,
    TableChat,
    WatchTable,
    dumps,
    error_message,
    settings_from_json,
)
from romme.server.table import CLOSED, FINISHED, PLAYING, WAITING, SeatState, TableActor
from romme.server.timers import Clock
from romme.store import StoreError

if TYPE_CHECKING:
    from starlette.websockets import WebSocket

    from romme.store import PlayerRecord, Store

__all__ = ["Connection", "Hub"]

log = logging.getLogger("romme.server.lobby")

LOBBY_PLAYERS = 200
"""The lobby lists at most this many players online (``online`` counts them all)."""
LOBBY_RUNNING = 50
"""The lobby lists at most this many running games (``playing`` counts them all)."""
LOBBY_WAITING = 50
"""The lobby lists at most this many open waiting tables (the newest), besides the
tables a player sits at or is invited to, so that its size stays bounded."""


def _as_json(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    to_json = getattr(value, "to_json", None)
    if to_json is not None:
        data: dict[str, Any] = to_json()
        return data
    raise TypeError(f"cannot send {type(value).__name__}")


def _ms(value: Any) -> int | None:
    """Milliseconds since the epoch from a datetime or a number."""
    if value is None:
        return None
    if isinstance(value, int | float):
        return int(value)
    timestamp = getattr(value, "timestamp", None)
    return int(timestamp() * 1000) if timestamp is not None else None


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
        hub: Hub,
        websocket: WebSocket | None,
        player: PlayerRecord,
        address: str | None = None,
    ) -> None:
        Connection._ids += 1
        self.id = Connection._ids
        self.hub = hub
        self.websocket = websocket
        self.player = player
        self.address = address
        """The client's network address (for the per-address connection limit)."""
        self.player_id = player.id
        self.nickname = player.nickname
        self.tables: set[int] = set()
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.lobby_slot: str | None = None
        """The newest lobby update not yet sent (a slow client gets only the latest)."""
        self.closed = False
        self.close_code = 1000
        self.refused: list[float] = []

    def __repr__(self) -> str:
        return f"<Connection {self.id} {self.nickname}>"

    def send(self, text: str) -> None:
        if self.closed:
            return
        if self.queue.qsize() >= self.hub.options.send_queue_limit:
            log.warning("slow_client_dropped", extra={"player": self.nickname})
            self.close(1008)
            return
        self.queue.put_nowait(text)

    def send_json(self, data: dict[str, Any]) -> None:
        self.send(dumps(data))

    def send_lobby(self, text: str) -> None:
        """Queue a lobby update; one that is still waiting is replaced, not repeated."""
        if self.closed:
            return
        waiting = self.lobby_slot is not None
        self.lobby_slot = text
        if not waiting:
            self.queue.put_nowait(_LOBBY_SLOT)

    def error(self, exc: ProtocolError | EngineError | StoreError, msg_id: Any = None) -> None:
        self.send_json(error_message(exc.code, exc.message, msg_id))

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
                await websocket.send_text(text)
        except Exception:
            self.closed = True
        finally:
            with contextlib.suppress(Exception):
                await websocket.close(self.close_code)

    @property
    def in_lobby(self) -> bool:
        """Whether lobby updates go to this connection (not while at a running game)."""
        hub = self.hub
        for table_id in self.tables:
            table = hub.tables.get(table_id)
            if table is not None and table.status == PLAYING:
                return False
        return True


class Hub:
    """The lobby and the registry of tables and connections."""

    def __init__(
        self, store: Store, options: ServerOptions, clock: Clock, botpool: BotPool
    ) -> None:
        self.store = store
        self.options = options
        self.clock = clock
        self.botpool = botpool
        self.tables: dict[int, TableActor] = {}
        self.connections: set[Connection] = set()
        self.by_player: dict[int, set[Connection]] = {}
        self.by_address: dict[str, set[Connection]] = {}
        self.lobby_chat: list[dict[str, Any]] = []
        self.shutting_down = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self._lobby_dirty = False
        self._lobby_task: asyncio.Task[None] | None = None
        self._invitation_timers: dict[int, Any] = {}
        self._orphan_timers: dict[int, asyncio.TimerHandle] = {}
        """Waiting tables whose host has no connection: closed when the timer fires."""
        self._players_cache: list[dict[str, Any]] | None = None
        self.guests = GuestNames(self)
        self.unrestored: list[int] = []
        """Unfinished tables of the store that could not be rebuilt at the start."""

    # ------------------------------------------------------------ lifecycle

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run a background task, keeping a reference until it ends."""
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def start(self) -> None:
        """Rebuild the unfinished tables from the store and start their timers."""
        records = await self.store.unfinished_tables()
        for record in records:
            try:
                await self._restore(record)
            except Exception:
                # The game stays in the store untouched; /healthz reports it until
                # a server that can rebuild it starts.
                self.unrestored.append(record.id)
                log.exception("restore_failed", extra={"table": record.id})
        for table in list(self.tables.values()):
            self._watch_host(table)
        chat = await self.store.recent_chat(None, 50)
        self.lobby_chat = [self.chat_json(m) for m in chat]
        self._lobby_task = asyncio.create_task(self._lobby_flusher())
        self.spawn(self._watch_loop())
        self.spawn(self._housekeeping_loop())
        if self.options.gc_freeze_seconds:
            self.spawn(self._gc_loop())
        log.info("hub_started", extra={"tables": len(self.tables)})

    async def _housekeeping_loop(self) -> None:
        """Now and then: free the nicknames of guests whose sessions have expired,
        delete old lobby chat, old invitations and tables closed without a game."""
        every = self.options.housekeeping_seconds
        await asyncio.sleep(min(every, 60.0))
        while True:
            now = datetime.now(UTC)
            try:
                counts = await self.store.prune(
                    guests_before=now - timedelta(seconds=SESSION_MAX_AGE),
                    chat_before=now - timedelta(days=self.options.lobby_chat_days),
                    invitations_before_ms=int((now - timedelta(days=1)).timestamp() * 1000),
                    closed_before=now - timedelta(days=1),
                )
                log.info("housekeeping", extra=counts)
                self.guests.forget_old()
            except Exception:
                log.exception("housekeeping_failed")
            await asyncio.sleep(every)

    async def _gc_loop(self) -> None:
        """Keep the garbage collector's pauses short (see :mod:`romme.server.gcpolicy`)."""
        policy = GcPolicy(self.options.gc_freeze_seconds, self.options.gc_full_seconds)
        policy.start()
        try:
            while True:
                await asyncio.sleep(min(5.0, self.options.gc_freeze_seconds))
                policy.tick()
        finally:
            policy.stop()

    async def _watch_loop(self, every: float = 0.5, late: float = 0.1) -> None:
        """Log when the event loop answers late (something blocked it)."""
        loop = asyncio.get_running_loop()
        while True:
            planned = loop.time() + every
            await asyncio.sleep(every)
            lag = loop.time() - planned
            if lag > late:
                log.warning("event_loop_lag", extra={"ms": round(lag * 1000)})

    async def _restore(self, record: Any) -> None:
        if record.status not in (WAITING, PLAYING):
            return
        settings = settings_from_json(record.settings)
        rules = Rules.from_json(record.rules)
        seats = [SeatState.from_store(s) for s in record.seats]
        host = await self.store.get_player(record.host_id)
        table = TableActor(
            self,
            record.id,
            record.host_id,
            host.nickname if host else "?",
            settings,
            rules,
            seats,
            bytes(record.match_seed),
            record.status,
        )
        table.restore(list(record.actions), _ms(record.last_action_at))
        chat = await self.store.recent_chat(record.id, 50)
        table.chat.extend(self.chat_json(m) for m in chat)
        self.tables[table.id] = table
        table.start()
        table.post(table.resume)
        log.info(
            "table_restored",
            extra={"table": table.id, "version": table.version, "status": table.status},
        )

    async def begin_shutdown(self) -> None:
        """Stop taking moves, let the tables finish their writes, tell the clients."""
        if self.shutting_down:
            return
        self.shutting_down = True
        log.info("shutdown_started", extra={"connections": len(self.connections)})
        await asyncio.gather(
            *(table.stop() for table in list(self.tables.values())), return_exceptions=True
        )
        notice = dumps(
            {
                "type": "shutdown",
                "message": "the server is restarting; reconnect in a moment",
                "retry_ms": 2000,
            }
        )
        for conn in list(self.connections):
            conn.send(notice)
            conn.close(1012)

    async def close(self) -> None:
        await self.begin_shutdown()
        if self._lobby_task is not None:
            self._lobby_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._lobby_task
        for timer in [*self._invitation_timers.values(), *self._orphan_timers.values()]:
            timer.cancel()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    # ---------------------------------------------------------- connections

    def _admit(self, conn: Connection) -> None:
        """Refuse a connection over the per-player or per-address limit."""
        per_player = self.options.max_connections_per_player
        if per_player and len(self.by_player.get(conn.player_id, ())) >= per_player:
            raise ConnectionRefused(
                ProtocolError(
                    "too_many_connections",
                    f"a player may hold at most {per_player} connections "
                    "at once: close another tab or device first",
                )
            )
        per_address = self.options.max_connections_per_address
        if (
            per_address
            and conn.address is not None
            and len(self.by_address.get(conn.address, ())) >= per_address
        ):
            raise ConnectionRefused(
                ProtocolError(
                    "too_many_connections",
                    f"at most {per_address} connections from one address at once",
                )
            )

    async def connect(self, conn: Connection) -> None:
        self._admit(conn)
        self.connections.add(conn)
        first = conn.player_id not in self.by_player
        self.by_player.setdefault(conn.player_id, set()).add(conn)
        if conn.address is not None:
            self.by_address.setdefault(conn.address, set()).add(conn)
        if first:
            self._players_cache = None
            self._host_back(conn.player_id)
        conn.send_json(
            {
                "type": "welcome",
                "protocol": PROTOCOL_VERSION,
                "player": conn.player.to_json(),
                "server_time": self.clock.now_ms(),
                "bot_levels": list(LEVELS),
                "chat_max": CHAT_MAX,
            }
        )
        conn.send_json(await self._lobby_message(conn))
        # The tables the player sits at, also a game that ended while the player was
        # away (kept for a while after its end): a page that comes back learns how
        # it ended instead of showing the last position it saw.
        for table in list(self.tables.values()):
            seat = table.seat_of(conn.player_id)
            if seat is None or table.status not in (WAITING, PLAYING, FINISHED):
                continue
            if table.seats[seat].left:
                continue
            with contextlib.suppress(ProtocolError, EngineError, StoreError):
                await table.call(table.subscribe, conn)
        if first:
            self.lobby_changed()

    async def disconnect(self, conn: Connection) -> None:
        conn.close()
        self.connections.discard(conn)
        if conn.address is not None:
            same = self.by_address.get(conn.address)
            if same is not None:
                same.discard(conn)
                if not same:
                    del self.by_address[conn.address]
        conns = self.by_player.get(conn.player_id)
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del self.by_player[conn.player_id]
                self.guests.hold(conn.player_id)
                self._players_cache = None
                self.lobby_changed()
                for hosted in list(self.tables.values()):
                    if hosted.host_id == conn.player_id:
                        self._watch_host(hosted)
        for table_id in list(conn.tables):
            table = self.tables.get(table_id)
            if table is not None and not self.shutting_down:
                table.post(table.unsubscribe, conn)

    def _watch_host(self, table: TableActor) -> None:
        """A waiting table whose host has no connection is closed after
        ``waiting_table_grace`` seconds unless the host comes back (a reload or a
        short network loss keeps it; a host who went for good frees the lobby)."""
        if (
            table.status != WAITING
            or table.host_id in self.by_player
            or table.id in self._orphan_timers
        ):
            return
        grace = max(0.0, self.options.waiting_table_grace)
        loop = asyncio.get_running_loop()
        self._orphan_timers[table.id] = loop.call_later(
            grace, lambda: table.post(self._close_orphan, table)
        )

    def _host_back(self, player_id: int) -> None:
        for table_id, timer in list(self._orphan_timers.items()):
            table = self.tables.get(table_id)
            if table is None or table.host_id == player_id:
                timer.cancel()
                del self._orphan_timers[table_id]

    async def _close_orphan(self, table: TableActor) -> None:
        """Runs in the table's task: close it if it still waits without its host."""
        self._orphan_timers.pop(table.id, None)
        if table.status == WAITING and table.host_id not in self.by_player:
            log.info("waiting_table_abandoned", extra={"table": table.id})
            await table.close("the host has gone")

    def online_players(self) -> list[dict[str, Any]]:
        """Players online (at most ``LOBBY_PLAYERS``, by nickname; ``online`` counts all)."""
        if self._players_cache is None:
            players = []
            for conns in self.by_player.values():
                for conn in conns:
                    players.append(conn.player)
                    break
            players.sort(key=lambda p: p.nickname.casefold())
            self._players_cache = [p.to_json() for p in players[:LOBBY_PLAYERS]]
        return self._players_cache

    def _watchable(self) -> list[TableActor]:
        """The newest running open tables (to watch), at most ``LOBBY_RUNNING``."""
        running = [
            t for t in self.tables.values() if t.status == PLAYING and t.settings.access == "open"
        ]
        return sorted(running, key=lambda t: -t.id)[:LOBBY_RUNNING]

    def _open_waiting(self) -> list[TableActor]:
        """The newest open waiting tables, at most ``LOBBY_WAITING``."""
        waiting = [
            t for t in self.tables.values() if t.status == WAITING and t.settings.access == "open"
        ]
        return sorted(waiting, key=lambda t: -t.id)[:LOBBY_WAITING]

    def _own_tables(self, player_id: int, private: list[TableActor]) -> list[TableActor]:
        """The waiting and running tables a player sits at, and the invite-only
        waiting tables it is invited to (few: bounded by the limits on waiting
        tables and invitations)."""
        return [
            t
            for t in private
            if (t.status in (WAITING, PLAYING) and t.seat_of(player_id) is not None)
            or (t.status == WAITING and t.settings.access != "open" and t.visible_to(player_id))
        ]

    def tables_for(self, player_id: int) -> list[dict[str, Any]]:
        """The lobby's tables for a player: the newest open waiting tables, the
        newest running open tables, and the tables it sits at or is invited to."""
        shown = self._own_tables(player_id, list(self.tables.values()))
        ids = {t.id for t in shown}
        for table in [*self._open_waiting(), *self._watchable()]:
            if table.id not in ids:
                ids.add(table.id)
                shown.append(table)
        return [t.summary() for t in shown]

    def running_tables(self) -> list[dict[str, Any]]:
        """Open running tables (for spectators: ``GET /api/tables``)."""
        return [
            t.summary()
            for t in self.tables.values()
            if t.status in (WAITING, PLAYING) and t.settings.access == "open"
        ]

    def playing_count(self) -> int:
        return sum(1 for t in self.tables.values() if t.status == PLAYING)

    async def _lobby_message(self, conn: Connection) -> dict[str, Any]:
        invitations = await self.store.open_invitations(conn.player_id, self.clock.now_ms())
        return {
            "type": "lobby",
            "tables": self.tables_for(conn.player_id),
            "playing": self.playing_count(),
            "online": len(self.by_player),
            "players": self.online_players(),
            "chat": list(self.lobby_chat),
            "invitations": [await self._invitation_json(i) for i in invitations],
        }

    def lobby_changed(self) -> None:
        self._lobby_dirty = True

    async def _lobby_flusher(self) -> None:
        while True:
            await asyncio.sleep(self.options.lobby_update_interval)
            if not self._lobby_dirty or self.shutting_down:
                continue
            self._lobby_dirty = False
            try:
                self._send_lobby_update()
            except Exception:
                log.exception("lobby_update_failed")

    def _send_lobby_update(self) -> None:
        players = self.online_players()
        playing = self.playing_count()
        waiting = self._open_waiting()
        public = [t.summary() for t in [*waiting, *self._watchable()]]
        online = len(self.by_player)
        public_text = dumps(
            {
                "type": "lobby_update",
                "tables": public,
                "playing": playing,
                "online": online,
                "players": players,
            }
        )
        listed = {t.id for t in waiting}
        private = [
            t
            for t in self.tables.values()
            if t.status == WAITING and (t.settings.access != "open" or t.id not in listed)
        ]
        for conn in list(self.connections):
            if not conn.in_lobby:
                continue
            mine = [t for t in self._own_tables(conn.player_id, private) if t.status == WAITING]
            if not mine:
                conn.send_lobby(public_text)
            else:
                conn.send_lobby(
                    dumps(
                        {
                            "type": "lobby_update",
                            "tables": public + [t.summary() for t in mine],
                            "playing": playing,
                            "online": online,
                            "players": players,
                        }
                    )
                )

    def disconnect_player(self, player_id: int, code: int) -> None:
        """Close every connection of the player (e.g. 4401 after a guest logged out)."""
        for conn in list(self.by_player.get(player_id, ())):
            conn.close(code)

    def send_to_player(self, player_id: int, data: dict[str, Any]) -> None:
        text = dumps(data)
        for conn in list(self.by_player.get(player_id, ())):
            conn.send(text)

    def table_gone(self, table: TableActor) -> None:
        """A closed or long-finished table leaves memory."""
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
            self.spawn(table.stop())
        self.lobby_changed()

    def game_finished(self, table: TableActor) -> None:
        for conn in list(table.subscribers):
            if conn.in_lobby:
                self.spawn(self._send_lobby(conn))

    async def _send_lobby(self, conn: Connection) -> None:
        with contextlib.suppress(Exception):
            conn.send_json(await self._lobby_message(conn))

    def chat_json(self, message: Any) -> dict[str, Any]:
        data = _as_json(message)
        return {
            "id": data.get("id"),
            "from": data.get("from"),
            "text": data.get("text"),
            "at": _ms(data.get("at")),
        }

    # ------------------------------------------------------------- messages

    def _table(self, table_id: int) -> TableActor:
        table = self.tables.get(table_id)
        if table is None or table.status == CLOSED:
            raise ProtocolError("no_such_table", f"there is no table {table_id}")
        return table

    async def handle(self, conn: Connection, message: ClientMessage, msg_id: Any) -> None:
        """Do what a client asked; errors go back to that client only."""
        if self.shutting_down and not isinstance(message, Ping):
            conn.error(ProtocolError("shutting_down"), msg_id)
            return
        try:
            await self._dispatch(conn, message, msg_id)
        except (ProtocolError, EngineError, StoreError) as exc:
            conn.error(exc, msg_id)
        except Exception:
            # A fault of the server, not of the message: logged with its traceback,
            # answered, and the connection stays usable.
            log.exception(
                "request_failed", extra={"player": conn.nickname, "message": type(message).__name__}
            )
            conn.error(ProtocolError("server_error"), msg_id)

    async def _dispatch(self, conn: Connection, message: ClientMessage, msg_id: Any) -> None:
        if isinstance(message, ActionMsg):
            table = self._table(message.table)
            await table.call(table.client_action, conn, message.action, msg_id)
        elif isinstance(message, Ping):
            reply: dict[str, Any] = {"type": "pong", "server_time": self.clock.now_ms()}
            if msg_id is not None:
                reply["id"] = msg_id
            conn.send_json(reply)
        elif isinstance(message, LobbyChat):
            chat = self.chat_json(await self.store.add_chat(None, conn.player_id, message.text))
            self.lobby_chat = [*self.lobby_chat[-49:], chat]
            text = dumps({"type": "lobby_chat", "message": chat})
            for other in list(self.connections):
                other.send(text)
            self._ack(conn, "ok", msg_id)
        elif isinstance(message, CreateTable):
            await self._create_table(conn, message, msg_id)
        elif isinstance(message, JoinTable):
            table = self._table(message.table)
            await table.call(table.join, conn, msg_id)
        elif isinstance(message, WatchTable):
            table = self._table(message.table)
            await table.call(table.watch, conn, msg_id)
        elif isinstance(message, LeaveTable):
            table = self._table(message.table)
            await table.call(table.leave, conn)
            self._ack(conn, "left_table", msg_id, table=table.id)
            conn.send_json(await self._lobby_message(conn))
        elif isinstance(message, SetSeat):
            table = self._table(message.table)
            await table.call(table.set_seat, conn, message.seat, message.bot)
            self._ack(conn, "ok", msg_id)
        elif isinstance(message, StartGame):
            table = self._table(message.table)
            await table.call(table.start_game, conn, message.fill)
            self._ack(conn, "ok", msg_id)
        elif isinstance(message, NextRoundMsg):
            table = self._table(message.table)
            await table.call(table.next_round, conn)
            self._ack(conn, "ok", msg_id)
        elif isinstance(message, TableChat):
            table = self._table(message.table)
            await table.call(table.chat_message, conn, message.text)
            self._ack(conn, "ok", msg_id)
        elif isinstance(message, Resync):
            table = self._table(message.table)
            await table.call(table.resync, conn, message.since, msg_id)
        elif isinstance(message, Back):
            table = self._table(message.table)
            await table.call(table.back, conn)
            self._ack(conn, "ok", msg_id)
        elif isinstance(message, Hint):
            table = self._table(message.table)
            view = await table.call(table.view_json, conn)
            action, reason = await self.botpool.suggest(view)
            if action is not None:
                action = {k: v for k, v in action.items() if k != "seat"}
            reply = {"type": "hint", "table": table.id, "action": action, "reason": reason}
            if msg_id is not None:
                reply["id"] = msg_id
            conn.send_json(reply)
        elif isinstance(message, PlayerInfoMsg):
            info = await self.store.player_info(message.nickname)
            if info is None:
                raise ProtocolError("no_such_player", f"there is no player {message.nickname!r}")
            reply = {"type": "player_info", "info": info}
            if msg_id is not None:
                reply["id"] = msg_id
            conn.send_json(reply)
        elif isinstance(message, Invite):
            await self._invite(conn, message, msg_id)
        elif isinstance(message, AnswerInvitation):
            await self._answer(conn, message, msg_id)
        else:  # pragma: no cover - every parsed type is handled above
            raise ProtocolError("unknown_type")

    def _ack(self, conn: Connection, kind: str, msg_id: Any, **fields: Any) -> None:
        if kind == "ok" and msg_id is None:
            return
        data: dict[str, Any] = {"type": kind, **fields}
        if msg_id is not None:
            data["id"] = msg_id
        conn.send_json(data)

    async def _create_table(self, conn: Connection, message: CreateTable, msg_id: Any) -> None:
        limit = self.options.max_waiting_tables
        hosted = sum(
            1 for t in self.tables.values() if t.host_id == conn.player_id and t.status == WAITING
        )
        if limit and hosted >= limit:
            raise ProtocolError(
                "too_many_tables",
                f"you already host {hosted} waiting "
                f"table(s), the most one may: start or leave one first",
            )
        settings = message.settings
        rules = settings.rules()
        seats = [SeatState() for _ in range(settings.seats)]
        seats[0] = SeatState(player_id=conn.player_id, nickname=conn.nickname)
        for seat, level in settings.bots.items():
            seats[seat] = SeatState(bot=level)
        seed = new_match_seed()
        table_id = await self.store.create_table(
            conn.player_id, settings.to_json(), rules.to_json(), [s.to_store() for s in seats], seed
        )
        table = TableActor(
            self, table_id, conn.player_id, conn.nickname, settings, rules, seats, seed, WAITING
        )
        self.tables[table_id] = table
        table.start()
        log.info("table_created", extra={"table": table_id, "host": conn.nickname})
        await table.call(table.subscribe, conn, msg_id)
        self.lobby_changed()

    async def _invitation_json(self, invitation: Any) -> dict[str, Any]:
        return _as_json(invitation)

    async def _invite(self, conn: Connection, message: Invite, msg_id: Any) -> None:
        table = self._table(message.table)
        if table.seat_of(conn.player_id) is None:
            raise ProtocolError("not_seated", "sit at the table to invite players to it")
        if table.status != WAITING:
            raise ProtocolError("already_started")
        invitee = await self.store.find_player(message.nickname)
        if invitee is None:
            raise ProtocolError("no_such_player", f"there is no player {message.nickname!r}")
        if invitee.is_bot or invitee.id == conn.player_id:
            raise ProtocolError("cannot_invite", "invite another person")
        if table.seat_of(invitee.id) is not None:
            raise ProtocolError("cannot_invite", f"{invitee.nickname} already sits here")
        if not table.free_seats():
            raise ProtocolError("table_full")
        expires = self.clock.deadline_ms(self.options.invitation_seconds)
        invitation = _as_json(
            await self.store.create_invitation(
                table.id,
                conn.player_id,
                invitee.id,
                expires,
                per_minute=self.options.invitations_per_minute,
            )
        )
        table.invited[invitee.id] = expires
        self.send_to_player(invitee.id, {"type": "invitation", "invitation": invitation})
        self._ack(conn, "invitation", msg_id, invitation=invitation)
        self.lobby_changed()
        inv_id = int(invitation["id"])
        self._invitation_timers[inv_id] = self.clock.call_later(
            self.options.invitation_seconds,
            lambda: self._expire_invitation(invitation, conn.player_id, invitee.id),
        )

    def _expire_invitation(self, invitation: dict[str, Any], from_id: int, to_id: int) -> None:
        self._invitation_timers.pop(int(invitation["id"]), None)
        self._uninvite(int(invitation["table"]), to_id, invitation.get("expires_at"))
        data = {"type": "invitation_update", "invitation": {**invitation, "status": "expired"}}
        self.send_to_player(from_id, data)
        self.send_to_player(to_id, data)

    async def _answer(self, conn: Connection, message: AnswerInvitation, msg_id: Any) -> None:
        invitation = _as_json(
            await self.store.answer_invitation(
                message.invitation, conn.player_id, message.accept, self.clock.now_ms()
            )
        )
        timer = self._invitation_timers.pop(message.invitation, None)
        if timer is not None:
            timer.cancel()
        data = {"type": "invitation_update", "invitation": invitation}
        table = self.tables.get(int(invitation["table"]))
        if not message.accept:
            self._uninvite(int(invitation["table"]), conn.player_id)
        sender = await self.store.find_player(str(invitation["from"]))
        if sender is not None:
            self.send_to_player(sender.id, data)
        for other in list(self.by_player.get(conn.player_id, ())):
            if other is conn and not message.accept and msg_id is not None:
                other.send_json({**data, "id": msg_id})
            else:
                other.send_json(data)
        if message.accept:
            if table is None or table.status == CLOSED:
                raise ProtocolError("no_such_table", "the table is gone")
            await table.call(table.join, conn, msg_id, True)

    def _uninvite(self, table_id: int, player_id: int, expires: Any = None) -> None:
        """A declined or expired invitation no longer opens an invite-only table
        (an expiry names the invitation, so that a newer one to the same player
        is left alone)."""
        table = self.tables.get(table_id)
        if table is None or player_id not in table.invited:
            return
        if expires is None or table.invited[player_id] == expires:
            del table.invited[player_id]
            self.lobby_changed()

    # ----------------------------------------------------------------- stats

    def health(self) -> dict[str, Any]:
        return {
            "tables": sum(1 for t in self.tables.values() if t.status != FINISHED),
            "connections": len(self.connections),
            "unrestored_tables": list(self.unrestored),
        }


def monotonic_ms() -> int:
    return int(time.monotonic() * 1000)
