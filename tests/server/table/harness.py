"""A table actor driven in-process: a real store (SQLite in a temporary file), a
:class:`~romme.server.timers.ManualClock` that moves only when a test says so,
bots in the event loop, and a small :class:`~romme.server.table.host.TableHost`
that records what the table tells the server.

Nothing here waits for wall-clock time: :meth:`TableBench.settle` runs the table's
queue and the computer opponents' requests until nothing is left to do, and
:meth:`TableBench.advance` moves the clock and then settles.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from romme.engine.errors import EngineError
from romme.engine.game import Game
from romme.server import messages
from romme.server.botpool import BotPool
from romme.server.config import ServerOptions
from romme.server.errors import ProtocolError
from romme.server.movetimes import MoveTimes
from romme.server.settings import TableSettings, parse_settings
from romme.server.table import WAITING, SeatState, TableActor
from romme.server.timers import ManualClock
from romme.store import Store, StoreError

MATCH_SEED = bytes(range(32))
"""Every bench table deals the same cards: the tests are deterministic."""


class FakeConnection:
    """A client at the table: it keeps what it is sent, parsed."""

    def __init__(self, player_id: int, nickname: str) -> None:
        self.player_id = player_id
        self.nickname = nickname
        self.level = 1
        self.tables: set[int] = set()
        self.hidden_ids: set[int] = set()
        self.messages: list[dict[str, Any]] = []

    def __repr__(self) -> str:
        return f"<FakeConnection {self.nickname}>"

    def send(self, text: str) -> None:
        self.messages.append(json.loads(text))

    def send_from(self, sender_id: int, text: str) -> None:
        if sender_id not in self.hidden_ids:
            self.send(text)

    def error(self, exc: ProtocolError | EngineError | StoreError, msg_id: Any = None) -> None:
        self.send(messages.dumps(messages.error(exc.code, exc.message, msg_id)))

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == kind]

    def reply(self, msg_id: Any) -> dict[str, Any]:
        """The one message that answers the request ``msg_id``."""
        found = [m for m in self.messages if m.get("id") == msg_id]
        assert len(found) == 1, (msg_id, found)
        return found[0]


class FakeHost:
    """The table's host: the real store and clock, and a record of the callbacks."""

    def __init__(self, store: Store, clock: ManualClock, options: ServerOptions) -> None:
        self.store = store
        self.clock = clock
        self.options = options
        self.botpool = BotPool(workers=0)
        self.move_times = MoveTimes()
        self.tasks: set[asyncio.Task[Any]] = set()
        self.ended = 0
        """Background tasks that have ended (see :meth:`TableBench.settle`)."""
        self.lobby_changes = 0
        self.finished: list[int] = []
        self.gone: list[int] = []
        self.lost: list[int] = []

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        async def counted() -> Any:
            try:
                return await coro
            finally:
                self.ended += 1

        task = asyncio.create_task(counted())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    def lobby_changed(self) -> None:
        self.lobby_changes += 1

    def game_finished(self, table_id: int) -> None:
        self.finished.append(table_id)

    def table_gone(self, table_id: int) -> None:
        self.gone.append(table_id)

    def lease_lost(self, table_id: int) -> None:
        self.lost.append(table_id)

    def restore_failed(self, table_id: int) -> None:
        self.gone.append(table_id)


async def _nothing() -> None:
    return None


class TableBench:
    """One table on a fake host, with its players' connections."""

    def __init__(self, store: Store, clock: ManualClock, options: ServerOptions) -> None:
        self.store = store
        self.clock = clock
        self.host = FakeHost(store, clock, options)
        self.table: TableActor | None = None
        self.players: list[FakeConnection] = []

    @property
    def actor(self) -> TableActor:
        assert self.table is not None
        return self.table

    @property
    def game(self) -> Game:
        """The table's game, once started."""
        game = self.actor.game
        assert game is not None
        return game

    async def open(
        self, humans: int, match_seed: bytes = MATCH_SEED, **settings: Any
    ) -> TableActor:
        """A waiting table whose first ``humans`` seats hold players (and connected),
        dealt from ``match_seed``."""
        parsed: TableSettings = parse_settings(settings)
        for index in range(humans):
            player = await self.store.create_guest(f"bench{index}x{id(self) % 9999}")
            self.players.append(FakeConnection(player.id, player.nickname))
        host = self.players[0]
        seats = [SeatState() for _ in range(parsed.seats)]
        seats[0] = SeatState(player_id=host.player_id, nickname=host.nickname)
        for seat, level in parsed.bots.items():
            seats[seat] = SeatState(bot=level)
        rules = parsed.rules()
        table_id = await self.store.create_table(
            host.player_id,
            parsed.to_json(),
            rules.to_json(),
            [s.to_store() for s in seats],
            match_seed,
        )
        table = TableActor(
            self.host, table_id, host.player_id, host.nickname, parsed, rules, seats,
            match_seed, WAITING,
        )  # fmt: skip
        self.table = table
        table.start()
        await table.call(table.subscribe, host, None)
        for conn in self.players[1:]:
            await table.call(table.join, conn, None)
        return table

    async def start(self) -> None:
        table = self.actor
        await table.call(table.start_game, self.players[0], None)
        await self.settle()

    async def act(self, seat: int, action: dict[str, Any], msg_id: Any = None) -> None:
        """The player at ``seat`` sends an action (refusals raise, as the hub gets them)."""
        table = self.actor
        await table.call(table.client_action, self.players[seat], action, msg_id)

    async def settle(self) -> None:
        """Run the table until it and the computer opponents have nothing left to do:
        a marker passes through the table's queue while no background task is
        running and none ended meanwhile (a task that ends may post new work)."""
        table = self.actor
        host = self.host
        for _ in range(10_000):
            ended = host.ended
            await table.call(_nothing)
            pending = [t for t in host.tasks if not t.done()]
            if pending:
                await asyncio.gather(*pending)
            elif host.ended == ended:
                return
        raise AssertionError("the table never settled")

    async def advance(self, seconds: float) -> None:
        """Move the clock on (running the deadlines due) and let the table settle."""
        self.clock.advance(int(seconds * 1000))
        await self.settle()

    async def close(self) -> None:
        if self.table is not None:
            await self.table.stop()


def bench_options(**changes: Any) -> ServerOptions:
    """Server options for a bench: computer opponents answer at once."""
    return replace(ServerOptions(), bot_delay=0.0, **changes)


def store_clock(clock: ManualClock) -> Any:
    """The store's time source, following the manual clock."""
    return lambda: datetime.fromtimestamp(clock.now_ms() / 1000, UTC)


async def draw_and_discard(bench: TableBench, seat: int) -> None:
    """The player at ``seat`` draws from the stock and discards its first card."""
    await bench.act(seat, {"type": "draw", "source": "stock"})
    game = bench.actor.game
    assert game is not None
    card = str(game.view_for(seat).hand[0])
    await bench.act(seat, {"type": "discard", "card": card})
    await bench.settle()


async def play_turns(bench: TableBench, turns: int) -> None:
    """Whoever's turn it is draws and discards, ``turns`` times."""
    for _ in range(turns):
        game = bench.actor.game
        assert game is not None
        await draw_and_discard(bench, game.current)
