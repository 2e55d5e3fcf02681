"""SQLite's busiest writes, run whole in a thread of their own.

The group commit of moves (:mod:`romme.store.sqlite_appends`) and the renewal of
a node's leases (:mod:`romme.store.leases`) are the writes that come every
moment or hold many rows, and SQLite has a single writer, so whatever they cost,
every move waits for. :class:`SqliteWriter` runs them in its own thread on its
own connection, with the driver's calls instead of SQLAlchemy's sessions:

* the event loop's thread never waits for the disk: a slow fsync delays only the
  writes that wait for it (and those queued behind them);
* moves are **streamed**: the event loop puts each on the thread's queue as it
  comes, and the thread, once done with a group, takes everything that came
  meanwhile as the next group, without going back to the event loop in between;
* the thread hands each outcome back with one callback (``call_soon_threadsafe``)
  that acts on it at once (a group's moves are told in that very callback): no
  future, task or shield lies between a commit and the tables that wait for it,
  each of which would cost a turn of the event loop, and turns are what a busy
  loop is slow at.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import sqlite3
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

__all__ = ["SqliteWriter", "StreamEnded", "Write", "immediate"]

T = TypeVar("T")

Write = Callable[[sqlite3.Connection, list[Any]], list[Any]]
"""Writes a batch of streamed items, in the thread, and returns a result per item;
it does not raise (what fails is a result)."""

StreamEnded = Callable[[list[Any], list[Any]], None]
"""Told in the event loop when a batch of streamed items was written: the items
and their results."""

_STOP = object()


class _Streamed:
    """Items handed over together (:meth:`SqliteWriter.stream`)."""

    __slots__ = ("ended", "items", "loop", "write")

    def __init__(
        self, items: list[Any], write: Write, loop: asyncio.AbstractEventLoop, ended: StreamEnded
    ) -> None:
        self.items = items
        self.write = write
        self.loop = loop
        self.ended = ended


class _Job(Generic[T]):
    """One transaction for the thread, and the future of its caller."""

    __slots__ = ("args", "future", "transaction")

    def __init__(
        self, transaction: Callable[..., T], args: tuple[Any, ...], future: asyncio.Future[T]
    ) -> None:
        self.transaction = transaction
        self.args = args
        self.future = future
        """Resolved in its event loop (``future.get_loop()``)."""


class SqliteWriter:
    """A thread with its own SQLite connection (made by ``connect`` in that thread,
    at its first write and anew after an error that broke it) writing one
    transaction at a time.

    ``lock`` is the store's lock of SQLite's single writer, held while this
    thread writes (by :meth:`run` itself, by the caller of :meth:`stream`), so
    that its transactions never meet another connection's write lock (and
    SQLite's busy wait, which sleeps 1, 2, 5, 10 ms and more between tries)."""

    def __init__(self, connect: Callable[[], sqlite3.Connection], lock: asyncio.Lock) -> None:
        self._connect = connect
        self.lock = lock
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._connection: sqlite3.Connection | None = None
        """The thread's connection (used in the thread only)."""

    async def run(self, transaction: Callable[..., T], *args: Any) -> T:
        """``transaction(connection, *args)`` in the thread, with the lock held; it
        begins and ends the transaction itself (see :func:`immediate`)."""
        await self.lock.acquire()
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        try:
            self._put(_Job(transaction, args, future))
        except BaseException:
            self.lock.release()
            raise
        return await future

    def stream(self, items: list[Any], write: Write, ended: StreamEnded) -> None:
        """Hand ``items`` over to be written by ``write``. The thread joins the items
        of every call with the same ``write`` that came before it took them into
        one batch, and calls ``ended(items, results)`` in the event loop once the
        batch is written. The caller holds the lock until its items ended."""
        self._put(_Streamed(items, write, asyncio.get_running_loop(), ended))

    def _put(self, job: Any) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="romme-sqlite-writer")
            self._thread.daemon = True
            self._thread.start()
        self._jobs.put(job)

    async def close(self) -> None:
        """Stop the thread after what was handed over, and close its connection."""
        if self._thread is not None:
            thread, self._thread = self._thread, None
            self._jobs.put(_STOP)
            await asyncio.to_thread(thread.join)

    # ------------------------------------------------------------ in the thread

    def _work(self) -> None:
        """The thread: write what was handed over, in its order, until stopped."""
        job: Any = None
        while True:
            job = job if job is not None else self._jobs.get()
            if job is _STOP:
                break
            if isinstance(job, _Streamed):
                job = self._write_batch(job)
            else:
                self._run(job)
                job = None
        if self._connection is not None:
            self._connection.close()

    def _write_batch(self, first: _Streamed) -> Any:
        """Write ``first`` and every batch of the same kind that is waiting; returns
        the job that came after them, if one was taken off the queue."""
        items = list(first.items)
        following: Any = None
        while following is None:
            try:
                job = self._jobs.get_nowait()
            except queue.Empty:
                break
            if isinstance(job, _Streamed) and job.write == first.write:
                items.extend(job.items)
            else:
                following = job
        try:
            results = first.write(self.connection(), items)
        except Exception as exc:  # no connection could be made
            self.check_connection()
            results = [exc] * len(items)
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
            first.loop.call_soon_threadsafe(first.ended, items, results)
        return following

    def _run(self, job: _Job[Any]) -> None:
        result: Any = None
        error: BaseException | None = None
        try:
            result = job.transaction(self.connection(), *job.args)
        except BaseException as exc:  # handed to the caller
            error = exc
            self.check_connection()
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
            job.future.get_loop().call_soon_threadsafe(self._job_ended, job, result, error)

    def connection(self) -> sqlite3.Connection:
        """In the thread: its connection, made if need be (raises if that fails)."""
        if self._connection is None:
            self._connection = self._connect()
        return self._connection

    def check_connection(self) -> None:
        """In the thread, after an error: a connection left in a transaction or no
        longer answering (an I/O error may break it) is closed and made anew."""
        connection = self._connection
        if connection is not None and (connection.in_transaction or not _usable(connection)):
            connection.close()
            self._connection = None

    # ---------------------------------------------------------- in the event loop

    def _job_ended(self, job: _Job[Any], result: Any, error: BaseException | None) -> None:
        self.lock.release()
        if job.future.done():  # the caller was cancelled
            return
        if error is None:
            job.future.set_result(result)
        else:
            job.future.set_exception(error)


def _usable(connection: sqlite3.Connection) -> bool:
    """Whether the connection still answers."""
    try:
        connection.execute("SELECT 1").fetchall()
    except sqlite3.Error:
        return False
    return True


def immediate(connection: sqlite3.Connection, work: Callable[[], T]) -> T:
    """``work()`` in a write transaction (``BEGIN IMMEDIATE``) of ``connection``:
    committed if it returns, rolled back if it raises."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        result = work()
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise
    return result
