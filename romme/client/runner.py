"""Computer players run from outside the server: the logic of ``romme bot``.

A :class:`BotRunner` keeps ``tables`` seats busy for one player. For each it
first takes back the seats the player already holds (after a restart the server
gives them back on connect), then looks for an open table that waits for players
and joins it, and only if there is none opens a table of its own and waits for
opponents: when its seats are filled it starts the game, and with ``fill`` it
puts the server's computer opponents in the free seats after ``wait`` seconds.
While its own table is still empty it keeps looking, and moves to an older
waiting table of someone else if one appears (so that two bots waiting side by
side end up at one table instead of waiting for ever). Each game is played to its
end by :func:`romme.client.play.play_table` with a :mod:`romme.bots` level, and
then the next table is found.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from dataclasses import dataclass

from romme.bots import make_bot
from romme.client.connection import Client
from romme.client.errors import Disconnected, ServerError
from romme.client.models import Settings, TableSummary
from romme.client.play import TableClosed, play_table
from romme.client.table import CLOSED, PLAYING, WAITING, TableState

__all__ = ["BotOptions", "BotRunner"]

log = logging.getLogger("romme.client.bot")

LOOK_EVERY = 5.0
"""Seconds between two looks at the server's tables while waiting for a seat."""


@dataclass(frozen=True, slots=True)
class BotOptions:
    level: str
    """The :mod:`romme.bots` level that plays every seat."""
    tables: int = 1
    """Seats to keep busy at once, each at its own table."""
    settings: Settings | None = None
    """The settings of the tables it opens (server defaults for what is missing)."""
    join: bool = True
    """Join other players' waiting tables before opening one."""
    fill: str | None = None
    """Put the server's computer opponents of this level in the free seats of its
    own table after ``wait`` seconds; ``None``: wait for people however long it takes."""
    wait: float = 30.0
    games: int | None = None
    """Play this many games, then stop (``None``: play on until stopped). Seats
    taken back after a restart count too."""
    seed: int | None = None
    """Seed of the bots' decisions (``None``: a new one per table)."""


