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

The actor is built in layers, one concern each: :mod:`~romme.server.table.seating`
(seats and who follows the table), :mod:`~romme.server.table.timing` (the turn, the
knock window, the wait between rounds), and here the game itself: moves, updates,
resync, the computer opponents' turns, restoring and finishing. The table sees the
server only through its :class:`~romme.server.table.host.TableHost`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Iterable
from typing import Any

from romme.engine.actions import Action, Arrange, Draw, Knock, NextRound
from romme.engine.errors import EngineError
from romme.engine.events import Event, RoundStarted
from romme.engine.game import Game, Phase
from romme.engine.reference import timeout_action
from romme.engine.rules import Rules
from romme.server import messages
from romme.server.encode import ViewEncoder
from romme.server.messages import dumps
from romme.server.protocol import ProtocolError, table_action
from romme.server.settings import TableSettings, settings_from_json
from romme.server.table.arrange import arrange_to_replace
from romme.server.table.botseats import Answer, BotSeats, bot_move
from romme.server.table.deadlines import Deadline
from romme.server.table.historytimes import HistoryTimes
from romme.server.table.host import Subscriber, TableHost
from romme.server.table.mailbox import Mailbox, Work
from romme.server.table.replay import events_after_replay, timeouts_in_a_row
from romme.server.table.seats import FINISHED, PLAYING, WAITING, SeatState, TableStatus
from romme.server.table.timing import Timing
from romme.store import StoreError, TableRecord

__all__ = ["TABLE_CHAT", "TableActor"]

log = logging.getLogger("romme.server.table")

TABLE_CHAT = 50
"""A table shows the last this many chat messages (also after a restart)."""

SLOW_COMMIT = 0.25
"""Seconds after which a commit of the action log is logged as slow."""


