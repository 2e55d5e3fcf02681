"""Storing one group of appends in one transaction, as cheaply as each backend allows.

A group is every append that arrived while the previous transaction ran
(:class:`romme.store.action_log.AppendWriter`). Its transaction reads, in one
query, each table's status, owner epoch and last stored version, judges each
append on its own (:func:`judge`: refused ones store nothing and hold back no
other), inserts the rows of the rest with one statement and commits. No ORM
object is made per move: the rows are plain tuples or dictionaries.

* **SQLite** (:class:`SqliteGroups`): the whole transaction, from ``BEGIN
  IMMEDIATE`` to ``COMMIT``, is one call into the thread of the writer's own
  aiosqlite connection, so the event loop hands it over once and is woken once
  per group, however many statements it holds; the values are converted by the
  columns' own SQLAlchemy types (the very text SQLAlchemy would store). The
  event loop's thread never waits for the disk: a slow fsync delays only the
  appends of this group (and those queued behind it, each released after its own
  commit), never a table that does not write.
* **PostgreSQL** (:class:`PostgresGroups`): SQLAlchemy Core on one connection of
  the pool (asyncpg runs on the event loop without threads): one query with a
  share lock on the tables' rows (``FOR SHARE``: a node that takes one of these
  tables over, raising its epoch, waits for this commit, or this query sees its
  new epoch), one multi-row ``INSERT``, one commit.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from romme.store.core import lease_lost
from romme.store.database import writer
from romme.store.errors import StoreError
from romme.store.models import GameTable, TableAction

__all__ = ["Append", "PostgresGroups", "SqliteGroups", "judge", "version_conflict"]

Found = tuple[int, str, int, int | None]
"""A table's id, status, owner epoch and last stored version (``None``: none)."""


@dataclasses.dataclass(slots=True)
class Append:
    """An append waiting for the writer task; ``done`` is resolved after its commit."""

    table_id: int
    first_version: int
    actions: list[dict[str, Any]]
    epoch: int | None
    done: asyncio.Future[None]


def judge(
    group: list[Append], found: Iterable[Found]
) -> tuple[list[Exception | None], list[tuple[int, int, dict[str, Any]]]]:
    """Each append's outcome (``None``: stored) and the rows to insert
    ``(table_id, version, action)``, from what the database holds of the tables."""
    tables = {row[0]: row for row in found}
    last = {table_id: row[3] for table_id, row in tables.items()}
    outcomes: list[Exception | None] = []
    rows: list[tuple[int, int, dict[str, Any]]] = []
    for append in group:
        table_id, first = append.table_id, append.first_version
        table = tables.get(table_id)
        outcome: Exception | None = None
        if table is None:
            outcome = StoreError("no_such_table", f"there is no table {table_id}")
        elif append.epoch is not None and append.epoch != table[2]:
            outcome = lease_lost(table_id, table[2], append.epoch)
        elif table[1] == "finished":
            outcome = StoreError("game_over", f"table {table_id}'s game is finished")
        elif (stored := last[table_id]) is not None and first != stored + 1:
            outcome = version_conflict(table_id, first, stored)
        else:
            rows.extend((table_id, first + i, action) for i, action in enumerate(append.actions))
            if append.actions:
                last[table_id] = first + len(append.actions) - 1
        outcomes.append(outcome)
    return outcomes, rows


def version_conflict(table_id: int, first_version: int, last: int | None) -> StoreError:
    if last is None:
        detail = "that version is stored already"
    else:
        detail = f"the last stored version is {last}"
    return StoreError(
        "version_conflict", f"table {table_id}: cannot store version {first_version}: {detail}"
    )


def _last_version() -> Any:
    return (
        select(func.max(TableAction.version))
        .where(TableAction.table_id == GameTable.id)
        .scalar_subquery()
    )


class PostgresGroups:
    """A group's transaction with SQLAlchemy Core (PostgreSQL)."""

    def __init__(self, engine: AsyncEngine, now: Callable[[], datetime]) -> None:
        self._engine = writer(engine)
        self._now = now

    async def store(self, group: list[Append]) -> list[Exception | None]:
        ids = sorted({append.table_id for append in group})
        found = (
            select(GameTable.id, GameTable.status, GameTable.owner_epoch, _last_version())
            .where(GameTable.id.in_(ids))
            .order_by(GameTable.id)
            .with_for_update(read=True, of=GameTable)
        )
        async with self._engine.begin() as connection:
            outcomes, rows = judge(group, (tuple(row) for row in await connection.execute(found)))
            if rows:
                now = self._now()
                await connection.execute(
                    insert(TableAction),
                    [
                        {"table_id": t, "version": v, "action": a, "created_at": now}
                        for t, v, a in rows
                    ],
                )
        return outcomes

    async def close(self) -> None:
        """Nothing to release: the connections go back to the pool."""


class SqliteGroups:
    """A group's transaction in one call into the thread of an aiosqlite connection
    that the writer keeps for itself (SQLite).

    ``lock`` is the store's lock of SQLite's single writer, held for the call."""

    def __init__(
        self, engine: AsyncEngine, now: Callable[[], datetime], lock: asyncio.Lock
    ) -> None:
        self._engine = engine
        self._now = now
        self._lock = lock
        self._connection: AsyncConnection | None = None
        self._driver: Any = None
        """The aiosqlite connection under ``_connection``."""
        dialect = engine.dialect
        columns = TableAction.__table__.c
        self._action_json = columns.action.type.bind_processor(dialect)
        self._time_text = columns.created_at.type.bind_processor(dialect)
        self._insert = (
            f"INSERT INTO {TableAction.__tablename__} "
            "(table_id, version, action, created_at) VALUES (?, ?, ?, ?)"
        )

    def _found_sql(self, count: int) -> str:
        return (
            f"SELECT id, status, owner_epoch, (SELECT max(version) FROM "
            f"{TableAction.__tablename__} WHERE table_id = {GameTable.__tablename__}.id) "
            f"FROM {GameTable.__tablename__} WHERE id IN ({', '.join('?' * count)})"
        )

    async def store(self, group: list[Append]) -> list[Exception | None]:
        ids = sorted({append.table_id for append in group})
        now = self._now()
        async with self._lock:
            if self._connection is None:
                self._connection = await self._engine.connect()
                self._driver = (await self._connection.get_raw_connection()).driver_connection
            driver = self._driver
            # aiosqlite runs the function in its connection's thread and wakes the
            # event loop once with the result.
            outcomes: list[Exception | None] = await driver._execute(
                self._transaction,
                driver._conn,
                group,
                self._found_sql(len(ids)),
                ids,
                now,
            )
        return outcomes

    def _transaction(
        self,
        connection: sqlite3.Connection,
        group: list[Append],
        found_sql: str,
        ids: list[int],
        now: datetime,
    ) -> list[Exception | None]:
        """The transaction, in the connection's thread (never the event loop's)."""
        connection.execute("BEGIN IMMEDIATE")
        try:
            outcomes, rows = judge(group, connection.execute(found_sql, ids).fetchall())
            if rows:
                action_json, time_text = self._action_json, self._time_text
                created = time_text(now) if time_text is not None else now
                connection.executemany(
                    self._insert,
                    [
                        (t, v, action_json(a) if action_json is not None else a, created)
                        for t, v, a in rows
                    ],
                )
            connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise
        return outcomes

    async def close(self) -> None:
        """Give the writer's connection back (the store closes)."""
        if self._connection is not None:
            connection, self._connection, self._driver = self._connection, None, None
            await connection.close()
