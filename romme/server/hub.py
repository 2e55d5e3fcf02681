"""The hub: the server's tables and connections, from start to shutdown.

It rebuilds the unfinished tables when the server starts, admits and registers
connections (keeping the per-player and per-address limits), creates tables,
closes a waiting table whose host has gone, and is the
:class:`~romme.server.table.host.TableHost` of every table. What the lobby shows
is :mod:`romme.server.lobby`, invitations :mod:`romme.server.invitations`, and
what each client message does :mod:`romme.server.dispatch`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Collection, Coroutine
from typing import TYPE_CHECKING, Any

from romme.engine.errors import EngineError
from romme.engine.fairness import new_match_seed
from romme.server import messages
from romme.server.botpool import BotPool
from romme.server.chatfilter import ChatFilter
from romme.server.chatrate import ChatRate
from romme.server.config import ServerOptions, default_node_id
from romme.server.connection import Connection, ConnectionRefused
from romme.server.deleted_account import forget_deleted_account
from romme.server.errors import ProtocolError
from romme.server.guests import GuestNames
from romme.server.housekeeping import gc_loop, housekeeping_loop
from romme.server.invitations import Invitations
from romme.server.lobby import Lobby
from romme.server.loopwatch import LoopWatch
from romme.server.moderation import ChatGuard
from romme.server.movetimes import MoveTimes
from romme.server.nodelink import NodeLink
from romme.server.ownership import LEASE_SECONDS, Ownership
from romme.server.registry import Registry
from romme.server.rematch import Rematches
from romme.server.settings import TableSettings
from romme.server.social import Social
from romme.server.table import FINISHED, PLAYING, WAITING, SeatState, TableActor
from romme.server.table.actor import TABLE_CHAT
from romme.server.timers import Clock
from romme.store import StoreError

if TYPE_CHECKING:
    from romme.store import Store
    from romme.store.rebuild import TableToRebuild

__all__ = ["Hub"]

log = logging.getLogger("romme.server.lobby")


class Hub:
    """The registry of tables and connections, and their lifecycle."""

    def __init__(
        self, store: Store, options: ServerOptions, clock: Clock, botpool: BotPool
    ) -> None:
        self.store = store
        self.options = options
        self.clock = clock
        self.botpool = botpool
        self.registry = Registry()
        self.tables = self.registry.tables
        self.lobby = Lobby(self.registry, store, clock, options)
        self.invitations = Invitations(self.registry, store, clock, options, self.lobby)
        self.guests = GuestNames(self.registry, store, options)
        self.social = Social(self.registry, store)
        self.chat_guard = ChatGuard(store, ChatFilter.from_file(options.chat_filter))
        self.chat_rate = ChatRate(
            options.chat_per_second,
            options.chat_burst,
            options.chat_per_second_per_address,
            options.chat_burst_per_address,
            options.redis_url,
        )
        """Chat lines per player and per address (counted by the sockets' node,
        and in Redis over a cluster)."""
        self.rematches = Rematches(self.registry, clock, self.open_table, self.spawn)
        self.ownership = Ownership(self, options.node_id or default_node_id(), options.redis_url)
        self.relay: NodeLink | None = None
        """The messages to and from the other nodes of a cluster (``romme.server.relay``)."""
        self.shutting_down = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self._orphan_timers: dict[int, asyncio.TimerHandle] = {}
        """Waiting tables whose host has no connection: closed when the timer fires."""
        self.unrestored: list[int] = []
        """Unfinished tables of the store that could not be rebuilt at the start."""
        self.loop_watch = LoopWatch()
        self.move_times = MoveTimes()

    # ------------------------------------------------------------ lifecycle

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run a background task, keeping a reference until it ends."""
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def start(self) -> None:
        """Take this node's tables (every unfinished one on a single server), rebuild
        them from the store and start their timers."""
        if self.relay is not None:
            await self.relay.start()
        await self.ownership.start()
        await self.lobby.start()
        self.spawn(self.loop_watch.run())
        self.spawn(housekeeping_loop(self.store, self.options, self.guests))
        if self.options.gc_freeze_seconds:
            self.spawn(gc_loop(self.options))
        log.info("hub_started", extra={"tables": len(self.tables)})

    async def take_over(self, epochs: dict[int, int], claimed_at: float | None = None) -> None:
        """Take the tables this node just took (table id -> lease epoch) from the
        store, in one bulk read, and resume them; the players connected here get
        them.

        The tables are registered at once (the node answers for them), and their
        games are replayed one at a time in the background, each in its own task
        and one per turn of the event loop, so that the node keeps answering
        meanwhile; a table given work before its turn comes replays at once.
        Their timers run from the stored time of their last action. The log line
        ``tables_restored`` says how long it all took from ``claimed_at`` (the
        ``time.perf_counter()`` before the tables were claimed)."""
        started = time.perf_counter() if claimed_at is None else claimed_at
        restored: list[TableActor] = []
        for stored in await self.store.tables_to_rebuild(epochs, chat_lines=TABLE_CHAT):
            try:
                table = self._restore(stored, epochs[stored.record.id])
            except Exception:
                # The game stays in the store untouched; /healthz reports it until
                # a server that can rebuild it starts.
                self.unrestored.append(stored.record.id)
                self.ownership.unrestored[stored.record.id] = epochs[stored.record.id]
                log.exception("restore_failed", extra={"table": stored.record.id})
                continue
            if table is not None:
                restored.append(table)
        if self.relay is not None and epochs:
            self.relay.taken(sorted(epochs))
        self.lobby.changed()
        if restored:
            self.spawn(self._resume_in_turn(restored, started, time.perf_counter()))

    def _restore(self, stored: TableToRebuild, epoch: int) -> TableActor | None:
        record = stored.record
        if record.status not in (WAITING, PLAYING):
            return None
        table = TableActor.from_record(self, record, stored.host_name)
        table.epoch = epoch
        table.chat.extend(messages.chat_entry(m) for m in stored.chat)
        self.tables[table.id] = table
        table.post(table.resume)
        table.start(on_first_use=True)
        log.info(
            "table_restored",
            extra={"table": table.id, "version": table.version, "status": table.status},
        )
        return table

    async def _resume_in_turn(
        self, tables: list[TableActor], started: float, answering: float
    ) -> None:
        """Wake the restored tables one per turn of the event loop (each replays
        its game in its task) and subscribe the players connected here. The log
        line says when the tables answered (were registered) and when the last
        one was replayed, in milliseconds from the claim."""
        for table in tables:
            table.wake()
            self._watch_host(table)
            for seat in table.seats:
                for conn in list(self.registry.by_player.get(seat.player_id or 0, ())):
                    if not seat.left:
                        table.post(table.subscribe, conn)
            await asyncio.sleep(0)
        await asyncio.sleep(0)  # the last table's replay
        log.info(
            "tables_restored",
            extra={
                "tables": len(tables),
                "answering_ms": round((answering - started) * 1000),
                "ms": round((time.perf_counter() - started) * 1000),
            },
        )

    async def begin_shutdown(self) -> None:
        """Stop taking moves, let the tables finish their writes, tell the clients."""
        if self.shutting_down:
            return
        self.shutting_down = True
        self.lobby.pause()
        log.info("shutdown_started", extra={"connections": len(self.registry.connections)})
        await asyncio.gather(
            *(table.stop() for table in list(self.tables.values())), return_exceptions=True
        )
        await self.ownership.drain()
        notice = messages.dumps(messages.shutdown())
        for conn in list(self.registry.connections):
            conn.send(notice)
            conn.close(1012)

    async def close(self) -> None:
        await self.begin_shutdown()
        await self.lobby.stop()
        await self.ownership.close()
        if self.relay is not None:
            await self.relay.close()
        await self.chat_rate.close()
        self.invitations.close()
        for timer in self._orphan_timers.values():
            timer.cancel()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    # ---------------------------------------------------------- connections

    def _admit(self, conn: Connection) -> None:
        """Refuse a connection over the per-player or per-address limit."""
        registry = self.registry
        per_player = self.options.max_connections_per_player
        if per_player and len(registry.by_player.get(conn.player_id, ())) >= per_player:
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
            and len(registry.by_address.get(conn.address, ())) >= per_address
        ):
            raise ConnectionRefused(
                ProtocolError(
                    "too_many_connections",
                    f"at most {per_address} connections from one address at once",
                )
            )

    async def connect(self, conn: Connection) -> None:
        self._admit(conn)  # before reading anything for a connection over a limit
        record = await self.social.load(conn.player_id)
        self._admit(conn)  # and with its registration: others may have come meanwhile
        friends = self.social.attach(conn, record)
        first = self.registry.add(conn)
        if first:
            self.lobby.player_online(conn.player)
            self._host_back(conn.player_id)
        conn.send_json(messages.welcome(conn.player.to_json(), self.clock.now_ms()))
        conn.send_json(await self.lobby.message(conn))
        conn.has_lobby = True
        conn.send_json(friends)
        if first:
            self.spawn(self.social.presence(conn.player))
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
        if self.relay is not None:
            self.relay.connected(conn)
        if first:
            self.lobby.changed()

    async def disconnect(self, conn: Connection) -> None:
        conn.close()
        if self.relay is not None:
            self.relay.disconnected(conn)
        if self.registry.remove(conn):
            self.guests.hold(conn.player_id)
            self.social.detach(conn.player_id)
            self.spawn(self.social.presence(conn.player))
            self.lobby.player_offline(conn.player_id)
            self.lobby.changed()
            for hosted in self.tables.hosted_by(conn.player_id):
                self._watch_host(hosted)
        for table_id in list(conn.tables):
            table = self.tables.get(table_id)
            if table is not None and not self.shutting_down:
                table.post(table.unsubscribe, conn)

    async def account_deleted(
        self,
        player_id: int,
        placeholder: str,
        chat_ids: Collection[int],
        *,
        here_only: bool = False,
    ) -> None:
        """The account was deleted (on this node, or on another: ``here_only``): this
        node's tables and chat follow, and the other nodes are told."""
        if self.relay is not None and not here_only:
            self.relay.account_deleted(player_id, placeholder, sorted(chat_ids))
        await forget_deleted_account(
            self.registry, self.lobby, self.guests, player_id, placeholder, chat_ids
        )

    def _watch_host(self, table: TableActor) -> None:
        """A waiting table whose host has no connection is closed after
        ``waiting_table_grace`` seconds unless the host comes back (a reload or a
        short network loss keeps it; a host who went for good frees the lobby)."""
        if (
            table.status != WAITING
            or self.registry.online(table.host_id)
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
        if table.status != WAITING or self.registry.online(table.host_id):
            return
        if any(conn.player_id == table.host_id for conn in table.subscribers):
            # The host follows the table from another node of the cluster.
            self._watch_host(table)
            return
        log.info("waiting_table_abandoned", extra={"table": table.id})
        await table.close("the host has gone")

    # --------------------------------------------------------------- tables

    async def create_table(self, conn: Connection, settings: TableSettings, msg_id: Any) -> None:
        """A new table with its creator at seat 0 as host (answered with ``table``).

        The limit of waiting tables a player hosts (``too_many_tables``) is counted
        by the store in the transaction that inserts the table: counted here, with
        awaits before the table is registered, parallel requests of one player all
        saw the same count, and in a cluster the other nodes' tables were a second
        late and known by nickname only."""
        await self.store.require_chips(conn.player_id, settings.stake)
        seats = [SeatState() for _ in range(settings.seats)]
        seats[0] = SeatState(player_id=conn.player_id, nickname=conn.nickname, level=conn.level)
        for seat, level in settings.bots.items():
            seats[seat] = SeatState(bot=level)
        table = await self.open_table(
            conn.player_id,
            conn.nickname,
            settings,
            seats,
            max_waiting=self.options.max_waiting_tables,
        )
        await table.call(table.subscribe, conn, msg_id)
        self.lobby.changed()

    async def open_table(
        self,
        host_id: int,
        host_name: str,
        settings: TableSettings,
        seats: list[SeatState],
        *,
        max_waiting: int = 0,
    ) -> TableActor:
        """A new waiting table with these seats, stored and running (for a new
        table or a rematch); ``too_many_tables`` if its host already hosts
        ``max_waiting`` waiting tables (0: any; a rematch starts at once)."""
        rules = settings.rules()
        seed = new_match_seed()
        table_id = await self.store.create_table(
            host_id,
            settings.to_json(),
            rules.to_json(),
            [s.to_store() for s in seats],
            seed,
            owner_node=self.ownership.node,
            lease_seconds=LEASE_SECONDS,
            max_waiting=max_waiting,
        )
        table = TableActor(
            self, table_id, host_id, host_name, settings, rules, seats, seed, WAITING
        )
        table.epoch = 1
        self.tables[table_id] = table
        table.start()
        log.info("table_created", extra={"table": table_id, "host": host_name})
        return table

    # ---------------------------------------------- the tables' host (TableHost)

    def lobby_changed(self) -> None:
        self.lobby.changed()

    def game_finished(self, table_id: int) -> None:
        table = self.tables.get(table_id)
        if table is not None:
            self.spawn(self._after_game(table))

    async def _after_game(self, table: TableActor) -> None:
        """The game's players online here show their new rating and level in
        every lobby's list; then those back in the lobby get it whole."""
        for player_id in {seat.player_id for seat in table.seats if seat.player_id}:
            if player_id in self.lobby.here:
                record = await self.store.get_player(player_id)
                if record is not None:
                    self.lobby.player_refreshed(record)
        for conn in list(table.subscribers):
            if isinstance(conn, Connection) and self.registry.in_lobby(conn):
                await self.lobby.send_to(conn)

    def table_gone(self, table_id: int) -> None:
        """A closed or long-finished table leaves memory."""
        table = self.tables.pop(table_id, None)
        if table is not None:
            self.spawn(table.stop())
        self.lobby.changed()

    def restore_failed(self, table_id: int) -> None:
        """A restored table's log could not be replayed (in its task, see
        ``take_over``): the game stays in the store untouched; /healthz reports
        it, and this node keeps its lease (see ``Ownership.unrestored``)."""
        table = self.tables.pop(table_id, None)
        if table is None:
            return
        self.spawn(table.stop())
        self.unrestored.append(table_id)
        if table.epoch is not None:
            self.ownership.unrestored[table_id] = table.epoch
        self.lobby.changed()

    def lease_lost(self, table_id: int) -> None:
        """Another node runs the table now: it leaves this node, and the
        connections at it reconnect (to find it where it runs)."""
        table = self.tables.pop(table_id, None)
        if table is None:
            return
        self.spawn(table.stop())
        notice = messages.dumps(messages.shutdown())
        for conn in list(table.subscribers):
            if isinstance(conn, Connection):
                conn.send(notice)
                conn.close(1012)
        self.lobby.changed()

    # ----------------------------------------------------------------- stats

    def health(self) -> dict[str, Any]:
        return {
            "tables": sum(1 for t in self.tables.values() if t.status != FINISHED),
            "connections": len(self.registry.connections),
            "unrestored_tables": list(self.unrestored),
            "replaying_tables": sum(1 for t in self.tables.values() if not t.replayed),
            "loop_lag_ms": self.loop_watch.lag_ms(),
            "move_ms": self.move_times.snapshot(),
            **self.ownership.health(),
        }
