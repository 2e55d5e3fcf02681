"""A connection that a writer keeps for itself, out of the pool, and the columns'
own conversions for writers that use the driver's calls instead of SQLAlchemy's.

The group commit of moves on PostgreSQL (:mod:`romme.store.append_group`) runs on
such a connection: it is the write that comes every moment, and SQLAlchemy's
sessions cost more CPU than its statements. (On SQLite the busiest writes have a
thread and connection of their own: :mod:`romme.store.sqlite_writer`.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

__all__ = ["KeptConnection", "bind_processor"]


class KeptConnection:
    """One connection of the pool kept for one writer, and the driver's connection
    under it (asyncpg's), made when first needed and made anew after
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


def bind_processor(column: Any, dialect: Any) -> Callable[[Any], Any]:
    """The column type's own conversion of a value to what the driver takes (the
    very value SQLAlchemy would store)."""
    processor = column.type.bind_processor(dialect)
    return processor if processor is not None else (lambda value: value)
