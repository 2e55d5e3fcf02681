"""Play a seat to the end of its game with any decision function of a view.

:func:`play_table` is the loop a bot needs: whenever the seat may act (its turn,
or a knock on another seat's discard) it asks ``decide(view)`` for one engine
action and sends it; after a round it says "Next"; it returns how the game ended.
``decide`` is :meth:`romme.bots.Bot.decide` or any function of a
:class:`~romme.engine.view.SeatView` that returns an action or ``None`` (nothing
to do, or let a knock go); a plain function runs in a worker thread, so a long
search does not hold up the connection, and a coroutine function is awaited.

The loop keeps to what the server has confirmed: it decides on the newest view,
sends at most one action per version, and throws a decision away if the table
moved on while it was thinking (the turn timer ran out, another seat knocked).
If the server refuses a move the view may be stale; the loop asks for the whole
table again and decides anew, and after a few refusals on the same view it waits
for the server's turn timer, which plays for the seat.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable

from romme.client.connection import Client
from romme.client.errors import Disconnected, ServerError
from romme.client.models import GameOver
from romme.client.table import CLOSED, TableState
from romme.engine.actions import Action, Knock
from romme.engine.view import SeatView

__all__ = ["Decide", "TableClosed", "play_table"]

log = logging.getLogger("romme.client.play")

Decide = Callable[[SeatView], Action | None] | Callable[[SeatView], Awaitable[Action | None]]

REFUSALS_PER_VIEW = 3
"""Refused moves on one version before the loop leaves the turn to the server's timer."""


class TableClosed(Exception):
    """The table closed before its game ended (or the seat was lost)."""


async def _decision(decide: Decide, view: SeatView) -> Action | None:
    if inspect.iscoroutinefunction(decide):
        result: Action | None = await decide(view)
        return result
    answer = await asyncio.to_thread(decide, view)
    if inspect.isawaitable(answer):
        result = await answer
        return result
    return answer


class _Seat:
    """The state of one :func:`play_table` loop."""

    def __init__(self, client: Client, state: TableState, decide: Decide) -> None:
        self.client = client
        self.state = state
        self.decide = decide
        self.refused: dict[int, int] = {}
        """Refusals per version."""
        self.acted: set[int] = set()
        """Versions this loop has already sent a move for."""
        self.said_next: set[int] = set()
        self.said_back = False

    async def step(self) -> None:
        """Do whatever the seat should do now (at most one request). A request the
        connection lost on the way is sent again once the table has come back."""
        state = self.state
        view = state.view
        info = state.my_info
        if view is None or info is None or view.seat is None:
            return
        if info.away and not self.said_back:
            # Back after a break (a restart, a lost connection): play the seat ourselves.
            self.said_back = await self._send(self.client.back(state.id), "back")
            return
        if not info.away:
            self.said_back = False
        if view.phase == "round_over":
            if view.round_no not in self.said_next:
                self.said_next.add(view.round_no)
                if not await self._send(self.client.next_round(state.id), "next_round"):
                    self.said_next.discard(view.round_no)
            return
        if view.phase not in ("draw", "play"):
            return
        may_knock = view.seat in view.knock_seats and view.seat != view.current
        version = state.version
        if version is None or not (view.my_turn or may_knock) or version in self.acted:
            return
        self.acted.add(version)
        action = await _decision(self.decide, view)
        if action is None or state.version != version:
            return
        if isinstance(action, Knock) and not may_knock:
            return
        try:
            await self.client.act(state.id, action)
        except ServerError as exc:
            await self._refused(version, action, exc)
        except (Disconnected, TimeoutError):
            self.acted.discard(version)

    async def _send(self, request: Awaitable[object], what: str) -> bool:
        """Await a request whose refusal changes nothing for the loop (the next
        deal came first, say); False if it was lost with the connection."""
        try:
            await request
        except ServerError as exc:
            log.debug("table %s: %s: %s", self.state.id, what, exc.code)
        except (Disconnected, TimeoutError):
            return False
        return True

    async def _refused(self, version: int, action: Action, exc: ServerError) -> None:
        state = self.state
        log.info("table %s: %s refused: %s", state.id, action.type, exc)
        count = self.refused[version] = self.refused.get(version, 0) + 1
        if state.version != version or count >= REFUSALS_PER_VIEW:
            return
        # The view may be stale: fetch the table and decide again on what it says.
        await asyncio.sleep(0.2 * count)
        if state.version == version and await self._send(self.client.resync(state.id), "resync"):
            self.acted.discard(version)


async def play_table(client: Client, table_id: int, decide: Decide) -> GameOver:
    """Play this player's seat at ``table_id`` until the game ends; return its end.

    The table must be one the player sits at (after :meth:`Client.create_table`,
    :meth:`Client.join_table`, or given back on connect). Waits while the game has
    not started. Raises :class:`TableClosed` if the table closes before its game
    ends, and the client's failure if the connection ends for good.
    """
    state = client.tables[table_id]
    seat = _Seat(client, state, decide)
    while True:
        change = client.next_change()
        if state.game_over is not None:
            return state.game_over
        if state.status == CLOSED:
            raise TableClosed(f"table {table_id} closed: {state.closed_reason}")
        if client.failure is not None:
            raise client.failure
        if client.connected:
            await seat.step()
        # Check again at least every few seconds: the changes a move waits for come
        # as messages, the timer's ends too, but a lost message must not stall the seat.
        await client.wait_changed(5.0, change)
