"""The action log: storing a table's accepted actions, version after version.

Appends are group-committed: every append that arrived while the previous
transaction ran is stored in a single transaction (one commit, one fsync), and
each caller learns its own outcome after that commit. A refused append never
holds back the others of its group. On SQLite the appends stream to the store's
writer thread (:mod:`romme.store.sqlite_appends`); on PostgreSQL a writer task
stores them (:class:`AppendWriter`, :mod:`romme.store.append_group`).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any

import asyncpg
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from romme.store.append_group import Append, AppendQueue, PostgresGroups, tell, version_conflict
from romme.store.core import StoreCore, bad, check_json, is_id, is_int
from romme.store.errors import StoreError
from romme.store.models import TableAction
from romme.store.records import FINISHED
from romme.store.sqlite_appends import SqliteAppends

__all__ = ["ActionLogStore", "AppendWriter"]


class ActionLogStore(StoreCore):
    """The store's action logs (see :class:`romme.store.Store`)."""

    @functools.cached_property
    def _appends(self) -> SqliteAppends | AppendWriter:
        if self._sqlite:
            return SqliteAppends(self._engine, self._sqlite_writer, self._now)
        return AppendWriter(PostgresGroups(self._engine, self._now))

    async def append_actions(
        self,
        table_id: int,
        first_version: int,
        actions: list[dict[str, Any]],
        epoch: int | None = None,
        stored: Callable[[], None] | None = None,
    ) -> None:
        """Store ``actions`` as versions ``first_version``, ``first_version + 1``, ...
        in one transaction, committed before this returns.

        ``version_conflict`` (and nothing stored) if one of these versions exists
        or if ``first_version`` does not follow the table's last stored version
        (a gap would make the log useless for recovery). ``lease_lost`` (and
        nothing stored) if ``epoch`` is given and is no longer the table's owner
        epoch (:mod:`romme.store.leases`): another node took the table. Appends
        are group-committed (:class:`AppendWriter`). ``stored()`` is called once
        they are committed, a turn of the event loop before this returns
        (:meth:`romme.store.append_group.AppendQueue.append`)."""
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
        await self._appends.append(table_id, first_version, actions, epoch, stored)

    async def replace_arrange(
        self, table_id: int, version: int, action: dict[str, Any], epoch: int | None = None
    ) -> None:
        """Store ``action``, an ``arrange``, in place of the ``arrange`` of the same
        seat at ``version``: a seat that sorts its hand again before anyone moves
        keeps one stored order, its latest, not one action per sort.

        The log rebuilds the same game as if the new arrange had been appended,
        which the store makes sure of: the action at ``version`` must be an
        ``arrange`` of the same seat, and every later one an ``arrange`` of
        another seat (nothing in between uses the order of this hand: an
        arrangement holds the hand's cards, so the replaced one is legal where
        the old one stood). Else ``bad_message`` and nothing is changed;
        ``version_conflict`` if there is no such version; ``lease_lost`` as for
        :meth:`append_actions`; ``game_over`` once the game is finished. The
        action keeps its time (``created_at``): sorting the hand moves no
        deadline. Committed before this returns."""
        if not is_int(version) or version < 1:
            raise bad("version is a positive integer")
        if not isinstance(action, dict) or action.get("type") != "arrange":
            raise bad("only an arrange replaces an arrange")
        check_json(action, "an action")
        async with self._write() as session:
            table = await self._require_table(session, table_id, lock=True, epoch=epoch)
            if table.status == FINISHED:
                raise StoreError("game_over", f"table {table_id}'s game is finished")
            rows = (
                await session.scalars(
                    select(TableAction)
                    .where(TableAction.table_id == table_id, TableAction.version >= version)
                    .order_by(TableAction.version)
                )
            ).all()
            if not rows or rows[0].version != version:
                raise StoreError("version_conflict", f"table {table_id} has no version {version}")
            replaced, later = rows[0], rows[1:]
            seat = action.get("seat")
            if replaced.action.get("type") != "arrange" or replaced.action.get("seat") != seat:
                raise bad(f"version {version} is not an arrange of seat {seat!r}")
            if any(
                row.action.get("type") != "arrange" or row.action.get("seat") == seat
                for row in later
            ):
                raise bad(f"seat {seat!r}'s hand may have changed since version {version}")
            replaced.action = action


class AppendWriter(AppendQueue):
    """The appends on PostgreSQL: the writer task stores the waiting appends group
    after group (``groups``: :class:`romme.store.append_group.PostgresGroups`,
    which tells each group's appends their outcomes the moment its commit is known),
    and tries each append of a group that failed as a whole again on its own. On
    SQLite: :mod:`romme.store.sqlite_appends`."""

    def __init__(self, groups: PostgresGroups) -> None:
        super().__init__()
        self._groups = groups
        self._storing: list[Append] = []

    async def close(self) -> None:
        """Store the appends under way, then release the writer's connection."""
        await self.drain()
        await self._groups.close()

    async def _writer_task(self) -> None:
        while self._waiting:
            group, self._waiting = self._waiting, []
            self._storing = group
            try:
                await self._groups.store(group)  # which tells the group
                self.groups_committed += 1
            except asyncio.CancelledError:
                # The transaction may be committing all the same: the backend tells
                # its appends what it did when it ends, never "not stored" for a
                # move that was stored.
                self._storing = []
                raise
            except Exception:  # each append is retried on its own
                tell(group, [await self._append_alone(append) for append in group])
            self._storing = []
        self.task = None  # at once: the next append starts a new writer

    def _let_go(self) -> list[Append]:
        held, self._storing = self._storing, []
        return held

    async def _append_alone(self, append: Append) -> Exception | None:
        """``append`` in a transaction of its own (after its group failed as a whole,
        e.g. because another process stored one of its versions first)."""
        try:
            outcomes = await self._groups.store([append])
        except (IntegrityError, asyncpg.UniqueViolationError):
            # the same version, stored a moment ago
            return version_conflict(append.table_id, append.first_version, None)
        except Exception as error:  # handed to the caller
            return error
        return outcomes[0]
