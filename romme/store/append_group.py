"""Storing one group of appends in one transaction, as cheaply as each backend allows.

A group is every append that arrived while the previous transaction ran
(:class:`romme.store.action_log.AppendWriter`). The usual group, every append
following the last version stored, is written by one statement that checks
each row itself and is undone whole if one fails. Any other group gets a
transaction that reads, in one query, each table's status, owner epoch and last
stored version, judges each append on its own (:func:`judge`: refused ones
store nothing and hold back no other), inserts the rows of the rest with one
statement and commits. No ORM object is made per move: the rows are plain
tuples or dictionaries.

Both backends tell the group's appends what became of them (:func:`tell`) the
moment the commit is known, and also when the writer that waited for the group
was cancelled meanwhile (the store closing): a move that was committed is never
reported as not stored.

* **SQLite** (:mod:`romme.store.sqlite_appends`): the moves are streamed to
  the store's SQLite writer thread, which stores whatever came meanwhile as one
  group after the other.
* **PostgreSQL** (:class:`PostgresGroups`): on the asyncpg connection the
  writer keeps for itself (asyncpg runs on the event loop without threads), with
  SQL that never changes, so asyncpg prepares each statement once. As on SQLite,
  a group is first written by **one statement** in autocommit: an ``INSERT ...
  SELECT`` from arrays of the rows' values (``unnest``) that checks each row as
  :func:`judge` does and gives a failing row no table id, so that the whole
  statement is undone. That is one round trip to the server where the
  transaction takes four (``BEGIN``, the query, the inserts, ``COMMIT``), each
  a wait for the server's process to get a core on a busy machine. A group it
  refuses is written in that transaction: the query (the tables' ids in one
  array parameter), the judge, the rows in one pipelined ``executemany``.
  SQLAlchemy's Core cost more CPU than the statements themselves (its greenlet
  hops and bind processing per statement; an ``IN`` list and a multi-row
  ``VALUES`` whose SQL changed with the group's size). Both read the tables' rows
  with a share lock (``FOR SHARE``: a node that takes one of these tables over,
  raising its epoch, waits for this commit, or the read sees its new epoch). The
  writing is a task of its own, so that cancelling the writer never cuts a
  commit short.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

import asyncpg
from sqlalchemy.ext.asyncio import AsyncEngine

from romme.store.core import lease_lost
from romme.store.errors import StoreError
from romme.store.kept_connection import KeptConnection, bind_processor
from romme.store.models import GameTable, TableAction

__all__ = [
    "Append",
    "AppendQueue",
    "PostgresGroups",
    "checked_rows",
    "judge",
    "not_stored",
    "tell",
    "version_conflict",
]

log = logging.getLogger("romme.store")

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
    stored: Callable[[], None] | None = None
    """Called once the append is committed, in the very callback that learns it,
    before ``done`` is resolved (see :meth:`AppendQueue.append`)."""


class AppendQueue:
    """What the appends of both backends share: the queue of appends waiting for a
    writer task, which the first append that finds none starts; a writer that
    stopped (cancelled, as when the store closes, or failed) has the appends it had
    not handed over refused, and the next append starts a new one. A subclass
    writes: :meth:`_writer_task` and, if it takes appends in other ways
    than through the queue, :meth:`_take` and :meth:`_let_go`."""

    def __init__(self) -> None:
        self._waiting: list[Append] = []
        self.task: asyncio.Task[None] | None = None
        """The writer task while there are appends to store, else ``None``."""
        self.groups_committed = 0
        """How many group transactions were committed (each append retried on its
        own after its group failed is not counted)."""

    async def append(
        self,
        table_id: int,
        first_version: int,
        actions: list[dict[str, Any]],
        epoch: int | None = None,
        stored: Callable[[], None] | None = None,
    ) -> None:
        """Queue one append (checked by the caller) and wait for its commit. A
        caller cancelled meanwhile stops waiting; its append is stored all the same
        if its group commits.

        ``stored()``, if given, is called in the event loop as soon as the append
        is committed (and only then), in the callback that learns the group's
        outcome: a turn of the event loop before the caller's wait ends, which on
        a busy loop is the wait behind everything else that turn runs. A table
        sends its move's update there. What it raises is logged, not the append's
        outcome; it is not called once the caller stopped waiting."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        append = Append(table_id, first_version, actions, epoch, done, stored)
        if not self._take(append):
            self._waiting.append(append)
            if self.task is None:
                self.task = asyncio.create_task(self._writer_task())
                self.task.add_done_callback(self._writer_stopped)
        await done

    async def drain(self) -> None:
        """Wait until the appends under way are stored (or refused)."""
        if self.task is not None:
            await asyncio.wait([self.task])

    async def _writer_task(self) -> None:
        """The writer task: store the waiting appends, and set :attr:`task` to
        ``None`` at once when none is left."""
        raise NotImplementedError

    def _take(self, append: Append) -> bool:
        """Whether ``append`` was taken on at once, without the queue."""
        return False

    def _let_go(self) -> list[Append]:
        """The appends the stopped writer task held, not handed over, which nobody
        will store now; the task lets go of them."""
        return []

    def _writer_stopped(self, task: asyncio.Task[None]) -> None:
        if self.task is task:
            self.task = None
        if not task.cancelled() and task.exception() is None:
            return
        refused = [*self._let_go(), *self._waiting]
        self._waiting = []
        tell(refused, [not_stored() for _ in refused])


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


