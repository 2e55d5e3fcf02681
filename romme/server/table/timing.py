"""A table's time: the turn, the knock window and the wait between rounds.

:class:`Timing` is the part of :class:`~romme.server.table.actor.TableActor` that
sets the three :class:`~romme.server.table.deadlines.Deadline` s from the events of
each move and acts when one is reached: a turn that runs out is played by the
server (``timeout_action``; after ``timeouts_before_away`` in a row the seat is
away and a computer opponent plays it), a draw held during the knock window is
played when the window closes, the next round is dealt when everyone is ready or
the wait is over.
"""

from __future__ import annotations

import logging
from typing import Any

from romme.engine.actions import Draw, NextRound
from romme.engine.errors import EngineError
from romme.engine.events import Discarded, Drew, Event, Knocked, TurnStarted
from romme.engine.game import Phase
from romme.engine.reference import timeout_action
from romme.server import messages
from romme.server.protocol import ProtocolError
from romme.server.table.botseats import BotSeats
from romme.server.table.deadlines import Deadline
from romme.server.table.host import Subscriber
from romme.server.table.mailbox import Work
from romme.server.table.seating import Seating

__all__ = ["Timing"]

log = logging.getLogger("romme.server.table")

STORE_RETRY = 1.0
"""Seconds between two tries of a move of the clock that the store refused."""


