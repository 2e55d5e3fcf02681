"""The rematch at a finished table: the same seats and settings again, if every
person who played says yes.

A person seated at the finished table offers it by answering yes (``rematch`` with
``accept: true``); the others then answer within :data:`REMATCH_SECONDS`. When
everyone has said yes, a new table with the same settings starts at once: each
person in the seat they had, each computer opponent at its level, the same host.
A no or the time running out ends the offer. If the new table cannot start (a
player can no longer pay a staked table's stake, the database is away) the offer
ends ``failed``: the half-made table is closed (no chips moved: the stakes are
paid in the transaction that stores the start) and the player whose yes it was
gets the reason as its error. Everyone at the old table follows the offer
through ``rematch`` messages and the ``rematch`` of the table's state.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from romme.engine.errors import EngineError
from romme.server import messages
from romme.server.errors import ProtocolError
from romme.server.table.seats import FINISHED, WAITING, SeatState
from romme.server.timers import Clock, Timer
from romme.store import StoreError

if TYPE_CHECKING:
    from romme.server.connection import Connection
    from romme.server.registry import Registry
    from romme.server.settings import TableSettings
    from romme.server.table import TableActor

OpenTable = Callable[[int, str, "TableSettings", list[SeatState]], Awaitable["TableActor"]]
"""The hub's ``open_table``: a new waiting table with these seats."""

__all__ = ["REMATCH_SECONDS", "Rematches"]

log = logging.getLogger("romme.server.table")

REMATCH_SECONDS = 60
"""How long the players have to answer an offer."""


@dataclass(slots=True)
class _Starter:
    """The host as the new table sees it when the rematch starts it (the host's
    own connections follow it as every other player's do)."""

    player_id: int
    nickname: str = ""
    tables: set[int] = field(default_factory=set)

    def send(self, text: str) -> None:
        pass

    def error(self, exc: ProtocolError | EngineError | StoreError, msg_id: Any = None) -> None:
        pass


class Rematches:
    """The rematch offers of the finished tables."""

    def __init__(
        self,
        registry: Registry,
        clock: Clock,
        open_table: OpenTable,
        spawn: Callable[[Coroutine[Any, Any, Any]], object],
    ) -> None:
        self.registry = registry
        self.clock = clock
        self.open_table = open_table
        self.spawn = spawn
        self._timers: dict[int, Timer] = {}

    async def answer(self, conn: Connection, table_id: int, accept: bool) -> None:
        """A person's yes (which may open the offer) or no."""
        table = self.registry.table(table_id)
        state = await table.call(self._answer, table, conn.player_id, accept)
        if state["status"] == "open" and table_id not in self._timers:
            self._timers[table_id] = self.clock.call_later(
                REMATCH_SECONDS, lambda: self._spawn_expire(table)
            )
        if state["status"] != "open":
            timer = self._timers.pop(table_id, None)
            if timer is not None:
                timer.cancel()
        if state["status"] == "accepted":
            try:
                new_table = await self._start(table)
            except Exception as exc:
                # The answering player gets the reason (``insufficient_chips``
                # naming who cannot pay, say); everyone else the final state.
                log.info("rematch_failed", extra={"table": table_id, "error": repr(exc)})
                await table.call(self._failed, table)
                raise
            await table.call(self._started, table, new_table)

    @staticmethod
    async def _answer(table: TableActor, player_id: int, accept: bool) -> dict[str, Any]:
        if table.status != FINISHED:
            raise ProtocolError("not_finished", "a rematch is offered once the game is over")
        seat = table.seat_of(player_id)
        if seat is None or not table.seats[seat].human:
            raise ProtocolError("not_seated")
        if accept:  # the new game asks the same stake
            await table.server.store.require_chips(player_id, table.settings.stake)
        state = table.rematch
        if state is None:
            if not accept:
                raise ProtocolError("nothing_to_do", "nobody has offered a rematch")
            deadline = table.server.clock.deadline_ms(REMATCH_SECONDS)
            state = {"status": "open", "accepted": [], "declined": [], "deadline": deadline}
            state["waiting_for"] = [
                s for s, seat_state in enumerate(table.seats) if seat_state.human
            ]
            state["table"] = None
            table.rematch = state
        if state["status"] != "open":
            said = "could not start" if state["status"] == "failed" else f"is {state['status']}"
            raise ProtocolError("rematch_closed", f"the rematch {said}")
        if seat in state["waiting_for"]:
            state["waiting_for"].remove(seat)
            state["accepted" if accept else "declined"].append(seat)
        if not accept:
            state["status"] = "declined"
        elif not state["waiting_for"]:
            state["status"] = "accepted"
        table._broadcast(messages.rematch(table.id, state))
        return dict(state)

    def _spawn_expire(self, table: TableActor) -> None:
        self.spawn(self._expire(table))

    async def _expire(self, table: TableActor) -> None:
        self._timers.pop(table.id, None)
        if self.registry.tables.get(table.id) is not table:
            return  # the finished table has left memory, and its offer with it
        with contextlib.suppress(ProtocolError):
            await table.call(self._expired, table)

    @staticmethod
    async def _expired(table: TableActor) -> None:
        state = table.rematch
        if state is not None and state["status"] == "open":
            state["status"] = "expired"
            table._broadcast(messages.rematch(table.id, state))

    async def _start(self, old: TableActor) -> int:
        """The new table, started, followed by every connection of its people."""
        seats = [
            SeatState(bot=s.bot)
            if s.bot is not None
            else SeatState(player_id=s.player_id, nickname=s.nickname, level=s.level)
            for s in old.seats
        ]
        table = await self.open_table(old.host_id, old.host, old.settings, seats)
        try:
            await table.call(table.start_game, _Starter(old.host_id), None)
        except Exception:
            # Nobody follows the new table yet: closed, it leaves the lobby and
            # its host's count of waiting tables (the store keeps it as closed).
            with contextlib.suppress(Exception):
                await table.call(self._close_unstarted, table)
            raise
        for seat in seats:
            if seat.player_id is not None and seat.bot is None:
                for conn in list(self.registry.by_player.get(seat.player_id, ())):
                    await table.call(table.subscribe, conn, None)
        return table.id

    @staticmethod
    async def _close_unstarted(table: TableActor) -> None:
        if table.status == WAITING:
            await table.close("the rematch could not start")

    async def _failed(self, table: TableActor) -> None:
        """The accepted offer's table could not start: the offer is over
        (``failed``), told to everyone at the old table and to its people who no
        longer follow it."""
        state = table.rematch
        if state is None or state["status"] != "accepted" or state["table"] is not None:
            return
        state["status"] = "failed"
        data = messages.rematch(table.id, state)
        table._broadcast(data)
        following = {conn.player_id for conn in table.subscribers}
        text = messages.dumps(data)
        for seat in table.seats:
            if seat.human and seat.player_id is not None and seat.player_id not in following:
                self.registry.send_to_player(seat.player_id, text)

    @staticmethod
    async def _started(table: TableActor, new_table: int) -> None:
        if table.rematch is not None:
            table.rematch["table"] = new_table
            table._broadcast(messages.rematch(table.id, table.rematch))
