"""Computer opponents think in worker processes, so the event loop never waits
on a bot.

A request carries the seat's view as JSON (the only thing a bot may see) and
comes back as an action in JSON. The analysis of a finished game is computed
here too, one decision per request (:mod:`romme.server.analysis`). With
``workers=0`` the bots run in the event loop itself (for unit tests only).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

__all__ = ["BotPool"]

log = logging.getLogger("romme.server.bots")


def _follow_parent(parent: int) -> None:
    """In each worker: exit as soon as the server process is gone (even if it was
    killed), so that no worker outlives it."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="follow-parent", daemon=True).start()


def _warm_up() -> int:
    from romme.server import botadapter  # noqa: F401  (imports the bots once)

    return os.getpid()


def _decide(level: str, seed: int, view_json: dict[str, Any]) -> dict[str, Any] | None:
    from romme.engine.view import SeatView
    from romme.server.botadapter import decide

    action = decide(level, seed, SeatView.from_json(view_json))
    return None if action is None else action.to_json()


def _suggest(view_json: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    from romme.engine.view import SeatView
    from romme.server.botadapter import suggest

    action, reason = suggest(SeatView.from_json(view_json))
    return (None if action is None else action.to_json()), reason


def _analyse(log: dict[str, Any], index: int) -> dict[str, Any] | None:
    from romme.bots.analysis import AnalysisInput, analyse_decision

    mark = analyse_decision(AnalysisInput.from_log(log), index)
    return None if mark is None else mark.to_json()


class BotPool:
    """A pool of worker processes computing bot moves and hints."""

    def __init__(self, workers: int = 1) -> None:
        self.workers = workers
        self._executor: Executor | None = None

    async def start(self) -> None:
        if self.workers <= 0:
            return
        # Workers are spawned as the server's own children (not forked from a process
        # with threads and open sockets) and watch it: they end when it ends.
        context = multiprocessing.get_context("spawn")
        self._executor = ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=context,
            initializer=_follow_parent,
            initargs=(os.getpid(),),
        )
        loop = asyncio.get_running_loop()
        pids = await asyncio.gather(
            *(loop.run_in_executor(self._executor, _warm_up) for _ in range(self.workers))
        )
        log.info("bot_workers_started", extra={"pids": sorted(set(pids))})

    async def decide(
        self, level: str, seed: int, view_json: dict[str, Any]
    ) -> dict[str, Any] | None:
        if self._executor is None:
            return _decide(level, seed, view_json)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, _decide, level, seed, view_json)

    async def suggest(self, view_json: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
        if self._executor is None:
            return _suggest(view_json)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, _suggest, view_json)

    async def analyse(self, log: dict[str, Any], index: int) -> dict[str, Any] | None:
        """The analysis mark of one decision of a finished game (``GameLog``), or
        ``None`` (see :mod:`romme.bots.analysis`)."""
        if self._executor is None:
            return _analyse(log, index)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, _analyse, log, index)

    async def close(self) -> None:
        if self._executor is not None:
            executor, self._executor = self._executor, None
            await asyncio.get_running_loop().run_in_executor(
                None, lambda: executor.shutdown(wait=True, cancel_futures=True)
            )
