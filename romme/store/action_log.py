"""The action log: storing a table's accepted actions, version after version.

Appends are group-committed: one writer task stores every append that arrived
while its previous transaction ran in a single transaction (one commit, one
fsync), and each caller learns its own outcome after that commit. A refused
append never holds back the others of its group. How a group's transaction is
stored on each backend is :mod:`romme.store.append_group`.
"""

from __future__ import annotations

import asyncio
import functools
import sqlite3
from typing import Any

import asyncpg
from sqlalchemy.exc import IntegrityError

from romme.store.append_group import Append, PostgresGroups, SqliteGroups, version_conflict
from romme.store.core import StoreCore, bad, check_json, is_id, is_int
from romme.store.errors import StoreError

__all__ = ["ActionLogStore", "AppendWriter"]


class ActionLogStore(StoreCore):
    """The store's action logs (see :class:`romme.store.Store`)."""

    @functools.cached_property
    def _appends(self) -> AppendWriter:
        if self._sqlite:
            return AppendWriter(SqliteGroups(self._engine, self._sqlite_writer, self._now))
        return AppendWriter(PostgresGroups(self._engine, self._now))

    async def append_actions(
        self,
        table_id: int,
        first_version: int,
        actions: list[dict[str, Any]],
        epoch: int | None = None,
    ) -> None:
        """Store ``actions`` as versions ``first_version``, ``first_version + 1``, ...
        in one transaction, committed before this returns.

        ``version_conflict`` (and nothing stored) if one of these versions exists
        or if ``first_version`` does not follow the table's last stored version
        (a gap would make the log useless for recovery). ``lease_lost`` (and
        nothing stored) if ``epoch`` is given and is no longer the table's owner
        epoch (:mod:`romme.store.leases`): another node took the table. Appends
        are group-committed (:class:`AppendWriter`)."""
        if not is_int(first_version) or first_version < 0:
            raise bad("first_version is a non-negative integer")
        if epoch is not None and not is_int(epoch):
            raise bad("epoch is an integer")
        if not isinstance(actions, list) or not all(isinstance(a, dict) for a in actions):
            raise bad("actions is a list of JSON objects")
        for action in actions:
            check_json(action, "an action")
        if not is_id(table_id):
            raise StoreError("no_such_table", f"there is no table {table_id!r}")
        await self._appends.append(table_id, first_version, actions, epoch)


class AppendWriter:
    """The queue of appends and the writer task that stores them in groups
    (``groups``: the backend's way of storing one, :mod:`romme.store.append_group`)."""

    def __init__(self, groups: SqliteGroups | PostgresGroups) -> None:
        self._groups = groups
        self._waiting: list[Append] = []
        self._storing: list[Append] = []
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
    ) -> None:
        """Queue one append (checked by the caller) and wait for its commit."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append(Append(table_id, first_version, actions, epoch, done))
        if self.task is None:
            self.task = asyncio.create_task(self._store_appends())
            self.task.add_done_callback(self._writer_stopped)
        await asyncio.shield(done)

    async def drain(self) -> None:
        """Wait until the appends under way are stored (or refused)."""
        if self.task is not None:
            await asyncio.wait([self.task])

    async def close(self) -> None:
        """Store the appends under way, then release the writer's connection."""
        await self.drain()
        await self._groups.close()

    async def _store_appends(self) -> None:
        """The writer task: store the waiting appends in groups until none is left."""
        while self._waiting:
            group, self._waiting = self._waiting, []
            self._storing = group
            transaction = asyncio.ensure_future(self._append_group(group))
            try:
                outcomes = await asyncio.shield(transaction)
                self.groups_committed += 1
            except asyncio.CancelledError:
                # The transaction may be committing in the database's thread and
                # land all the same: its appends are told what it did, when it is
                # done, never "not stored" for a move that was stored.
                self._storing = []
                transaction.add_done_callback(functools.partial(_tell_when_done, group))
                raise
            except Exception:  # each append is retried on its own
                outcomes = [await self._append_alone(append) for append in group]
            _tell(group, outcomes)
            self._storing = []
        self.task = None  # at once: the next append starts a new writer

    def _writer_stopped(self, task: asyncio.Task[None]) -> None:
        """If the writer was cancelled (or failed) the appends it held or that were
        waiting are refused, and the next append starts a new writer."""
        if self.task is task:
            self.task = None
        if not task.cancelled() and task.exception() is None:
            return
        for append in [*self._storing, *self._waiting]:
            if not append.done.done():
                append.done.set_exception(_not_stored())
        self._storing, self._waiting = [], []

    async def _append_group(self, group: list[Append]) -> list[Exception | None]:
        """One transaction for ``group``; returns each append's outcome."""
        return await self._groups.store(group)

    async def _append_alone(self, append: Append) -> Exception | None:
        """``append`` in a transaction of its own (after its group failed as a whole,
        e.g. because another process stored one of its versions first)."""
        try:
            outcomes = await self._append_group([append])
        except (IntegrityError, sqlite3.IntegrityError, asyncpg.UniqueViolationError):
            # the same version, stored a moment ago
            return version_conflict(append.table_id, append.first_version, None)
        except Exception as error:  # handed to the caller
            return error
        return outcomes[0]


def _not_stored() -> StoreError:
    return StoreError("server_busy", "the store stopped before storing this")


def _tell_when_done(
    group: list[Append], transaction: asyncio.Future[list[Exception | None]]
) -> None:
    """Tell a group what its transaction did after it outlived its cancelled
    writer: if it failed or was cancelled itself, nothing of the group was stored."""
    if transaction.cancelled() or transaction.exception() is not None:
        _tell(group, [_not_stored() for _ in group])
    else:
        _tell(group, transaction.result())


def _tell(group: list[Append], outcomes: list[Exception | None]) -> None:
    """Resolve each append's future with its outcome (``None``: stored)."""
    for append, outcome in zip(group, outcomes, strict=True):
        if append.done.done():
            continue
        if outcome is None:
            append.done.set_result(None)
        else:
            append.done.set_exception(outcome)