class TableActor(Timing):
    """A table and its game, changed only from its own task."""

    def __init__(
        self,
        host: TableHost,
        table_id: int,
        host_id: int,
        host_name: str,
        settings: TableSettings,
        rules: Rules,
        seats: list[SeatState],
        match_seed: bytes,
        status: TableStatus,
    ) -> None:
        self.server = host
        self.id = table_id
        self.host_id = host_id
        self.host = host_name
        self.settings = settings
        self.rules = rules
        self.seats = seats
        self.match_seed = match_seed
        self.status = status
        self.epoch: int | None = None
        """The ownership lease's epoch this node holds (``romme.store.leases``),
        checked by every append; ``None``: not checked (a table without a lease)."""
        self.game = None
        self.subscribers = {}
        self.invited = {}
        self.actions: list[dict[str, Any]] = []
        self.chat: deque[dict[str, Any]] = deque(maxlen=TABLE_CHAT)
        self.ratings: dict[str, Any] | None = None
        self.rematch: dict[str, Any] | None = None
        """The rematch offer after the game (``romme.server.rematch``)."""
        self._encoder = ViewEncoder()
        self.history_times = HistoryTimes()
        self._recent: deque[tuple[int, list[Event]]] = deque(maxlen=host.options.resync_buffer)
        self._mailbox = Mailbox(f"table-{table_id}", {"table": table_id})
        self._asleep = False
        self._closing = False
        self._replay_from: int | None = None
        """A restored game to replay, with the time of its last stored action."""
        # Time.
        clock = host.clock
        self.turn = Deadline(clock, lambda token: self.post(self._on_turn_timeout, token))
        self._turn_start: int | None = None
        """When the seat's own time began (or begins: after an open knock window)."""
        self.knock_window = Deadline(clock, lambda token: self.post(self._on_knock_closed, token))
        self._held_draw: tuple[Subscriber | None, Any, Draw] | None = None
        self.round_wait = Deadline(clock, lambda token: self.post(self._on_round_wait, token))
        self._ready: set[int] = set()
        self._at_summary: set[int] = set()
        """Seats connected when the round ended: they are waited for even if their
        connection drops meanwhile (a reload must not skip the summary)."""
        self._expire_timer: Any = None
        self.bots = BotSeats(
            host,
            table_id,
            match_seed,
            lambda seat, answer, knock, token: self.post(
                self._on_bot_move, seat, answer, knock, token
            ),
        )

    # ------------------------------------------------------------ the actor

    def start(self, *, on_first_use: bool = False) -> None:
        """Start the table's task, or (``on_first_use``) only when the table is
        first given work, or :meth:`wake` is called: what was posted before then
        (a restored table's :meth:`resume`) runs first."""
        self._asleep = on_first_use
        if not on_first_use:
            self._mailbox.start()

    def wake(self) -> None:
        """Start the task of a table started ``on_first_use``, if not yet done."""
        if self._asleep and not self._closing:
            self._asleep = False
            self._mailbox.start()

    async def call(self, func: Work, *args: Any) -> Any:
        """Run ``func(*args)`` in the table's task and return its result."""
        self.wake()
        return await self._mailbox.call(func, *args)

    def post(self, func: Work, *args: Any) -> None:
        """Run ``func(*args)`` in the table's task later; errors are logged."""
        self.wake()
        self._mailbox.post(func, *args)

    async def stop(self) -> None:
        """Finish what is queued (writes included), then stop the task and timers."""
        self._closing = True
        self._cancel_timers()
        await self._mailbox.stop()

    def _stop_lost_table(self) -> None:
        self._closing = True
        self._cancel_timers()
        self.server.lease_lost(self.id)

    def _cancel_timers(self) -> None:
        for deadline in (self.turn, self.knock_window, self.round_wait):
            deadline.cancel()
        if self._expire_timer is not None:
            self._expire_timer.cancel()
            self._expire_timer = None

    # ------------------------------------------------------------- queries

    @property
    def version(self) -> int:
        return len(self.actions)

    def table_json(self, seat: int | None) -> dict[str, Any]:
        game = self.game
        return {
            **self.about(),
            "my_seat": seat,
            "version": self.version,
            "view": None if game is None else self._encoder.seat_view(game, seat),
            "history_meta": self.history_times.to_json(game),
            "timer": self.timer_json(),
            "next_round": self.next_round_json(),
            "chat": [messages.public_chat(c) for c in self.chat],
            "ratings": self.ratings,
            "rematch": self.rematch,
        }

    def _send_table(self, conn: Subscriber, msg_id: Any = None) -> None:
        seat = self.subscribers.get(conn)
        data = self.table_json(seat)
        if conn.hidden_ids:
            data["chat"] = [
                messages.public_chat(c)
                for c in self.chat
                if c.get("player_id") not in conn.hidden_ids
            ]
        conn.send(dumps(messages.with_id(messages.table(data), msg_id)))

    # ------------------------------------------------------------- restore

    @classmethod
    def from_record(cls, host: TableHost, record: TableRecord, host_name: str) -> TableActor:
        """The table as the store holds it, with its log (after a restart; the game
        is replayed by :meth:`resume`). The stored settings and rules are taken as
        they are."""
        table = cls(
            host,
            record.id,
            record.host_id,
            host_name,
            settings_from_json(record.settings),
            Rules.from_json(record.rules),
            [SeatState.from_store(s) for s in record.seats],
            bytes(record.match_seed),
            record.status,
        )
        table.restore(list(record.actions), messages.ms(record.last_action_at))
        return table

    def restore(self, actions: list[dict[str, Any]], last_action_ms: int | None) -> None:
        """Take the table's log (after a restart). The game is replayed from it by
        :meth:`resume`, in the table's own task: a node that rebuilds hundreds of
        tables answers at once and replays them one at a time
        (``Hub.take_over``), each before its first use."""
        self.actions = list(actions)
        if self.status != WAITING and actions:
            counts = timeouts_in_a_row(self.actions, len(self.seats))
            for seat, count in zip(self.seats, counts, strict=True):
                seat.timeouts = count
                seat.away = seat.human and count >= self.rules.timeouts_before_away
            start = last_action_ms if last_action_ms is not None else self.server.clock.now_ms()
            self._replay_from = start

    def _replay(self) -> None:
        """Replay the restored log; the timers run from the time of the last stored
        action (a deadline that passed meanwhile fires at once)."""
        start, self._replay_from = self._replay_from, None
        if start is None:
            return
        self.game = Game.replay(
            self.rules, self.settings.seats, self.match_seed, Game.actions_from_json(self.actions)
        )
        self._set_timers(events_after_replay(self.game), start_ms=start)

    @property
    def replayed(self) -> bool:
        """Whether the game of a restored table has been replayed (always true of a
        table that was not restored)."""
        return self._replay_from is None

    async def resume(self) -> None:
        """After a restore: replay the game, finish what the crash interrupted, let
        bots move."""
        try:
            self._replay()
        except Exception:
            log.exception("restore_failed", extra={"table": self.id})
            self._closing = True
            self.server.restore_failed(self.id)
            return
        if self.status == PLAYING and self.game is None:
            # The server stopped between starting the game and dealing its first round.
            self.game = Game(self.rules, self.settings.seats, self.match_seed)
            await self._play(NextRound(), by="table")
            return
        game = self.game
        if game is not None and game.is_over and self.status != FINISHED:
            await self._finish()
        self._schedule_bots()

    # -------------------------------------------------------------- playing

    async def client_action(self, conn: Subscriber, data: dict[str, Any], msg_id: Any) -> None:
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
        if isinstance(action, Knock) and not self.knock_window.running and game.knock is not None:
            raise ProtocolError("knock_closed", "too late: the knock window has closed")
        if (
            isinstance(action, Draw)
            and self.knock_window.running
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
        if isinstance(action, Arrange):
            await self._arrange(action, conn, msg_id)
            return
        await self._play(action, by=None, conn=conn, msg_id=msg_id)
        self.seats[seat].timeouts = 0

    async def _arrange(self, action: Arrange, conn: Subscriber, msg_id: Any) -> None:
        """The seat's order of its hand: a new action, or in the place of the seat's
        arrange since the last move (:mod:`~romme.server.table.arrange`), answered
        to the sender only with its update of the current version."""
        earlier = arrange_to_replace(self.actions, action.seat)
        if earlier is None:
            await self._play(action, by=None, conn=conn, msg_id=msg_id)
            return
        game = self.game
        assert game is not None
        events = game.apply(action)
        # It takes the place of the stored one: the game's version (its views')
        # stays the number of actions in its log, as a replay of the log gives.
        game.version -= 1
        record = action.to_json()
        try:
            await self.server.store.replace_arrange(self.id, earlier, record, epoch=self.epoch)
        except Exception as exc:
            raise self._store_failed(exc) from exc
        self.actions[earlier - 1] = record
        for index, (version, _old) in enumerate(self._recent):
            if version == earlier:
                self._recent[index] = (version, events)
        update = self._update_for(action.seat, self.version, events)
        conn.send(dumps(messages.with_id(update, msg_id)))
        self._encoder.forget_shared()

    def _store_failed(self, exc: Exception) -> ProtocolError:
        """After a write of the log failed: the game is rebuilt from the log as the
        table holds it (nobody was told of the move), and the move is refused."""
        log.error("append_failed", extra={"table": self.id, "error": repr(exc)})
        if isinstance(exc, StoreError) and exc.code == "lease_lost":
            self._stop_lost_table()
        self.game = Game.replay(
            self.rules, self.settings.seats, self.match_seed, Game.actions_from_json(self.actions)
        )
        return ProtocolError("server_busy")

    async def _play(
        self, action: Action, by: str | None, conn: Subscriber | None = None, msg_id: Any = None
    ) -> list[Event]:
        """Apply, commit, tell everyone. Raises the engine's error if illegal."""
        game = self.game
        assert game is not None
        began = time.perf_counter()
        round_before, history_before = game.round_no, len(game.history)
        events = game.apply(action)
        record = action.to_json()
        if by is not None:
            record["by"] = by
        version = self.version + 1

        def stored() -> None:
            # The move is committed: everyone is told at once, in the callback
            # that learned it, rather than a turn of the event loop later when
            # this task resumes (meanwhile the table's task waits for the append,
            # so nothing else of the table runs in between).
            took = time.perf_counter() - started
            self.server.move_times.record("commit", took)
            if took > SLOW_COMMIT:
                log.warning("slow_commit", extra={"table": self.id, "ms": round(took * 1000, 1)})
            self.actions.append(record)
            self._recent.append((self.version, events))
            start = history_before if game.round_no == round_before else 0
            self.history_times.note(game, start, by, self.server.clock.now_ms())
            self._set_timers(events)
            self._send_update(events, conn, msg_id, by)
            self.server.move_times.record("move", time.perf_counter() - began)

        started = time.perf_counter()
        try:
            await self.server.store.append_actions(
                self.id, version, [record], epoch=self.epoch, stored=stored
            )
        except Exception as exc:
            raise self._store_failed(exc) from exc
        if any(isinstance(e, RoundStarted) for e in events):
            self.server.lobby_changed()
        if game.is_over:
            await self._finish()
        else:
            self._check_ready()
            self._schedule_bots()
        return events

    def _update_for(
        self,
        seat: int | None,
        version: int,
        events: Iterable[Event],
        with_view: bool = True,
        public: dict[int, dict[str, Any]] | None = None,
        by: str | None = None,
    ) -> dict[str, Any]:
        """``seat``'s update (``None``: a spectator's). ``public`` keeps the JSON of
        the events every seat sees alike, by the event's id, so that building the
        seats' updates of one move encodes each such event once."""
        game = self.game
        assert game is not None
        shown = []
        for event in events:
            seen = event.for_seat(seat)
            if seen is None:
                continue
            if seen is not event or public is None:
                shown.append(seen.to_json())
            elif (encoded := public.get(id(event))) is not None:
                shown.append(encoded)
            else:
                shown.append(public.setdefault(id(event), event.to_json()))
        return messages.update(
            self.id,
            version,
            shown,
            self._encoder.seat_view(game, seat) if with_view else None,
            self.timer_json() if with_view else None,
            self.next_round_json() if with_view and game.phase is Phase.ROUND_OVER else False,
            by,
        )

    def _send_update(
        self, events: list[Event], origin: Subscriber | None, msg_id: Any, by: str | None = None
    ) -> None:
        """Each distinct view's update is built and encoded once: one per seat, one
        that every spectator shares, whatever the number of connections. The
        player whose request made the move gets it as the reply (the request's id
        added to the encoded text)."""
        updates: dict[int | None, str] = {}
        public: dict[int, dict[str, Any]] = {}
        for conn, seat in list(self.subscribers.items()):
            text = updates.get(seat)
            if text is None:
                update = self._update_for(seat, self.version, events, public=public, by=by)
                text = updates[seat] = dumps(update)
            conn.send(messages.with_id_text(text, msg_id) if conn is origin else text)
        self._encoder.forget_shared()

    async def resync(self, conn: Subscriber, since: int | None, msg_id: Any) -> None:
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
            by = self.actions[version - 1].get("by")
            data = self._update_for(seat, version, events, with_view=last, by=by)
            conn.send(dumps(messages.with_id(data, msg_id) if last else data))
        if not missed:
            self._send_table(conn, msg_id)

    async def view_json(self, conn: Subscriber) -> dict[str, Any]:
        """The seat's view as JSON (for a hint)."""
        game = self.game
        seat = self.seat_of(conn.player_id)
        if game is None:
            raise ProtocolError("not_started")
        if seat is None:
            raise ProtocolError("not_seated")
        return self._encoder.view(game.view_for(seat))

    async def chat_message(self, conn: Subscriber, text: str) -> None:
        if conn not in self.subscribers and self.seat_of(conn.player_id) is None:
            raise ProtocolError("not_seated", "join or watch the table to chat there")
        message = await self._owner_write(
            self.server.store.add_chat(self.id, conn.player_id, text, epoch=self.epoch)
        )
        data = messages.chat_entry(message)
        self.chat.append(data)
        text = dumps(messages.table_chat(self.id, messages.public_chat(data)))
        for other in list(self.subscribers):
            other.send_from(conn.player_id, text)

    # ------------------------------------------------------- computer opponents

    def _schedule_bots(self) -> None:
        game = self.game
        if game is None or not game.in_round or self._closing or self.status != PLAYING:
            return
        if self.knock_window.running:
            for seat in game.knock_seats():
                if self.seats[seat].bot_controlled and seat not in self.bots.knock_asked:
                    self.bots.knock_asked.add(seat)
                    self._ask_bot(seat, knock=True)
        seat = game.current
        if self.seats[seat].bot_controlled and seat not in self.bots.busy:
            self._ask_bot(seat)

    def _ask_bot(self, seat: int, knock: bool = False) -> None:
        game = self.game
        assert game is not None
        view = self._encoder.view(game.view_for(seat))
        level = self.seats[seat].bot or self.server.options.away_bot
        delay = self.bots.delay(knock, bool(self.subscribers), self.rules.knock_window_seconds)
        self.bots.ask(seat, level, view, delay, knock, self.knock_window.token)

    async def _on_bot_move(self, seat: int, answer: Answer, knock: bool, token: int) -> None:
        game = self.game
        if not knock:
            self.bots.busy.discard(seat)
        if (
            game is None
            or not game.in_round
            or self._closing
            or not self.seats[seat].bot_controlled
        ):
            return
        if knock and self.knock_window.is_current(token):
            if answer is not None and answer.get("type") == "knock":
                with contextlib.suppress(EngineError):
                    await self._play(Knock(seat), by="bot")
            elif self.bots.declined(seat, game.knock_seats(), self.played_by_bots()):
                await self._on_knock_closed(token)
            return
        if knock:
            return
        if game.current != seat:
            self._schedule_bots()
            return
        action = bot_move(answer, seat, game.view_for(seat))
        if action is None:
            return
        if isinstance(action, Draw) and self.knock_window.running:
            self._held_draw = (None, None, action)
            return
        try:
            await self._play(action, by="bot")
            self.bots.failures = 0
        except EngineError as exc:
            self.bots.failures += 1
            log.warning(
                "bot_illegal_move",
                extra={"table": self.id, "seat": seat, "code": exc.code, "action": answer},
            )
            fallback = timeout_action(game.view_for(seat))
            if fallback is not None and self.bots.failures < 5:
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
            ratings = await self.server.store.finish_game(
                self.id,
                winners=list(game.winners),
                totals=list(game.totals),
                seat_players=seat_players,
                results=[r.to_json() for r in game.results],
                epoch=self.epoch,
            )
        except Exception as exc:
            if isinstance(exc, StoreError) and exc.code == "lease_lost":
                # The new owner replays the log and stores the result itself.
                log.error("lease_lost", extra={"table": self.id, "error": exc.message})
                self._stop_lost_table()
                return
            log.exception("finish_failed", extra={"table": self.id})
            ratings = {}
        self.ratings = ratings
        self.status = FINISHED
        log.info("game_over", extra={"table": self.id, "winners": list(game.winners)})
        self._broadcast(messages.game_over(self.id, list(game.winners), list(game.totals), ratings))
        self.server.lobby_changed()
        self.server.game_finished(self.id)
        clock = self.server.clock
        self._expire_timer = clock.call_later(
            self.server.options.finished_table_seconds * clock.scale,
            lambda: self.server.table_gone(self.id),
        )