class BotRunner:
    """Plays ``options.tables`` seats for the player logged in on ``client``."""

    def __init__(self, client: Client, options: BotOptions) -> None:
        self.client = client
        self.options = options
        self.games_ended = 0
        self._games_taken = 0
        """Seats taken (or taken back) for a game: played, or being played."""
        self._busy: set[int] = set()
        """Tables a slot of this runner has taken."""

    @property
    def _me(self) -> str:
        return self.client.player.nickname.casefold() if self.client.player else ""

    def _done(self) -> bool:
        games = self.options.games
        return games is not None and self._games_taken >= games

    def _claim_held(self, most: int | None = None) -> list[int]:
        """The tables where the player holds a seat that no slot plays yet: those given
        back on connect, or a seat whose ``join_table`` answer a lost connection took."""
        held = sorted(
            state.id
            for state in self.client.tables.values()
            if state.my_seat is not None
            and state.status in (WAITING, PLAYING)
            and state.id not in self._busy
        )[:most]
        self._busy.update(held)
        for table_id in held:
            state = self.client.tables[table_id]
            log.info("table %s: resumed at seat %s (%s)", table_id, state.my_seat, state.status)
        return held

    async def run(self) -> None:
        """Play ``options.games`` games (or for ever); raise the client's failure if
        the connection ends for good."""
        held = self._claim_held()
        slots = max(self.options.tables, len(held))
        tasks = [
            asyncio.create_task(self._slot(index, held[index] if index < len(held) else None))
            for index in range(slots)
        ]
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _slot(self, index: int, table_id: int | None) -> None:
        """One seat after another; a slot beyond ``tables`` (a resumed surplus) ends
        with its game."""
        while True:
            if table_id is None:
                if index >= self.options.tables or self._done():
                    return
                self._games_taken += 1
                table_id = await self._take_seat()
            else:
                self._games_taken += 1
            try:
                await self._play(table_id)
            except TableClosed as exc:
                log.info("%s", exc)
                self._games_taken -= 1  # no game was played there
            finally:
                self._busy.discard(table_id)
            table_id = None

    # ------------------------------------------------------------- a seat

    def _joinable(self, tables: list[TableSummary], older_than: int | None = None) -> list[int]:
        """Waiting open tables of other players with a free seat, oldest first."""
        found = []
        for table in tables:
            if (
                table.status != WAITING
                or table.free_seats < 1
                or table.settings.get("access", "open") != "open"
                or table.host.casefold() == self._me
                or table.id in self._busy
                or any((s.nickname or "").casefold() == self._me for s in table.seats)
                or (older_than is not None and table.id >= older_than)
            ):
                continue
            found.append(table.id)
        return sorted(found)

    async def _join_one(self, candidates: list[int]) -> TableState | None:
        for table_id in candidates:
            if table_id in self._busy:
                continue
            self._busy.add(table_id)
            try:
                state = await self.client.join_table(table_id)
            except ServerError as exc:  # filled, started or closed meanwhile
                self._busy.discard(table_id)
                log.debug("table %s: cannot join: %s", table_id, exc.code)
                continue
            log.info("table %s: joined at seat %s", table_id, state.my_seat)
            return state
        return None

    async def _take_seat(self) -> int:
        """Join a waiting table, or open one; the table's id."""
        warned = False
        while True:
            if self.client.failure is not None:
                raise self.client.failure
            held = self._claim_held(most=1)
            if held:
                return held[0]
            try:
                if self.options.join:
                    state = await self._join_one(self._joinable(await self.client.list_tables()))
                    if state is not None:
                        return state.id
                state = await self.client.create_table(self.options.settings)
            except ServerError as exc:
                if exc.code not in ("too_many_tables", "unreachable", "server_busy"):
                    raise
                if not warned:
                    log.warning("cannot take a seat yet (%s); trying again", exc)
                    warned = True
            except Disconnected:
                pass
            else:
                self._busy.add(state.id)
                log.info("table %s: opened, waiting for players", state.id)
                return state.id
            await asyncio.sleep(LOOK_EVERY)

    async def _until_started(self, state: TableState) -> TableState:
        """Wait until the game at this table starts (starting it when this player
        hosts it); returns the table where the game runs, which is another one if
        the player moved to an older waiting table."""
        opened = time.monotonic()
        looked = opened
        client = self.client
        while state.status == WAITING:
            change = client.next_change()
            hosting = state.host.casefold() == self._me
            if hosting and client.connected:
                now = time.monotonic()
                fill = self.options.fill
                waited = now - opened >= self.options.wait
                if state.free_seats == 0 or (fill is not None and waited):
                    with contextlib.suppress(ServerError, Disconnected):
                        await client.start_game(state.id, None if state.free_seats == 0 else fill)
                    continue
                if self.options.join and now - looked >= LOOK_EVERY and _alone(state):
                    looked = now
                    moved = await self._move_to_older(state)
                    if moved is not None:
                        return await self._until_started(moved)
            if state.status == CLOSED:
                break
            if client.failure is not None:
                raise client.failure
            await client.wait_changed(LOOK_EVERY, change)
        if state.status == CLOSED:
            raise TableClosed(f"table {state.id}: closed ({state.closed_reason})")
        return state

    async def _move_to_older(self, state: TableState) -> TableState | None:
        """Leave this player's empty table for an older one that waits for players."""
        with contextlib.suppress(ServerError, Disconnected):
            older = self._joinable(await self.client.list_tables(), older_than=state.id)
            if older:
                await self.client.leave_table(state.id)
                self._busy.discard(state.id)
                log.info("table %s: closed, moving to an older table", state.id)
                return await self._join_one(older) or await self._reopen()
        return None

    async def _reopen(self) -> TableState:
        return self.client.tables[await self._take_seat()]

    async def _play(self, table_id: int) -> None:
        state = self.client.tables[table_id]
        if state.status == WAITING:
            state = await self._until_started(state)
        self._busy.add(state.id)
        seed = random.randrange(2**31) if self.options.seed is None else self.options.seed
        bot = make_bot(self.options.level, seed=seed + state.id)
        log.info("table %s: playing seat %s", state.id, state.my_seat)
        try:
            end = await play_table(self.client, state.id, bot.decide)
        finally:
            self._busy.discard(state.id)
        self.games_ended += 1
        winners = " ".join(str(seat) for seat in end.winners)
        totals = " ".join(str(total) for total in end.totals)
        log.info("table %s: game over; winners %s; totals %s", state.id, winners, totals)


def _alone(state: TableState) -> bool:
    """No one but the host has sat down yet (a computer opponent the settings
    asked for does not count: it waits for people too)."""
    return all(seat.nickname is None for seat in state.seats[1:])