def checked_rows(
    group: list[Append], action_json: Callable[[Any], Any]
) -> list[tuple[int, int, Any, int | None, int]] | None:
    """The rows of ``group`` for the one statement that checks each row itself:
    the table id, the version, the action as stored, the append's owner epoch
    (``None``: not checked) and the version that must be the last one stored
    before the group (or none stored yet, as in :func:`judge`). ``None`` if the
    group is not one such a statement can judge: an append without actions
    (nothing to check it by), appends of one table that do not follow each other."""
    rows: list[tuple[int, int, Any, int | None, int]] = []
    follows: dict[int, int] = {}
    """Each table's version that its next append in the group must have."""
    last_stored: dict[int, int] = {}
    """Each table's version that must be the last one stored before the group."""
    for append in group:
        table_id, first = append.table_id, append.first_version
        if not append.actions or follows.get(table_id, first) != first:
            return None
        stored = last_stored.setdefault(table_id, first - 1)
        follows[table_id] = first + len(append.actions)
        rows.extend(
            (table_id, first + offset, action_json(action), append.epoch, stored)
            for offset, action in enumerate(append.actions)
        )
    return rows


def tell(group: list[Append], outcomes: list[Exception | None]) -> None:
    """Resolve each append's future with its outcome (``None``: stored); an append
    told already (or whose caller stopped waiting) is left as it is."""
    for append, outcome in zip(group, outcomes, strict=True):
        if append.done.done():
            continue
        if outcome is None:
            if append.stored is not None:
                try:
                    append.stored()
                except Exception:
                    log.exception("append_stored_failed", extra={"table": append.table_id})
            append.done.set_result(None)
        else:
            append.done.set_exception(outcome)


def not_stored() -> StoreError:
    """The outcome of an append whose transaction never committed and that nobody
    will try again (the store stopped)."""
    return StoreError("server_busy", "the store stopped before storing this")


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
        actions, tables = TableAction.__tablename__, GameTable.__tablename__
        self._whole = (
            f"INSERT INTO {actions} (table_id, version, action, created_at) "
            "SELECT CASE WHEN t.status <> 'finished' "
            "AND (r.epoch IS NULL OR r.epoch = t.owner_epoch) "
            f"AND coalesce((SELECT max(a.version) FROM {actions} a "
            "WHERE a.table_id = r.table_id), r.stored) = r.stored "
            "THEN r.table_id END, r.version, r.action::json, $6 "
            "FROM unnest($1::integer[], $2::integer[], $3::text[], $4::integer[], "
            "$5::integer[]) AS r(table_id, version, action, epoch, stored) "
            f"LEFT JOIN (SELECT id, status, owner_epoch FROM {tables} "
            "WHERE id = ANY($1::integer[]) ORDER BY id FOR SHARE) AS t ON t.id = r.table_id"
        )
        """The group's rows by one statement, each checked as :func:`judge` checks
        it: the values are arrays of each row's table id, version, action, the
        append's owner epoch (``NULL``: not checked) and the version that must be
        the last one stored (or none stored yet); a row that fails gets no table
        id, which the column refuses, and the whole statement is undone. The
        tables' rows are locked in the order of their ids, as in the judged
        transaction's query, so that no two writers locking several of them wait
        for each other in a circle."""

    async def store(self, group: list[Append]) -> list[Exception | None]:
        """Store ``group`` in one transaction and tell its appends (see the module)."""
        transaction = asyncio.ensure_future(self._transaction(group))
        try:
            return await asyncio.shield(transaction)
        except asyncio.CancelledError:
            # The transaction goes on (it may be committing); its appends are told
            # what it did when it ends.
            transaction.add_done_callback(functools.partial(_tell_if_failed, group))
            raise

    async def _transaction(self, group: list[Append]) -> list[Exception | None]:
        driver = await self._kept.driver()
        try:
            if await self._insert_whole(driver, group):
                outcomes: list[Exception | None] = [None] * len(group)
            else:
                outcomes = await self._insert_judged(driver, group)
        except asyncpg.PostgresError:  # the server refused: the connection is fine
            raise
        except BaseException:
            await self._kept.drop()
            raise
        tell(group, outcomes)
        return outcomes

    async def _insert_whole(self, driver: Any, group: list[Append]) -> bool:
        """Store every append of ``group`` by one statement in autocommit, one round
        trip to the server instead of four; ``False`` if a row failed its checks
        (nothing was stored) or the group is not one the statement can judge (an
        append without actions, appends of one table that do not follow each
        other)."""
        rows = checked_rows(group, self._action_json)
        if rows is None:
            return False
        columns = [list(column) for column in zip(*rows, strict=True)]
        try:
            await driver.execute(self._whole, *columns, self._now())
        except asyncpg.IntegrityConstraintViolationError:  # a row failed: the group is judged
            return False
        return True

    async def _insert_judged(self, driver: Any, group: list[Append]) -> list[Exception | None]:
        """Store ``group`` in a transaction that reads what the database holds of
        its tables, judges each append on its own and inserts the rows of the rest."""
        ids = sorted({append.table_id for append in group})
        async with driver.transaction():
            found = await driver.fetch(self._found, ids)
            outcomes, rows = judge(group, (tuple(row) for row in found))
            if rows:
                now, action_json = self._now(), self._action_json
                await driver.executemany(
                    self._insert, [(t, v, action_json(a), now) for t, v, a in rows]
                )
        return outcomes

    async def close(self) -> None:
        await self._kept.close()


def _tell_if_failed(group: list[Append], transaction: asyncio.Future[Any]) -> None:
    """A PostgreSQL group's transaction outlived its cancelled writer and ended: if
    it did not commit, nothing of the group was stored (if it did, it told)."""
    if transaction.cancelled() or transaction.exception() is not None:
        tell(group, [not_stored() for _ in group])
