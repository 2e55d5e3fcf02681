"""The computer opponents at a table: which seats they play, asking them, and
turning their answers into moves.

A computer opponent plays a bot's seat, and a player's seat while the player is
away or has left. It is asked in the background (the bot pool's worker process);
its answer comes back into the table's task like any other move. An answer that
is no legal move of its seat is replaced by the move a timeout would make, so a
faulty bot never stalls a game.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from typing import Any

from romme.engine.actions import Action, Knock, action_from_json
from romme.engine.errors import EngineError
from romme.engine.reference import timeout_action
from romme.engine.view import SeatView
from romme.server.table.host import TableHost
from romme.server.table.seats import bot_seed

__all__ = ["BotSeats", "bot_move"]

log = logging.getLogger("romme.server.table")

Answer = dict[str, Any] | None
"""A computer opponent's answer: an action as JSON, or ``None``."""


class BotSeats:
    """The computer opponents' requests of one table that are under way."""

    __slots__ = (
        "_host",
        "_table_id",
        "_match_seed",
        "_deliver",
        "busy",
        "knock_asked",
        "knock_declined",
        "failures",
    )

    def __init__(
        self,
        host: TableHost,
        table_id: int,
        match_seed: bytes,
        deliver: Callable[[int, Answer, bool, int], None],
    ) -> None:
        self._host = host
        self._table_id = table_id
        self._match_seed = match_seed
        self._deliver = deliver
        """``deliver(seat, answer, knock, knock_token)``: posts an answer into the
        table's task."""
        self.busy: set[int] = set()
        """Seats whose move is being thought about."""
        self.knock_asked: set[int] = set()
        """Seats asked about the knock window that is open."""
        self.knock_declined: set[int] = set()
        """Seats whose computer opponent chose not to knock in the open window."""
        self.failures = 0
        """Illegal moves in a row (past five the seat falls back to timeouts)."""

    def delay(self, knock: bool, watched: bool, knock_seconds: float) -> float:
        """How long the opponent seems to think (real seconds; none unwatched)."""
        options = self._host.options
        base = options.bot_delay
        if base <= 0 or not watched:
            return 0.0
        delay = base * random.uniform(0.5, 1.5)
        if knock:
            delay = min(delay, options.real(knock_seconds) * 0.5)
        return delay

    def ask(
        self, seat: int, level: str, view: dict[str, Any], delay: float, knock: bool, token: int
    ) -> None:
        """Ask the opponent at ``seat`` for its move (or, ``knock``, whether it
        knocks in the window ``token``); the answer is delivered to the table."""
        if not knock:
            self.busy.add(seat)
        seed = bot_seed(self._match_seed, seat)
        host = self._host

        async def think() -> None:
            try:
                if delay and not knock:
                    await asyncio.sleep(delay)
                answer = await host.botpool.decide(level, seed, view)
                if delay and knock and answer is not None and answer.get("type") == "knock":
                    # Seems to think before knocking; not knocking is said at once, so
                    # that the window need not stay open for it (see declined()).
                    await asyncio.sleep(delay)
            except Exception as exc:
                log.error(
                    "bot_failed",
                    extra={"table": self._table_id, "seat": seat, "error": repr(exc)},
                )
                answer = None
            self._deliver(seat, answer, knock, token)

        host.spawn(think())

    def declined(self, seat: int, knock_seats: tuple[int, ...], bot_seats: set[int]) -> bool:
        """Note that ``seat`` does not knock; whether now nobody can: every seat
        that may knock is played by a computer opponent and each has declined (the
        window then closes at once, as the rules need it open only for a knock)."""
        self.knock_declined.add(seat)
        return all(s in bot_seats and s in self.knock_declined for s in knock_seats)


def bot_move(answer: Answer, seat: int, view: SeatView) -> Action | None:
    """The move to play for a computer opponent's turn answer: the answer if it is
    an action of the seat (a knock is answered in the window, not as a turn move),
    else the move a timeout would make."""
    action: Action | None
    try:
        action = None if answer is None else action_from_json(answer)
    except EngineError:
        action = None
    if isinstance(action, Knock):
        action = None
    if action is None or getattr(action, "seat", None) != seat:
        action = timeout_action(view)
    return action
