"""Connections that a writer keeps for itself, out of the pool.

The group commit of moves (:mod:`romme.store.append_group`) and, on SQLite, the
renewal of a node's leases (:mod:`romme.store.leases`) run on such a connection
with the driver's own calls instead of SQLAlchemy's sessions: they are the
writes that come every moment (a move) or hold many rows (a renewal), and SQLite
has a single writer, so whatever they cost, every move waits for.

:class:`SqliteWriter` runs a whole transaction as **one call into the thread** of
its aiosqlite connection: the event loop hands it over once and is woken once,
however many statements it holds, and never waits for the disk itself.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

__all__ = ["KeptConnection", "SqliteWriter", "bind_processor", "immediate"]

T = TypeVar("T")


class KeptConnection:
    """One connection of the pool kept for one writer, and the driver's connection
    under it (aiosqlite's or asyncpg's), made when first needed and made anew after
    one was lost."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._connection: AsyncConnection | None = None
        self._driver: Any = None

    async def driver(self) -> Any:
        if self._connection is None:
            self._connection = await self._engine.connect()
            self._driver = (await self._connection.get_raw_connection()).driver_connection
        return self._driver

    async def drop(self) -> None:
        """Throw the connection away (it broke): the next use makes a new one."""
        if self._connection is not None:
            connection, self._connection, self._driver = self._connection, None, None
            await connection.invalidate()
            await connection.close()

    async def close(self) -> None:
        """Give the connection back to the pool (the store closes)."""
        if self._connection is not None:
            connection, self._connection, self._driver = self._connection, None, None
            await connection.close()


class SqliteWriter:
    """SQLite transactions run whole in the thread of a kept aiosqlite connection.

    ``lock`` is the store's lock of SQLite's single writer, held for the call, so
    that a transaction never meets another connection's write lock (and SQLite's
    busy wait, which sleeps 1, 2, 5, 10 ms and more between tries)."""

    def __init__(self, engine: AsyncEngine, lock: asyncio.Lock) -> None:
        self._kept = KeptConnection(engine)
        self._lock = lock

    async def run(self, transaction: Callable[..., T], *args: Any) -> T:
        """``transaction(connection, *args)`` in the connection's thread, which
        begins and ends the transaction itself (see :func:`immediate`)."""
        async with self._lock:
            driver = await self._kept.driver()
            # aiosqlite runs the function in its connection's thread and wakes the
            # event loop once with the result.
            result: T = await driver._execute(transaction, driver._conn, *args)
        return result

    async def close(self) -> None:
        await self._kept.close()


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


def bind_processor(column: Any, dialect: Any) -> Callable[[Any], Any]:
    """The column type's own conversion of a value to what the driver takes (the
    very value SQLAlchemy would store)."""
    processor = column.type.bind_processor(dialect)
    return processor if processor is not None else (lambda value: value)
