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
* **PostgreSQL** (:class:`PostgresGroups`): the same two statements on the
  asyncpg connection the writer keeps for itself (asyncpg runs on the event loop
  without threads), with SQL that never changes, so asyncpg prepares each once
  (the tables' ids go in one array parameter, the rows in one pipelined
  ``executemany``). SQLAlchemy's Core cost more CPU than the statements
  themselves (its greenlet hops and bind processing per statement; an ``IN``
  list and a multi-row ``VALUES`` whose SQL changed with the group's size). The
  query takes a share lock on the tables' rows (``FOR SHARE``: a node that takes
  one of these tables over, raising its epoch, waits for this commit, or this
  query sees its new epoch).
"""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

import asyncpg
from sqlalchemy.ext.asyncio import AsyncEngine

from romme.store.core import lease_lost
from romme.store.errors import StoreError
from romme.store.kept_connection import KeptConnection, SqliteWriter, bind_processor, immediate
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


class PostgresGroups:
    """A group's transaction on the writer's own asyncpg connection (PostgreSQL)."""

    def __init__(self, engine: AsyncEngine, now: Callable[[], datetime]) -> None:
        self._kept = KeptConnection(engine)
        self._now = now
        columns = TableAction.__table__.c
        self._action_json = bind_processor(columns.action, engine.dialect)
        self._found = (
            f"SELECT t.id, t.status, t.owner_epoch, (SELECT max(a.version) FROM "
            f"{TableAction.__tablename__} a WHERE a.table_id = t.id) "
            f"FROM {GameTable.__tablename__} t WHERE t.id = ANY($1::integer[]) "
            f"ORDER BY t.id FOR SHARE OF t"
        )
        self._insert = (
            f"INSERT INTO {TableAction.__tablename__} "
            "(table_id, version, action, created_at) VALUES ($1, $2, $3, $4)"
        )

    async def store(self, group: list[Append]) -> list[Exception | None]:
        ids = sorted({append.table_id for append in group})
        driver = await self._kept.driver()
        try:
            async with driver.transaction():
                found = await driver.fetch(self._found, ids)
                outcomes, rows = judge(group, (tuple(row) for row in found))
                if rows:
                    now, action_json = self._now(), self._action_json
                    await driver.executemany(
                        self._insert, [(t, v, action_json(a), now) for t, v, a in rows]
                    )
        except asyncpg.PostgresError:  # the server refused: the connection is fine
            raise
        except BaseException:
            await self._kept.drop()
            raise
        return outcomes

    async def close(self) -> None:
        await self._kept.close()


class SqliteGroups:
    """A group's transaction in one call into the thread of the SQLite writer's own
    aiosqlite connection (:class:`romme.store.kept_connection.SqliteWriter`)."""

    def __init__(
        self, engine: AsyncEngine, writer: SqliteWriter, now: Callable[[], datetime]
    ) -> None:
        self._writer = writer
        self._now = now
        columns = TableAction.__table__.c
        self._action_json = bind_processor(columns.action, engine.dialect)
        self._time_text = bind_processor(columns.created_at, engine.dialect)
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
        return await self._writer.run(
            self._transaction, group, self._found_sql(len(ids)), ids, self._now()
        )

    def _transaction(
        self,
        connection: sqlite3.Connection,
        group: list[Append],
        found_sql: str,
        ids: list[int],
        now: datetime,
    ) -> list[Exception | None]:
        """The transaction, in the connection's thread (never the event loop's)."""

        def work() -> list[Exception | None]:
            outcomes, rows = judge(group, connection.execute(found_sql, ids).fetchall())
            if rows:
                action_json, created = self._action_json, self._time_text(now)
                connection.executemany(
                    self._insert, [(t, v, action_json(a), created) for t, v, a in rows]
                )
            return outcomes

        return immediate(connection, work)

    async def close(self) -> None:
        """The writer's connection is the store's: it closes it."""
