"""The group commit of moves on SQLite: appends streamed to the writer thread.

The event loop hands each append to the store's SQLite writer thread
(:class:`romme.store.sqlite_writer.SqliteWriter`) the moment it comes, and the
thread stores, in one transaction, every append that came while it stored the
previous group: from the end of one commit to the start of the next nothing
goes through the event loop, however busy it is. A group is first written
by **one statement** in autocommit (:meth:`SqliteAppends._insert_whole`): an
``INSERT ... SELECT`` of its rows that checks, for each row, what
:func:`romme.store.append_group.judge` checks (the table exists and is not
finished, the owner epoch, the version following the last one stored). A row
that fails a check gets no table id, which the column refuses, and SQLite then
backs the whole statement out. So the usual group, every append in order, costs
the thread one call into SQLite (BEGIN, the inserts and the fsync'd COMMIT in
one step), and the thread hands the interpreter lock back and takes it again
once instead of once for each statement and each row read, each time waiting up
to the interpreter's switch interval for the busy event loop to let it go. A
group refused that way is written as before, in a transaction (``BEGIN
IMMEDIATE``) that reads, in one query, each table's status, owner epoch and last
stored version, judges each append on its own (refused ones store nothing and
hold back no other), inserts the rows of the rest and commits; and a group that
fails as a whole even then (another process stored one of its versions first)
is tried again one append at a time. The values are converted by the columns'
own SQLAlchemy types (the very text SQLAlchemy would store). Each group's
appends are told their outcomes in the callback that brings them back to the
event loop.

SQLite has one writer at a time, and the store's other writes (sessions, in
aiosqlite's threads) take the store's write lock first so as never to meet
another connection's write lock. The appends hold that lock while they stream:
it is taken when an append comes and the writer is idle, and given back as soon
as every append handed over was told, or, under a load that never lets the
thread idle, after :data:`HOLD_AT_MOST` seconds, so that the other writers get
their turn (the appends that come meanwhile wait for the next turn).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncEngine

from romme.store.append_group import (
    Append,
    AppendQueue,
    checked_rows,
    judge,
    tell,
    version_conflict,
)
from romme.store.kept_connection import bind_processor
from romme.store.models import GameTable, TableAction
from romme.store.sqlite_writer import SqliteWriter, immediate

__all__ = ["HOLD_AT_MOST", "SqliteAppends"]

HOLD_AT_MOST = 0.05
"""Seconds the appends may keep the store's write lock while others wait for it."""
WHOLE_AT_MOST = 200
"""Rows a group may have to be written by one statement (five values a row, well
below SQLite's limit of bound values); a bigger one is written by the judged
transaction."""

Outcome = Exception | None
"""What became of an append: ``None``, stored; else why not."""


