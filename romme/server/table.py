"""One table: an actor that owns its :class:`~romme.engine.game.Game`.

Everything that changes a table runs in the table's own task, one thing at a
time, in the order it arrived (:meth:`TableActor.call` and :meth:`TableActor.post`),
so there are no races: the first knock the actor sees wins, a move that arrives
after the turn passed is refused by the engine.

An accepted action goes: engine (``Game.apply``: checked completely, nothing
half-applied) -> store (``append_actions``: committed) -> every connection at the
table, each getting only what its seat may see (``event.for_seat``, ``view_for``).
If the store fails, the game is rebuilt from the log and the move is refused, so
nobody ever sees a move the database does not hold.

Time: the turn timer, the knock window and the wait between rounds run on the
server's :class:`~romme.server.timers.Clock`. When a turn runs out the server plays
``timeout_action``; after ``timeouts_before_away`` timeouts in a row the seat is
marked away and a computer opponent plays it until the player is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import random
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from romme.engine.actions import (
    Action,
    Arrange,
    Draw,
    Knock,
    NextRound,
    action_from_json,
)
from romme.engine.errors import EngineError
from romme.engine.events import Discarded, Drew, Event, Knocked, RoundStarted, TurnStarted
from romme.engine.game import Game, Phase
from romme.engine.reference import timeout_action
from romme.engine.rules import Rules
from romme.server.encode import ViewEncoder
from romme.server.protocol import ProtocolError, TableSettings, dumps, table_action
from romme.server.timers import Timer

if TYPE_CHECKING:
    from romme.server.lobby import Connection, Hub

__all__ = ["SeatState", "TableActor"]

log = logging.getLogger("romme.server.table")

WAITING, PLAYING, FINISHED, CLOSED = "waiting", "playing", "finished", "closed"

SLOW_COMMIT = 0.25
"""Seconds after which a commit of the action log is logged as slow."""


@dataclass(slots=True)
class SeatState:
    """Who sits at a seat, and how it is played right now."""

    player_id: int | None = None
    nickname: str | None = None
    bot: str | None = None
    """A computer opponent's seat: its level."""
    left: bool = False
    """The player left during the game: a computer opponent plays on."""
    away: bool = False
    """The player timed out too often: a computer opponent plays until they are back."""
    timeouts: int = 0

    @property
    def taken(self) -> bool:
        return self.bot is not None or self.player_id is not None

    @property
    def human(self) -> bool:
        return self.bot is None and self.player_id is not None

    def to_store(self) -> dict[str, Any]:
        return {
            "player": self.player_id,
            "nickname": self.nickname,
            "bot": self.bot,
            "left": self.left,
        }

    @classmethod
    def from_store(cls, data: Any) -> SeatState:
        if not isinstance(data, dict):
            return cls()
        return cls(
            player_id=data.get("player"),
            nickname=data.get("nickname"),
            bot=data.get("bot"),
            left=bool(data.get("left", False)),
        )


