"""Who sits at a table and who follows it: seats, subscribers, joining, leaving,
computer opponents put in seats, the start of the game.

:class:`Seating` is the part of :class:`~romme.server.table.actor.TableActor` that
deals with people and seats; like everything the actor does, its methods run in
the table's task. What it needs of the game (sending a table, dealing, waking the
computer opponents) are the hooks at the end, which the actor provides.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import Any, TypeVar

from romme.engine.actions import Action, NextRound
from romme.engine.events import Event
from romme.engine.game import Game
from romme.engine.rules import Rules
from romme.server import messages
from romme.server.messages import dumps
from romme.server.protocol import ProtocolError
from romme.server.settings import TableSettings
from romme.server.table.host import Subscriber, TableHost
from romme.server.table.seats import CLOSED, PLAYING, WAITING, SeatState, TableStatus
from romme.store import StoreError
from romme.store.chip_policy import operating_cost

__all__ = ["Seating"]

log = logging.getLogger("romme.server.table")

T = TypeVar("T")


class Seating:
    """The seats of a table and the connections that follow it (the attributes are
    set by the actor)."""

    server: TableHost
    id: int
    host_id: int
    host: str
    """The host's nickname."""
    settings: TableSettings
    rules: Rules
    seats: list[SeatState]
    match_seed: bytes
    status: TableStatus
    game: Game | None
    subscribers: dict[Subscriber, int | None]
    """Connections at this table and the seat each plays (``None``: watching)."""
    invited: dict[int, int]
    """Invitees with an open invitation, and when it expires (ms): they may see
    and join an invite-only table until they decline or it expires."""
    epoch: int | None
    """The ownership lease's epoch this node holds, given with every write of the
    table's state (``romme.store.leases``)."""
    actions: list[dict[str, Any]]
    """The game's action log as stored (each with ``by`` unless the player's own)."""

    # ------------------------------------------------------------- queries

    def seat_of(self, player_id: int) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.bot is None and seat.player_id == player_id:
                return index
        return None

    def free_seats(self) -> list[int]:
        return [i for i, seat in enumerate(self.seats) if not seat.taken]

    def connected(self, seat: int) -> bool:
        player = self.seats[seat].player_id
        return any(s == seat and c.player_id == player for c, s in self.subscribers.items())

    def played_by_bots(self) -> set[int]:
        """The seats a computer opponent plays now (bots, and people away or gone)."""
        return {i for i, seat in enumerate(self.seats) if seat.bot_controlled}

    def visible_to(self, player_id: int) -> bool:
        """Whether the lobby lists this table for a player."""
        return (
            self.settings.access == "open"
            or self.is_invited(player_id)
            or self.seat_of(player_id) is not None
        )

    def is_invited(self, player_id: int) -> bool:
        """Whether the player holds an open, unexpired invitation to this table."""
        return self.invited.get(player_id, 0) > self.server.clock.now_ms()

    def seat_info(self) -> list[dict[str, Any]]:
        return [
            {
                "seat": i,
                "nickname": None if s.bot else s.nickname,
                "level": None if s.bot else s.level,
                "bot": s.bot,
                "connected": s.bot is None and s.player_id is not None and self.connected(i),
                "away": s.away,
                "left": s.left,
            }
            for i, s in enumerate(self.seats)
        ]

    def about(self) -> dict[str, Any]:
        """What the lobby and the table's own page both show first of a table."""
        return {
            "id": self.id,
            "host": self.host,
            "settings": self.settings.to_json(),
            "operating_cost": self.operating_cost(),
            "status": self.status,
            "seats": self.seat_info(),
        }

    def operating_cost(self) -> dict[str, int]:
        """The house's part of a full table's pot, as the lobby and the table show it
        before a player sits (fixed for the game when it starts)."""
        percent = self.server.options.chip_cost_percent
        pot = self.settings.stake * self.settings.seats
        return {"percent": percent, "amount": operating_cost(pot, percent)}

    def summary(self) -> dict[str, Any]:
        """The table as the lobby lists it."""
        return {
            **self.about(),
            "free_seats": len(self.free_seats()) if self.status == WAITING else 0,
        }

    def _broadcast(self, data: dict[str, Any]) -> None:
        text = dumps(data)
        for conn in list(self.subscribers):
            conn.send(text)

    def _broadcast_tables(self) -> None:
        for conn in list(self.subscribers):
            self._send_table(conn)

    def _seat_update(self) -> None:
        self._broadcast(messages.seat_update(self.id, self.seat_info()))
        self.server.lobby_changed()

    async def _save_seats(self) -> None:
        seats = [s.to_store() for s in self.seats]
        await self._owner_write(
            self.server.store.update_table(self.id, seats=seats, epoch=self.epoch)
        )

    async def _owner_write(self, write: Awaitable[T]) -> T:
        """A write of the table's state, fenced by the lease's epoch. If another
        node took the table meanwhile, nothing was written: the table stops here
        for good (its clients reconnect and find it where it runs) and the client
        whose message caused the write is told ``server_busy``."""
        try:
            return await write
        except StoreError as exc:
            if exc.code != "lease_lost":
                raise
            log.error("lease_lost", extra={"table": self.id, "error": exc.message})
            self._stop_lost_table()
            raise ProtocolError("server_busy") from exc

    # ------------------------------------------------------------- seating

    async def subscribe(self, conn: Subscriber, msg_id: Any = None) -> None:
        """A connection of a seated player (on connect or join): send the table."""
        seat = self.seat_of(conn.player_id)
        self.subscribers[conn] = seat
        conn.tables.add(self.id)
        # A connection is no sign that the player is back (a page that was left open
        # reconnects by itself after a network drop or a restart): the seat stays away.
        self._send_table(conn, msg_id)
        self._seat_update()
        self._check_ready()
        self._schedule_bots()

    async def unsubscribe(self, conn: Subscriber) -> None:
        self.subscribers.pop(conn, None)
        conn.tables.discard(self.id)
        self._seat_update()
        self._check_ready()

    async def join(self, conn: Subscriber, msg_id: Any, invited: bool = False) -> None:
        pid = conn.player_id
        seat = self.seat_of(pid)
        if seat is not None:
            # Already seated: coming back (a reload, or after leaving a running game).
            state = self.seats[seat]
            if state.left and self.status == PLAYING:
                state.left = False
                state.left_turns = None
                state.away = False
                state.timeouts = 0
                await self._save_seats()
            self._back(seat)  # the player chose to sit down again
            await self.subscribe(conn, msg_id)
            return
        if self.status != WAITING:
            raise ProtocolError("already_started")
        if self.settings.access == "invite" and not invited and not self.is_invited(pid):
            raise ProtocolError("invite_only")
        await self._refuse_blocked(pid)
        free = self.free_seats()
        if not free:
            raise ProtocolError("table_full")
        await self.server.store.require_chips(pid, self.settings.stake)
        self.seats[free[0]] = SeatState(player_id=pid, nickname=conn.nickname, level=conn.level)
        await self._save_seats()
        for other in list(self.subscribers):
            if other.player_id == pid:
                self.subscribers[other] = free[0]
        await self.subscribe(conn, msg_id)
        self._broadcast_tables()

    async def watch(self, conn: Subscriber, msg_id: Any) -> None:
        if self.status == CLOSED:
            raise ProtocolError("no_such_table")
        if self.settings.access == "invite" and not self.visible_to(conn.player_id):
            raise ProtocolError("invite_only")
        if self.seat_of(conn.player_id) is None:
            await self._refuse_blocked(conn.player_id)
        await self.subscribe(conn, msg_id)

    async def _refuse_blocked(self, pid: int) -> None:
        """``blocked`` when the host has blocked ``pid``: a blocked player may
        neither join nor watch the blocker's table. (At someone else's table both
        may sit; the blocker's chat filter holds there.)"""
        if await self.server.store.blocks(self.host_id, pid):
            raise ProtocolError("blocked", "the host of this table has blocked you")

    async def end_watch(self, player_id: int, reason: str) -> None:
        """An invitation to this invite-only table was declined or expired: the
        invitee's connections that watch it stop following it (no more updates
        nor chat, and their chat here is ``not_seated``) and are told
        ``table_closed`` with ``reason``; the table goes on for the others. A
        player seated here or holding another open invitation keeps watching."""
        if (
            self.settings.access != "invite"
            or self.seat_of(player_id) is not None
            or self.is_invited(player_id)
        ):
            return
        watching = [
            conn
            for conn, seat in self.subscribers.items()
            if conn.player_id == player_id and seat is None
        ]
        text = dumps(messages.table_closed(self.id, reason))
        for conn in watching:
            self.subscribers.pop(conn, None)
            conn.tables.discard(self.id)
            conn.send(text)

    async def leave(self, conn: Subscriber) -> None:
        await self.leave_player(conn.player_id)

    async def leave_player(self, pid: int) -> None:
        """The player leaves (also a guest whose nickname went to someone else)."""
        seat = self.seat_of(pid)
        for other in [c for c in self.subscribers if c.player_id == pid]:
            self.subscribers.pop(other, None)
            other.tables.discard(self.id)
        if seat is None:
            self._seat_update()
            return
        if self.status == WAITING:
            if pid == self.host_id:
                await self.close("the host left the table")
                return
            self.seats[seat] = SeatState()
            await self._save_seats()
            self._broadcast_tables()
            self.server.lobby_changed()
        elif self.status == PLAYING:
            game = self.game
            state = self.seats[seat]
            if game is not None and game.active[seat] and not state.left:
                state.left = True
                state.left_turns = self._own_turns(seat)
                await self._save_seats()
                self._seat_update()
                self._check_ready()
                self._schedule_bots()
            else:
                self._seat_update()
        else:
            self._seat_update()

    def _own_turns(self, seat: int) -> int:
        """The turns the seat's player has played themselves so far: draws and
        knocks not made by a timeout or a stand-in (``romme.store.outcome``
        voids a game given up before a few of them)."""
        return sum(
            1
            for record in self.actions
            if record.get("seat") == seat
            and record.get("type") in ("draw", "knock")
            and record.get("by") is None
        )

    async def close(self, reason: str) -> None:
        """The host left before the start (or went and did not come back): the
        table goes away."""
        self.status = CLOSED
        self._broadcast(messages.table_closed(self.id, reason))
        for conn in list(self.subscribers):
            conn.tables.discard(self.id)
        self.subscribers.clear()
        await self._owner_write(
            self.server.store.update_table(self.id, status=CLOSED, epoch=self.epoch)
        )
        self.server.table_gone(self.id)

    async def set_seat(self, conn: Subscriber, seat: int, bot: str | None) -> None:
        if conn.player_id != self.host_id:
            raise ProtocolError("not_host")
        if self.status != WAITING:
            raise ProtocolError("already_started")
        if not 0 <= seat < len(self.seats):
            raise ProtocolError("bad_message", f"there is no seat {seat}")
        state = self.seats[seat]
        if state.human:
            raise ProtocolError("bad_message", f"seat {seat} is taken by a player")
        self.seats[seat] = SeatState(bot=bot)
        await self._save_seats()
        self._broadcast_tables()
        self.server.lobby_changed()

    async def start_game(self, conn: Subscriber, fill: str | None) -> None:
        if conn.player_id != self.host_id:
            raise ProtocolError("not_host")
        if self.status != WAITING:
            raise ProtocolError("already_started")
        before_fill = list(self.seats)
        if fill is not None:
            for index in self.free_seats():
                self.seats[index] = SeatState(bot=fill)
        if self.free_seats():
            raise ProtocolError(
                "seats_not_filled",
                f"seat(s) {', '.join(map(str, self.free_seats()))} are free: "
                "wait for players or put computer opponents there",
            )
        for seat in self.seats:
            if seat.bot is not None:
                record = await self.server.store.bot_player(seat.bot)
                seat.player_id = record.id
                seat.nickname = record.nickname
        stored = [s.to_store() for s in self.seats]
        if self.settings.stake > 0:
            # The stakes go into the pot in the transaction that stores the start.
            try:
                await self._owner_write(
                    self.server.store.start_staked_game(
                        self.id,
                        stored,
                        self.settings.stake,
                        self.operating_cost()["percent"],
                        epoch=self.epoch,
                    )
                )
            except StoreError:
                self.seats = before_fill
                raise
        else:
            await self._owner_write(
                self.server.store.update_table(
                    self.id, status=PLAYING, seats=stored, epoch=self.epoch
                )
            )
        self.status = PLAYING
        self.game = Game(self.rules, self.settings.seats, self.match_seed)
        log.info("game_started", extra={"table": self.id})
        self._broadcast_tables()
        self.server.lobby_changed()
        await self._play(NextRound(), by="table")

    def _back(self, seat: int) -> None:
        state = self.seats[seat]
        if state.away:
            state.away = False
            state.timeouts = 0
            self._seat_update()

    async def back(self, conn: Subscriber) -> None:
        seat = self.seat_of(conn.player_id)
        if seat is None:
            raise ProtocolError("not_seated")
        self._back(seat)

    # ---------------------------------------------------- hooks (the actor's)

    def _stop_lost_table(self) -> None:
        """Another node runs the table now: stop it here, writing nothing more."""
        raise NotImplementedError

    def _send_table(self, conn: Subscriber, msg_id: Any = None) -> None:
        """Send the table as this connection's seat sees it."""
        raise NotImplementedError

    def _check_ready(self) -> None:
        """Deal the next round if nobody is waited for at a round summary."""
        raise NotImplementedError

    def _schedule_bots(self) -> None:
        """Ask the computer opponents whose turn (or knock) it is."""
        raise NotImplementedError

    async def _play(
        self, action: Action, by: str | None, conn: Subscriber | None = None, msg_id: Any = None
    ) -> list[Event]:
        """Apply, commit and announce a move."""
        raise NotImplementedError