class Timing(Seating):
    """The deadlines of a table and what happens when they are reached (the
    attributes are set by the actor)."""

    turn: Deadline
    _turn_start: int | None
    """When the seat's own time began (or begins: after an open knock window)."""
    knock_window: Deadline
    _held_draw: tuple[Subscriber | None, Any, Draw] | None
    """A draw made while the knock window is open: who made it (``None``: a
    computer opponent), the request's id, the draw."""
    round_wait: Deadline
    _ready: set[int]
    """Seats that said "next" at the round summary."""
    _at_summary: set[int]
    """Seats connected when the round ended: they are waited for even if their
    connection drops meanwhile (a reload must not skip the summary)."""
    _closing: bool
    bots: BotSeats

    def timer_json(self) -> dict[str, Any] | None:
        game = self.game
        if game is None or not game.in_round or self.turn.at is None:
            return None
        knock = None
        if self.knock_window.at is not None and game.knock_seats():
            knock = {"seats": list(game.knock_seats()), "deadline": self.knock_window.at}
        return {
            "seat": game.current,
            "deadline": self.turn.at,
            "start": self._turn_start,
            "seconds": self.rules.turn_seconds,
            "knock": knock,
        }

    def next_round_json(self) -> dict[str, Any] | None:
        game = self.game
        if game is None or game.phase is not Phase.ROUND_OVER or self.round_wait.at is None:
            return None
        return {"waiting_for": sorted(self._waiting_for()), "deadline": self.round_wait.at}

    def _set_timers(self, events: list[Event], start_ms: int | None = None) -> None:
        game = self.game
        assert game is not None
        clock = self.server.clock
        now = clock.now_ms() if start_ms is None else start_ms
        new_turn = any(isinstance(e, TurnStarted | Knocked) for e in events)
        knock_opened = any(isinstance(e, Discarded) and e.knock_seats for e in events)
        if any(isinstance(e, Knocked) for e in events):
            self._fail_held_draw()
        if any(isinstance(e, Drew | Knocked) for e in events) or not game.knock_seats():
            self.knock_window.clear()
        if knock_opened and game.knock_seats():
            self.bots.knock_asked.clear()
            self.bots.knock_declined.clear()
            self.knock_window.set(clock.deadline_ms(self.rules.knock_window_seconds, now))
        if game.in_round:
            if new_turn or self.turn.at is None:
                start = self.knock_window.at if self.knock_window.at is not None else now
                self._turn_start = start
                self.turn.set(clock.deadline_ms(self.rules.turn_seconds, start))
        else:
            self._turn_start = None
            self.turn.clear()
            self.knock_window.clear()
        if game.phase is Phase.ROUND_OVER:
            if self.round_wait.at is None:
                self._ready.clear()
                self._at_summary = {s for s in range(len(self.seats)) if self.connected(s)}
                self.round_wait.set(clock.deadline_ms(self.server.options.next_round_seconds, now))
        else:
            self.round_wait.clear()

    async def _on_knock_closed(self, token: int) -> None:
        if not self.knock_window.is_current(token):
            return
        self.knock_window.clear()
        held, self._held_draw = self._held_draw, None
        if held is not None:
            conn, msg_id, action = held
            try:
                await self._play(action, by=None, conn=conn, msg_id=msg_id)
            except (ProtocolError, EngineError) as exc:
                if conn is not None:
                    conn.error(exc, msg_id)
        else:
            self._schedule_bots()

    def _fail_held_draw(self) -> None:
        held, self._held_draw = self._held_draw, None
        if held is not None and held[0] is not None:
            held[0].error(ProtocolError("not_your_turn", "a knock took the turn"), held[1])

    async def _on_turn_timeout(self, token: int) -> None:
        game = self.game
        if token != self.turn.token or game is None or not game.in_round:
            return
        seat = game.current
        state = self.seats[seat]
        if state.human and not state.left:
            state.timeouts += 1
            if state.timeouts >= self.rules.timeouts_before_away and not state.away:
                state.away = True
                self._seat_update()
        log.info("turn_timeout", extra={"table": self.id, "seat": seat})
        await self._until_stored(self._play_timeout, seat, token)

    async def _play_timeout(self, seat: int, token: int) -> None:
        """The moves the clock makes for a seat whose time ran out."""
        for _ in range(4):
            game = self.game
            if game is None or game.current != seat or not game.in_round:
                return
            if self.turn.token != token:
                return
            action = timeout_action(game.view_for(seat))
            if action is None:
                return
            await self._play(action, by="timeout")

    async def _until_stored(self, work: Work, *args: Any) -> None:
        """Run the clock's ``work``; if the store could not take its move
        (``server_busy``: the database is away), try again every
        :data:`STORE_RETRY` seconds, so that a table nobody moves at goes on by
        itself once the database is back."""
        try:
            await work(*args)
        except ProtocolError as exc:
            if exc.code != "server_busy" or self._closing:
                raise
            clock = self.server.clock
            clock.call_later(
                STORE_RETRY * clock.scale, lambda: self.post(self._until_stored, work, *args)
            )

    def _waiting_for(self) -> set[int]:
        game = self.game
        if game is None:
            return set()
        return {
            s
            for s in range(len(self.seats))
            if game.active[s]
            and self.seats[s].human
            and not self.seats[s].bot_controlled
            and (self.connected(s) or s in self._at_summary)
            and s not in self._ready
        }

    async def next_round(self, conn: Subscriber) -> None:
        game = self.game
        seat = self.seat_of(conn.player_id)
        if seat is None:
            raise ProtocolError("not_seated")
        if game is None or game.phase is not Phase.ROUND_OVER:
            raise ProtocolError("nothing_to_do", "there is no round summary to close")
        self._back(seat)
        self._ready.add(seat)
        self._broadcast(messages.next_round(self.id, self.next_round_json()))
        self._check_ready()

    def _check_ready(self) -> None:
        game = self.game
        if (
            game is not None
            and game.phase is Phase.ROUND_OVER
            and not self._closing
            and not self._waiting_for()
        ):
            self.post(self._until_stored, self._deal_next, game.round_no)

    async def _on_round_wait(self, token: int) -> None:
        game = self.game
        if game is not None and self.round_wait.is_current(token):
            await self._until_stored(self._deal_next, game.round_no)

    async def _deal_next(self, round_no: int) -> None:
        game = self.game
        if game is None or game.phase is not Phase.ROUND_OVER or game.round_no != round_no:
            return
        await self._play(NextRound(), by="table")

    # ----------------------------------------------------- hook (the actor's)

    def post(self, func: Work, *args: Any) -> None:
        """Run ``func(*args)`` in the table's task later."""
        raise NotImplementedError
