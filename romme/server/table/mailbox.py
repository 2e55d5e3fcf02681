"""The one task in which a table does everything, one thing at a time.

Work is queued (:meth:`Mailbox.call` waits for the result, :meth:`Mailbox.post`
does not) and run in the order it arrived, each piece to its end before the next
begins. That is why a table needs no locks: the first knock it sees wins, a move
that arrives after the turn passed is refused by the engine.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from romme.engine.errors import EngineError
from romme.server.protocol import ProtocolError

__all__ = ["Mailbox", "Work"]

log = logging.getLogger("romme.server.table")

Work = Callable[..., Awaitable[Any]]


class Mailbox:
    """A queue of work and the task that runs it."""

    __slots__ = ("_name", "_log_extra", "_inbox", "_task")

    def __init__(self, name: str, log_extra: dict[str, Any]) -> None:
        self._name = name
        self._log_extra = log_extra
        """What the log lines of this task say about it (e.g. the table's id)."""
        self._inbox: asyncio.Queue[tuple[Work, tuple[Any, ...], asyncio.Future[Any] | None]] = (
            asyncio.Queue()
        )
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=self._name)

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
                    log.exception("table_task_failed", extra=self._log_extra)
            else:
                if future is not None and not future.done():
                    future.set_result(result)

    async def call(self, func: Work, *args: Any) -> Any:
        """Run ``func(*args)`` in the task and return its result."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._inbox.put_nowait((func, args, future))
        return await future

    def post(self, func: Work, *args: Any) -> None:
        """Run ``func(*args)`` in the task later; errors are logged."""
        self._inbox.put_nowait((func, args, None))

    async def stop(self, timeout: float = 5) -> None:
        """Finish what is queued (within ``timeout`` seconds), then end the task."""
        if self._task is None:
            return
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        async def finish() -> None:
            done.set_result(None)

        self._inbox.put_nowait((finish, (), None))
        try:
            await asyncio.wait_for(asyncio.shield(done), timeout=timeout)
        except TimeoutError:
            log.warning("table_stop_timeout", extra=self._log_extra)
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task
        self._task = None
