"""Analyses of finished games, computed in the bot workers without slowing a table.

A game's players ask for its analysis (``POST /api/games/{id}/analysis``); it is
computed once and stored (:class:`~romme.store.analyses.AnalysisStore`), and a
second request, while it runs or after, starts nothing. One game is analysed at
a time, and one decision at a time goes to the bot workers
(:meth:`~romme.server.botpool.BotPool.analyse`): a computer opponent at a live
table waits at most for one analysed decision, whose work is bounded by counts
(see :mod:`romme.bots.analysis`). Games asked for while another runs queue (at
most ``MAX_QUEUED``), and each player may start at most ``PER_HOUR`` analyses an
hour.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import Any

from romme.bots.analysis import AnalysisInput, decisions
from romme.server.botpool import BotPool
from romme.store import Store
from romme.store.limits import LimitReached

__all__ = ["MAX_QUEUED", "PER_HOUR", "AnalysisRunner"]

log = logging.getLogger("romme.server.analysis")

MAX_QUEUED = 20
"""Games waiting for their analysis; beyond this a request is refused (``analysis_busy``)."""
PER_HOUR = 10
"""New analyses one player may start in an hour (``too_many_analyses``)."""


class AnalysisRunner:
    """The queue of games to analyse and the one task that works through it."""

    def __init__(self, store: Store, botpool: BotPool) -> None:
        self.store = store
        self.botpool = botpool
        self._queue: deque[int] = deque()
        self._waiting: set[int] = set()
        """Games queued or being analysed."""
        self._progress: dict[int, tuple[int, int]] = {}
        self._starts: dict[int, deque[float]] = {}
        self._task: asyncio.Task[None] | None = None

    async def status(self, game_id: int) -> dict[str, Any] | None:
        """``Analysis`` of the protocol, ``None`` if the game is not a finished one."""
        if await self.store.game_log(game_id) is None:
            return None
        return self._public(game_id, await self.store.analysis(game_id))

    async def request(self, game_id: int, player_id: int) -> tuple[dict[str, Any], bool]:
        """Start the game's analysis unless it is done or under way: its
        ``Analysis`` and whether this request started it."""
        record, created = await self.store.request_analysis(
            game_id, player_id, admit=lambda: self.admit(player_id)
        )
        started = created or (record["status"] == "pending" and game_id not in self._waiting)
        if started:
            # New, or asked for before a restart and never finished: (re)start it.
            self._enqueue(game_id)
        return self._public(game_id, record), started

    def admit(self, player_id: int) -> None:
        """Count a new analysis of this player, or refuse it over the limits
        (``LimitReached``; the store then keeps nothing)."""
        if len(self._waiting) >= MAX_QUEUED:
            raise LimitReached("analysis_busy", "too many games are being analysed; try later", 60)
        now = time.monotonic()
        starts = self._starts.setdefault(player_id, deque())
        while starts and starts[0] <= now - 3600:
            starts.popleft()
        if len(starts) >= PER_HOUR:
            wait = int(starts[0] + 3600 - now) + 1
            raise LimitReached(
                "too_many_analyses", f"at most {PER_HOUR} analyses an hour; try later", wait
            )
        starts.append(now)

    def _enqueue(self, game_id: int) -> None:
        self._waiting.add(game_id)
        self._queue.append(game_id)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._work(), name="analysis")

    def _public(self, game_id: int, record: dict[str, Any] | None) -> dict[str, Any]:
        if record is None:
            return {"game": game_id, "status": "none"}
        answer: dict[str, Any] = {"game": game_id, "status": record["status"]}
        if record["status"] == "done":
            answer.update(record["result"])
            answer["finished_at"] = record["finished_at"]
        elif game_id in self._progress:
            done, total = self._progress[game_id]
            answer["progress"] = {"done": done, "total": total}
        return answer

    async def _work(self) -> None:
        while self._queue:
            game_id = self._queue.popleft()
            try:
                await self._analyse(game_id)
            except asyncio.CancelledError:
                raise
            except Exception:  # stays pending: a later request starts it again
                log.exception("analysis_failed", extra={"game": game_id})
            finally:
                self._waiting.discard(game_id)
                self._progress.pop(game_id, None)

    async def _analyse(self, game_id: int) -> None:
        game_log = await self.store.game_log(game_id)
        if game_log is None:  # pragma: no cover - only finished games are queued
            return
        humans = {s["seat"] for s in game_log["seats"] if s["bot"] is None}
        indices = decisions(AnalysisInput.from_log(game_log), humans)
        started = time.monotonic()
        marks: list[dict[str, Any]] = []
        for done, index in enumerate(indices):
            self._progress[game_id] = (done, len(indices))
            mark = await self.botpool.analyse(game_log, index)
            if mark is not None:
                marks.append(mark)
        result = {"seats": sorted(humans), "decisions": len(indices), "marks": marks}
        await self.store.finish_analysis(game_id, result)
        log.info(
            "analysis_done",
            extra={
                "game": game_id,
                "decisions": len(indices),
                "marks": len(marks),
                "seconds": round(time.monotonic() - started, 2),
            },
        )

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