class SqliteAppends(AppendQueue):
    """The appends on SQLite, and the writer task that holds the store's write lock
    for them (see the module)."""

    def __init__(self, engine: AsyncEngine, writer: SqliteWriter, now: Callable[[], datetime]):
        super().__init__()
        self._writer = writer
        self._now = now
        columns = TableAction.__table__.c
        self._action_json = bind_processor(columns.action, engine.dialect)
        self._time_text = bind_processor(columns.created_at, engine.dialect)
        self._insert = (
            f"INSERT INTO {TableAction.__tablename__} "
            "(table_id, version, action, created_at) VALUES (?, ?, ?, ?)"
        )
        self._found = (
            f"SELECT id, status, owner_epoch, (SELECT max(version) FROM "
            f"{TableAction.__tablename__} WHERE table_id = {GameTable.__tablename__}.id) "
            f"FROM {GameTable.__tablename__} WHERE id IN "
        )
        """The tables' status, owner epoch and last version, less the ids' list."""
        self._whole_statements: dict[int, str] = {}
        """The statement writing a group whole, by its number of rows."""
        self.handed = 0
        """Appends handed to the thread and not told yet."""
        self._streaming = False
        """Whether the lock is held for the appends and new ones go straight to the
        thread."""
        self._stream_ends: asyncio.Future[None] | None = None

    def _take(self, append: Append) -> bool:
        if self._streaming:
            self._hand_over([append])
        return self._streaming

    async def close(self) -> None:
        """Store the appends under way (the writer thread is the store's)."""
        await self.drain()

    async def _writer_task(self) -> None:
        """The writer task: take the lock for the waiting appends, hand them over,
        and let new ones stream until every one handed over was told; again while
        appends wait."""
        loop = asyncio.get_running_loop()
        while self._waiting:
            await self._writer.lock.acquire()
            ends = self._stream_ends = loop.create_future()
            self._streaming = True
            loop.call_later(HOLD_AT_MOST, self._stop_streaming, ends)
            waiting, self._waiting = self._waiting, []
            self._hand_over(waiting)
            try:
                await ends
            except asyncio.CancelledError:
                # What was handed over is stored and told all the same; the lock is
                # given back when it was.
                self._streaming = False
                raise
        self.task = None  # at once: the next append starts a new writer

    def _hand_over(self, appends: list[Append]) -> None:
        self.handed += len(appends)
        self._writer.stream(appends, self._write, self._written)

    def _stop_streaming(self, ends: asyncio.Future[None]) -> None:
        """The lock was held long enough: new appends wait for the next turn."""
        if ends is self._stream_ends:
            self._streaming = False

    def _written(self, group: list[Append], outcomes: list[Outcome]) -> None:
        """In the event loop: a group was stored (or refused). Tell its appends, and
        give the lock back if none is under way."""
        self.groups_committed += 1
        tell(group, outcomes)
        self.handed -= len(group)
        if self.handed == 0:
            self._streaming = False
            self._writer.lock.release()
            ends, self._stream_ends = self._stream_ends, None
            if ends is not None and not ends.done():
                ends.set_result(None)

    # ------------------------------------------------------------ in the thread

    def _write(self, connection: sqlite3.Connection, group: list[Append]) -> list[Outcome]:
        """Store ``group`` by one statement, else judged in one transaction, else
        each append alone (see the module); returns each append's outcome."""
        try:
            if self._insert_whole(connection, group):
                return [None] * len(group)
        except Exception:  # a row refused, or any other failure: the group is judged below
            self._writer.check_connection()
        try:
            return immediate(connection, lambda: self._insert_judged(connection, group))
        except Exception:
            self._writer.check_connection()
        return [self._write_alone(append) for append in group]

    def _insert_whole(self, connection: sqlite3.Connection, group: list[Append]) -> bool:
        """Store every append of ``group`` by one statement in autocommit, which
        SQLite backs out whole if any row fails the judge's checks (raising);
        ``False`` if the group is not one such a statement can judge: an append
        without actions (nothing to check it by), appends of one table that do
        not follow each other, too many rows."""
        checked = checked_rows(group, self._action_json)
        if checked is None or len(checked) > WHOLE_AT_MOST:
            return False
        values = [value for row in checked for value in row]
        statement = self._whole_statement(len(checked))
        connection.execute(statement, [self._time_text(self._now()), *values])
        return True

    def _whole_statement(self, rows: int) -> str:
        """The statement of :meth:`_insert_whole` for ``rows`` rows: each row's
        values are the table id, the version, the action, the append's owner epoch
        (``NULL``: not checked) and the version that must be the last one stored
        (or none stored yet, as in :func:`judge`)."""
        statement = self._whole_statements.get(rows)
        if statement is None:
            actions, tables = TableAction.__tablename__, GameTable.__tablename__
            statement = self._whole_statements[rows] = (
                f"INSERT INTO {actions} (table_id, version, action, created_at) "
                "SELECT CASE WHEN t.status != 'finished' "
                "AND (r.column4 IS NULL OR r.column4 = t.owner_epoch) "
                f"AND coalesce((SELECT max(version) FROM {actions} "
                "WHERE table_id = r.column1), r.column5) = r.column5 "
                "THEN r.column1 END, r.column2, r.column3, ?1 "
                f"FROM (VALUES {', '.join(['(?, ?, ?, ?, ?)'] * rows)}) AS r "
                f"LEFT JOIN {tables} AS t ON t.id = r.column1"
            )
        return statement

    def _write_alone(self, append: Append) -> Outcome:
        """``append`` in a transaction of its own (on a new connection if the group's
        failure broke the last one)."""
        try:
            connection = self._writer.connection()
            return immediate(connection, lambda: self._insert_judged(connection, [append]))[0]
        except sqlite3.IntegrityError:  # the same version, stored a moment ago
            self._writer.check_connection()
            return version_conflict(append.table_id, append.first_version, None)
        except Exception as error:  # handed to the caller
            self._writer.check_connection()
            return error

    def _insert_judged(self, connection: sqlite3.Connection, group: list[Append]) -> list[Outcome]:
        ids = sorted({append.table_id for append in group})
        found = connection.execute(f"{self._found}({', '.join('?' * len(ids))})", ids).fetchall()
        outcomes, rows = judge(group, found)
        if rows:
            action_json, created = self._action_json, self._time_text(self._now())
            connection.executemany(
                self._insert, [(t, v, action_json(a), created) for t, v, a in rows]
            )
        return outcomes