def bot_seed(match_seed: bytes, seat: int) -> int:
    """The seed of the computer opponent at ``seat`` (derived from the match seed)."""
    digest = hashlib.sha256(match_seed + f"romme-bot:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class TableActor:
    """A table and its game, changed only from its own task."""

    def __init__(
        self,
        hub: Hub,
        table_id: int,
        host_id: int,
        host: str,
        settings: TableSettings,
        rules: Rules,
        seats: list[SeatState],
        match_seed: bytes,
        status: str,
    ) -> None:
        self.hub = hub
        self.id = table_id
        self.host_id = host_id
        self.host = host
        self.settings = settings
        self.rules = rules
        self.seats = seats
        self.match_seed = match_seed
        self.status = status
        self.game: Game | None = None
        self.actions: list[dict[str, Any]] = []
        self.subscribers: dict[Connection, int | None] = {}
        """Connections at this table and the seat each plays (``None``: watching)."""
        self.invited: dict[int, int] = {}
        """Invitees with an open invitation, and when it expires (ms): they may see
        and join an invite-only table until they decline or it expires."""
        self.chat: deque[dict[str, Any]] = deque(maxlen=50)
        self.ratings: dict[str, Any] | None = None
        self._encoder = ViewEncoder()
        self._recent: deque[tuple[int, list[Event]]] = deque(maxlen=hub.options.resync_buffer)
        self._inbox: asyncio.Queue[
            tuple[Callable[..., Awaitable[Any]], tuple[Any, ...], asyncio.Future[Any] | None]
        ] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        # Time.
        self._turn_timer: Timer | None = None
        self._turn_deadline: int | None = None
        self._turn_start: int | None = None
        """When the seat's own time began (or begins: after an open knock window)."""
        self._turn_token = 0
        self._knock_timer: Timer | None = None
        self._knock_deadline: int | None = None
        self._knock_token = 0
        self._held_draw: tuple[Connection | None, Any, Draw] | None = None
        self._round_timer: Timer | None = None
        self._round_deadline: int | None = None
        self._ready: set[int] = set()
        self._at_summary: set[int] = set()
        """Seats connected when the round ended: they are waited for even if their
        connection drops meanwhile (a reload must not skip the summary)."""
        self._expire_timer: Timer | None = None
        # Computer opponents.
        self._bot_busy: set[int] = set()
        self._knock_asked: set[int] = set()
        self._bot_failures = 0

    # ------------------------------------------------------------ the actor

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"table-{self.id}")

    async def _run(self) -> None:
        while True:
            func, args, future = await self._inbox.get()
            if future is not None and future.cancelled():
                continue
            try:
                result = await func(*args)
            except asyncio.CancelledError:
                if future is not None and not future.done():
                    future.cancel()
                raise
            except Exception as exc:
                if future is not None and not future.done():
                    future.set_exception(exc)
                elif not isinstance(exc, ProtocolError | EngineError):
                    log.exception("table_task_failed", extra={"table": self.id})
            else:
                if future is not None and not future.done():
                    future.set_result(result)

    async def call(self, func: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        """Run ``func(*args)`` in the table's task and return its result."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._inbox.put_nowait((func, args, future))
        return await future

    def post(self, func: Callable[..., Awaitable[Any]], *args: Any) -> None:
        """Run ``func(*args)`` in the table's task later; errors are logged."""
        self._inbox.put_nowait((func, args, None))

    async def stop(self) -> None:
        """Finish what is queued (writes included), then stop the task and timers."""
        self._closing = True
        self._cancel_timers()
        if self._task is not None:
            done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

            async def finish() -> None:
                done.set_result(None)

            self._inbox.put_nowait((finish, (), None))
            try:
                await asyncio.wait_for(asyncio.shield(done), timeout=5)
            except TimeoutError:
                log.warning("table_stop_timeout", extra={"table": self.id})
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None

    def _cancel_timers(self) -> None:
        for timer in (self._turn_timer, self._knock_timer, self._round_timer, self._expire_timer):
            if timer is not None:
                timer.cancel()
        self._turn_timer = self._knock_timer = self._round_timer = self._expire_timer = None

    # ------------------------------------------------------------- queries

    @property
    def version(self) -> int:
        return len(self.actions)

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

    def bot_controlled(self, seat: int) -> bool:
        state = self.seats[seat]
        return state.bot is not None or state.left or state.away

    def bot_level(self, seat: int) -> str:
        return self.seats[seat].bot or self.hub.options.away_bot

    def visible_to(self, player_id: int) -> bool:
        """Whether the lobby lists this table for a player."""
        return (
            self.settings.access == "open"
            or self.is_invited(player_id)
            or self.seat_of(player_id) is not None
        )

    def is_invited(self, player_id: int) -> bool:
        """Whether the player holds an open, unexpired invitation to this table."""
        return self.invited.get(player_id, 0) > self.hub.clock.now_ms()

    def seat_info(self) -> list[dict[str, Any]]:
        return [
            {
                "seat": i,
                "nickname": None if s.bot else s.nickname,
                "bot": s.bot,
                "connected": s.bot is None and s.player_id is not None and self.connected(i),
                "away": s.away,
                "left": s.left,
            }
            for i, s in enumerate(self.seats)
        ]

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "host": self.host,
            "settings": self.settings.to_json(),
            "status": self.status,
            "seats": self.seat_info(),
            "free_seats": len(self.free_seats()) if self.status == WAITING else 0,
        }

    def timer_json(self) -> dict[str, Any] | None:
        game = self.game
        if game is None or not game.in_round or self._turn_deadline is None:
            return None
        knock = None
        if self._knock_deadline is not None and game.knock_seats():
            knock = {"seats": list(game.knock_seats()), "deadline": self._knock_deadline}
        return {
            "seat": game.current,
            "deadline": self._turn_deadline,
            "start": self._turn_start,
            "seconds": self.rules.turn_seconds,
            "knock": knock,
        }

    def next_round_json(self) -> dict[str, Any] | None:
        game = self.game
        if game is None or game.phase is not Phase.ROUND_OVER or self._round_deadline is None:
            return None
        return {"waiting_for": sorted(self._waiting_for()), "deadline": self._round_deadline}

    def table_json(self, seat: int | None) -> dict[str, Any]:
        game = self.game
        return {
            "id": self.id,
            "host": self.host,
            "settings": self.settings.to_json(),
            "status": self.status,
            "seats": self.seat_info(),
            "my_seat": seat,
            "version": self.version,
            "view": None if game is None else self._encoder.view(game.view_for(seat)),
            "timer": self.timer_json(),
            "next_round": self.next_round_json(),
            "chat": list(self.chat),
            "ratings": self.ratings,
        }

    def _send_table(self, conn: Connection, msg_id: Any = None) -> None:
        seat = self.subscribers.get(conn)
        data: dict[str, Any] = {"type": "table", "table": self.table_json(seat)}
        if msg_id is not None:
            data["id"] = msg_id
        conn.send(dumps(data))

    def _broadcast(self, data: dict[str, Any]) -> None:
        text = dumps(data)
        for conn in list(self.subscribers):
            conn.send(text)

    def _broadcast_tables(self) -> None:
        for conn in list(self.subscribers):
            self._send_table(conn)

    def _seat_update(self) -> None:
        self._broadcast({"type": "seat_update", "table": self.id, "seats": self.seat_info()})
        self.hub.lobby_changed()

    # ------------------------------------------------------------- restore

    def restore(self, actions: list[dict[str, Any]], last_action_ms: int | None) -> None:
        """Rebuild the game by replaying its log (after a restart)."""
        self.actions = list(actions)
        if self.status != WAITING and actions:
            self.game = Game.replay(
                self.rules, self.settings.seats, self.match_seed, Game.actions_from_json(actions)
            )
            self._count_timeouts()
            start = last_action_ms if last_action_ms is not None else self.hub.clock.now_ms()
            self._set_timers(self._last_events(), start_ms=start)

    def _last_events(self) -> list[Event]:
        """Events standing for the state after a replay (to set the timers)."""
        game = self.game
        assert game is not None
        if game.in_round:
            if game.knock is not None and game.knock_seats():
                return [
                    Discarded(game.knock.discarder, game.discard[-1], game.knock_seats()),
                    TurnStarted(game.current),
                ]
            return [TurnStarted(game.current)]
        return []

    def _count_timeouts(self) -> None:
        """Timeouts in a row per seat, from the log (a timeout is marked ``by``)."""
        counts = [0] * len(self.seats)
        for record in self.actions:
            seat = record.get("seat")
            if not isinstance(seat, int) or not 0 <= seat < len(counts):
                continue
            if record.get("by") == "timeout":
                if record.get("type") == "discard":
                    counts[seat] += 1
            elif record.get("by") is None and record.get("type") != "arrange":
                counts[seat] = 0
        for seat, count in zip(self.seats, counts, strict=True):
            seat.timeouts = count
            seat.away = seat.human and count >= self.rules.timeouts_before_away

    async def resume(self) -> None:
        """After a restore: finish what the crash interrupted, let bots move."""
        if self.status == PLAYING and self.game is None:
            # The server stopped between starting the game and dealing its first round.
            self.game = Game(self.rules, self.settings.seats, self.match_seed)
            await self._play(NextRound(), by="table")
            return
        game = self.game
        if game is not None and game.is_over and self.status != FINISHED:
            await self._finish()
        self._schedule_bots()

    # ------------------------------------------------------------- seating

    async def subscribe(self, conn: Connection, msg_id: Any = None) -> None:
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

    async def unsubscribe(self, conn: Connection) -> None:
        self.subscribers.pop(conn, None)
        conn.tables.discard(self.id)
        self._seat_update()
        self._check_ready()

    async def join(self, conn: Connection, msg_id: Any, invited: bool = False) -> None:
        pid = conn.player_id
        seat = self.seat_of(pid)
        if seat is not None:
            # Already seated: coming back (a reload, or after leaving a running game).
            state = self.seats[seat]
            if state.left and self.status == PLAYING:
                state.left = False
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
        free = self.free_seats()
        if not free:
            raise ProtocolError("table_full")
        self.seats[free[0]] = SeatState(player_id=pid, nickname=conn.nickname)
        await self._save_seats()
        for other in list(self.subscribers):
            if other.player_id == pid:
                self.subscribers[other] = free[0]
        await self.subscribe(conn, msg_id)
        self._broadcast_tables()

    async def watch(self, conn: Connection, msg_id: Any) -> None:
        if self.status == CLOSED:
            raise ProtocolError("no_such_table")
        if self.settings.access == "invite" and not self.visible_to(conn.player_id):
            raise ProtocolError("invite_only")
        await self.subscribe(conn, msg_id)

    async def leave(self, conn: Connection) -> None:
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
            self.hub.lobby_changed()
        elif self.status == PLAYING:
            game = self.game
            state = self.seats[seat]
            if game is not None and game.active[seat] and not state.left:
                state.left = True
                await self._save_seats()
                self._seat_update()
                self._check_ready()
                self._schedule_bots()
            else:
                self._seat_update()
        else:
            self._seat_update()

    async def close(self, reason: str) -> None:
        """The host left before the start (or went and did not come back): the
        table goes away."""
        self.status = CLOSED
        self._broadcast({"type": "table_closed", "table": self.id, "reason": reason})
        for conn in list(self.subscribers):
            conn.tables.discard(self.id)
        self.subscribers.clear()
        await self.hub.store.update_table(self.id, status=CLOSED)
        self.hub.table_gone(self)

    async def set_seat(self, conn: Connection, seat: int, bot: str | None) -> None:
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
        self.hub.lobby_changed()

    async def _save_seats(self) -> None:
        await self.hub.store.update_table(self.id, seats=[s.to_store() for s in self.seats])

    async def start_game(self, conn: Connection, fill: str | None) -> None:
        if conn.player_id != self.host_id:
            raise ProtocolError("not_host")
        if self.status != WAITING:
            raise ProtocolError("already_started")
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
                record = await self.hub.store.bot_player(seat.bot)
                seat.player_id = record.id
                seat.nickname = record.nickname
        self.status = PLAYING
        await self.hub.store.update_table(
            self.id, status=PLAYING, seats=[s.to_store() for s in self.seats]
        )
        self.game = Game(self.rules, self.settings.seats, self.match_seed)
        log.info("game_started", extra={"table": self.id})
        self._broadcast_tables()
        self.hub.lobby_changed()
        await self._play(NextRound(), by="table")

    # -------------------------------------------------------------- playing

    async def client_action(self, conn: Connection, data: dict[str, Any], msg_id: Any) -> None:
        game = self.game
        if game is None or self.status == WAITING:
            raise ProtocolError("not_started")
        seat = self.seat_of(conn.player_id)
        if seat is None:
            raise ProtocolError("not_seated", "you watch this table: you cannot play here")
        if self.seats[seat].left:
            # A computer opponent plays the seat, and this connection no longer gets
            # the table's updates (nor would it get the answer to this action).
            raise ProtocolError("not_seated", "you left this game: join the table again to play on")
        action = table_action(data, seat)
        if not isinstance(action, Arrange):
            # A move says the player is back; sorting the hand does not (the web
            # page sorts every new hand by itself, with nobody at the screen).
            self._back(seat)
        if isinstance(action, Knock) and self._knock_deadline is None and game.knock is not None:
            raise ProtocolError("knock_closed", "too late: the knock window has closed")
        if (
            isinstance(action, Draw)
            and self._knock_deadline is not None
            and game.current == seat
            and game.phase is Phase.DRAW
        ):
            # The knock window is open: the draw waits until it closes. One draw
            # waits at a time; a computer opponent's gives way to the player's own.
            if self._held_draw is not None and self._held_draw[0] is not None:
                raise ProtocolError(
                    "draw_pending", "your draw already waits for the knock window to close"
                )
            self._held_draw = (conn, msg_id, action)
            return
        await self._play(action, by=None, conn=conn, msg_id=msg_id)
        if not isinstance(action, Arrange):
            self.seats[seat].timeouts = 0

    def _back(self, seat: int) -> None:
        state = self.seats[seat]
        if state.away:
            state.away = False
            state.timeouts = 0
            self._seat_update()

    async def back(self, conn: Connection) -> None:
        seat = self.seat_of(conn.player_id)
        if seat is None:
            raise ProtocolError("not_seated")
        self._back(seat)

    async def _play(
        self, action: Action, by: str | None, conn: Connection | None = None, msg_id: Any = None
    ) -> list[Event]:
        """Apply, commit, tell everyone. Raises the engine's error if illegal."""
        game = self.game
        assert game is not None
        events = game.apply(action)
        record = action.to_json()
        if by is not None:
            record["by"] = by
        started = time.perf_counter()
        try:
            await self.hub.store.append_actions(self.id, self.version + 1, [record])
        except Exception as exc:
            log.error("append_failed", extra={"table": self.id, "error": repr(exc)})
            self.game = Game.replay(
                self.rules,
                self.settings.seats,
                self.match_seed,
                Game.actions_from_json(self.actions),
            )
            raise ProtocolError("server_busy") from exc
        took = time.perf_counter() - started
        if took > SLOW_COMMIT:
            log.warning("slow_commit", extra={"table": self.id, "ms": round(took * 1000, 1)})
        self.actions.append(record)
        self._recent.append((self.version, events))
        self._set_timers(events)
        self._send_update(events, conn, msg_id)
        if any(isinstance(e, RoundStarted) for e in events):
            self.hub.lobby_changed()
        if game.is_over:
            await self._finish()
        else:
            self._check_ready()
            self._schedule_bots()
        return events

    def _update_for(
        self, seat: int | None, version: int, events: Iterable[Event], with_view: bool = True
    ) -> dict[str, Any]:
        game = self.game
        assert game is not None
        shown = []
        for event in events:
            seen = event.for_seat(seat)
            if seen is not None:
                shown.append(seen.to_json())
        data = {
            "type": "update",
            "table": self.id,
            "version": version,
            "events": shown,
            "view": self._encoder.view(game.view_for(seat)) if with_view else None,
            "timer": self.timer_json() if with_view else None,
        }
        if with_view and game.phase is Phase.ROUND_OVER:
            data["next_round"] = self.next_round_json()
        return data

    def _send_update(self, events: list[Event], origin: Connection | None, msg_id: Any) -> None:
        texts: dict[int | None, str] = {}
        for conn, seat in list(self.subscribers.items()):
            text = texts.get(seat)
            if text is None:
                text = texts[seat] = dumps(self._update_for(seat, self.version, events))
            if conn is origin and msg_id is not None:
                conn.send(text[:-1] + f',"id":{dumps(msg_id)}}}')
            else:
                conn.send(text)

    async def resync(self, conn: Connection, since: int | None, msg_id: Any) -> None:
        if conn not in self.subscribers:
            raise ProtocolError("not_seated", "join or watch the table first")
        seat = self.subscribers[conn]
        oldest = self._recent[0][0] if self._recent else self.version + 1
        if self.game is None or since is None or since > self.version or since + 1 < oldest:
            self._send_table(conn, msg_id)
            return
        missed = [(v, ev) for v, ev in self._recent if v > since]
        for index, (version, events) in enumerate(missed):
            last = index == len(missed) - 1
            data = self._update_for(seat, version, events, with_view=last)
            if last and msg_id is not None:
                data["id"] = msg_id
            conn.send(dumps(data))
        if not missed:
            self._send_table(conn, msg_id)

    async def view_json(self, conn: Connection) -> dict[str, Any]:
        """The seat's view as JSON (for a hint)."""
        game = self.game
        seat = self.seat_of(conn.player_id)
        if game is None:
            raise ProtocolError("not_started")
        if seat is None:
            raise ProtocolError("not_seated")
        return self._encoder.view(game.view_for(seat))

    async def chat_message(self, conn: Connection, text: str) -> None:
        if conn not in self.subscribers and self.seat_of(conn.player_id) is None:
            raise ProtocolError("not_seated", "join or watch the table to chat there")
        message = await self.hub.store.add_chat(self.id, conn.player_id, text)
        data = self.hub.chat_json(message)
        self.chat.append(data)
        self._broadcast({"type": "table_chat", "table": self.id, "message": data})

    # ------------------------------------------------------------------ time

    def _set_timers(self, events: list[Event], start_ms: int | None = None) -> None:
        game = self.game
        assert game is not None
        clock = self.hub.clock
        now = clock.now_ms() if start_ms is None else start_ms
        new_turn = any(isinstance(e, TurnStarted | Knocked) for e in events)
        knock_opened = any(isinstance(e, Discarded) and e.knock_seats for e in events)
        if any(isinstance(e, Knocked) for e in events):
            self._fail_held_draw()
        if any(isinstance(e, Drew | Knocked) for e in events) or not game.knock_seats():
            self._close_knock_window()
        if knock_opened and game.knock_seats():
            self._knock_token += 1
            token = self._knock_token
            self._knock_asked.clear()
            window = self.rules.knock_window_seconds
            self._knock_deadline = clock.deadline_ms(window, now)
            if self._knock_timer is not None:
                self._knock_timer.cancel()
            delay = max(0.0, (self._knock_deadline - clock.now_ms()) * clock.scale / 1000)
            self._knock_timer = clock.call_later(
                delay, partial(self.post, self._on_knock_closed, token)
            )
        if game.in_round:
            if new_turn or self._turn_deadline is None:
                self._turn_token += 1
                token = self._turn_token
                start = self._knock_deadline if self._knock_deadline is not None else now
                self._turn_start = start
                self._turn_deadline = clock.deadline_ms(self.rules.turn_seconds, start)
                if self._turn_timer is not None:
                    self._turn_timer.cancel()
                delay = max(0.0, (self._turn_deadline - clock.now_ms()) * clock.scale / 1000)
                self._turn_timer = clock.call_later(
                    delay, partial(self.post, self._on_turn_timeout, token)
                )
        else:
            self._turn_deadline = self._turn_start = None
            if self._turn_timer is not None:
                self._turn_timer.cancel()
                self._turn_timer = None
            self._close_knock_window()
        if game.phase is Phase.ROUND_OVER:
            if self._round_deadline is None:
                self._ready.clear()
                self._at_summary = {s for s in range(len(self.seats)) if self.connected(s)}
                self._round_deadline = clock.deadline_ms(self.hub.options.next_round_seconds, now)
                delay = max(0.0, (self._round_deadline - clock.now_ms()) * clock.scale / 1000)
                self._round_timer = clock.call_later(
                    delay, partial(self.post, self._on_round_deadline, game.round_no)
                )
        else:
            self._round_deadline = None
            if self._round_timer is not None:
                self._round_timer.cancel()
                self._round_timer = None

    def _close_knock_window(self) -> None:
        self._knock_deadline = None
        if self._knock_timer is not None:
            self._knock_timer.cancel()
            self._knock_timer = None

    async def _on_knock_closed(self, token: int) -> None:
        if token != self._knock_token or self._knock_deadline is None:
            return
        self._close_knock_window()
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
        if token != self._turn_token or game is None or not game.in_round:
            return
        seat = game.current
        state = self.seats[seat]
        if state.human and not state.left:
            state.timeouts += 1
            if state.timeouts >= self.rules.timeouts_before_away and not state.away:
                state.away = True
                self._seat_update()
        log.info("turn_timeout", extra={"table": self.id, "seat": seat})
        for _ in range(4):
            if game.current != seat or not game.in_round or self._turn_token != token:
                break
            action = timeout_action(game.view_for(seat))
            if action is None:
                break
            try:
                await self._play(action, by="timeout")
            except ProtocolError:
                break

    def _waiting_for(self) -> set[int]:
        game = self.game
        if game is None:
            return set()
        return {
            s
            for s in range(len(self.seats))
            if game.active[s]
            and self.seats[s].human
            and not self.bot_controlled(s)
            and (self.connected(s) or s in self._at_summary)
            and s not in self._ready
        }

    async def next_round(self, conn: Connection) -> None:
        game = self.game
        seat = self.seat_of(conn.player_id)
        if seat is None:
            raise ProtocolError("not_seated")
        if game is None or game.phase is not Phase.ROUND_OVER:
            raise ProtocolError("nothing_to_do", "there is no round summary to close")
        self._back(seat)
        self._ready.add(seat)
        self._broadcast(
            {"type": "next_round", "table": self.id, "next_round": self.next_round_json()}
        )
        self._check_ready()

    def _check_ready(self) -> None:
        game = self.game
        if (
            game is not None
            and game.phase is Phase.ROUND_OVER
            and not self._closing
            and not self._waiting_for()
        ):
            self.post(self._deal_next, game.round_no)

    async def _on_round_deadline(self, round_no: int) -> None:
        await self._deal_next(round_no)

    async def _deal_next(self, round_no: int) -> None:
        game = self.game
        if game is None or game.phase is not Phase.ROUND_OVER or game.round_no != round_no:
            return
        await self._play(NextRound(), by="table")

    # ------------------------------------------------------- computer opponents

    def _schedule_bots(self) -> None:
        game = self.game
        if game is None or not game.in_round or self._closing or self.status != PLAYING:
            return
        if self._knock_deadline is not None:
            for seat in game.knock_seats():
                if self.bot_controlled(seat) and seat not in self._knock_asked:
                    self._knock_asked.add(seat)
                    self._ask_bot(seat, knock=True)
        seat = game.current
        if self.bot_controlled(seat) and seat not in self._bot_busy:
            self._ask_bot(seat)

    def _bot_delay(self, knock: bool) -> float:
        base = self.hub.options.bot_delay
        if base <= 0 or not self.subscribers:
            return 0.0
        delay = base * random.uniform(0.5, 1.5)
        if knock:
            delay = min(delay, self.hub.options.real(self.rules.knock_window_seconds) * 0.5)
        return delay

    def _ask_bot(self, seat: int, knock: bool = False) -> None:
        game = self.game
        assert game is not None
        if not knock:
            self._bot_busy.add(seat)
        view = self._encoder.view(game.view_for(seat))
        level = self.bot_level(seat)
        seed = bot_seed(self.match_seed, seat)
        delay = self._bot_delay(knock)
        token = self._knock_token

        async def think() -> None:
            try:
                if delay:
                    await asyncio.sleep(delay)
                answer = await self.hub.botpool.decide(level, seed, view)
            except Exception as exc:
                log.error("bot_failed", extra={"table": self.id, "seat": seat, "error": repr(exc)})
                answer = None
            self.post(self._on_bot_move, seat, answer, knock, token)

        self.hub.spawn(think())

    async def _on_bot_move(
        self, seat: int, answer: dict[str, Any] | None, knock: bool, token: int
    ) -> None:
        game = self.game
        if not knock:
            self._bot_busy.discard(seat)
        if game is None or not game.in_round or self._closing or not self.bot_controlled(seat):
            return
        if knock:
            if (
                answer is not None
                and answer.get("type") == "knock"
                and token == self._knock_token
                and self._knock_deadline is not None
            ):
                with contextlib.suppress(EngineError):
                    await self._play(Knock(seat), by="bot")
            return
        if game.current != seat:
            self._schedule_bots()
            return
        action: Action | None = None
        try:
            action = None if answer is None else action_from_json(answer)
        except EngineError:
            action = None
        if isinstance(action, Knock):
            action = None
        if action is None or getattr(action, "seat", None) != seat:
            action = timeout_action(game.view_for(seat))
        if action is None:
            return
        if isinstance(action, Draw) and self._knock_deadline is not None:
            self._held_draw = (None, None, action)
            return
        try:
            await self._play(action, by="bot")
            self._bot_failures = 0
        except EngineError as exc:
            self._bot_failures += 1
            log.warning(
                "bot_illegal_move",
                extra={"table": self.id, "seat": seat, "code": exc.code, "action": answer},
            )
            fallback = timeout_action(game.view_for(seat))
            if fallback is not None and self._bot_failures < 5:
                await self._play(fallback, by="bot")
        except ProtocolError:
            # The store failed; try again a little later.
            await asyncio.sleep(0.5)
            self._schedule_bots()

    # ------------------------------------------------------------- game over

    async def _finish(self) -> None:
        game = self.game
        assert game is not None
        self._cancel_timers()
        seat_players = [s.player_id or 0 for s in self.seats]
        try:
            ratings = await self.hub.store.finish_game(
                self.id,
                winners=list(game.winners),
                totals=list(game.totals),
                seat_players=seat_players,
                results=[r.to_json() for r in game.results],
            )
        except Exception:
            log.exception("finish_failed", extra={"table": self.id})
            ratings = {}
        self.ratings = ratings
        self.status = FINISHED
        log.info("game_over", extra={"table": self.id, "winners": list(game.winners)})
        self._broadcast(
            {
                "type": "game_over",
                "table": self.id,
                "winners": list(game.winners),
                "totals": list(game.totals),
                "ratings": ratings,
            }
        )
        self.hub.lobby_changed()
        self.hub.game_finished(self)
        self._expire_timer = self.hub.clock.call_later(
            self.hub.options.finished_table_seconds * self.hub.clock.scale,
            lambda: self.hub.table_gone(self),
        )
