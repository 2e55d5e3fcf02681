"""Connecting to the database: the URL forms the store accepts, the SQLAlchemy
engine with its SQLite set-up (WAL, foreign keys, IMMEDIATE write transactions),
and the migration of a new or older database to the newest schema."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from romme.store.migrate import upgrade_to_head

__all__ = [
    "DEFAULT_URL",
    "SQLITE_SYNCHRONOUS",
    "make_engine",
    "migrate",
    "normalise_url",
    "sqlite_connector",
    "writer",
]

DEFAULT_URL = "sqlite+aiosqlite:///./var/romme.db"
_PG_MIGRATION_LOCK = 0x726F6D6D65  # "romme": one migrating process at a time
_WRITER_OPTION = "romme_writer"
_SQLITE_BUSY_TIMEOUT = 30
"""Seconds a SQLite connection waits for another one's write lock."""


def normalise_url(url: str) -> str:
    """The URL with the async driver filled in: ``postgresql://`` and ``postgres://``
    become ``postgresql+asyncpg://``, ``sqlite://`` becomes ``sqlite+aiosqlite://``."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://") :]
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "postgresql":
        parsed = parsed.set(drivername="postgresql+asyncpg")
    elif backend == "sqlite":
        parsed = parsed.set(drivername="sqlite+aiosqlite")
    else:
        raise ValueError(f"the store runs on SQLite or PostgreSQL, not {backend!r}")
    return parsed.render_as_string(hide_password=False)


SQLITE_SYNCHRONOUS = ("full", "normal")
"""The values of SQLite's ``PRAGMA synchronous`` the store accepts. In WAL mode
``full`` makes every commit wait for the disk (fsync of the log); ``normal`` only
each checkpoint: a commit then survives a crash of the process but may be lost,
with those just before it, if the machine loses power (the database stays
whole)."""


def make_engine(url: str, sqlite_synchronous: str = "full") -> AsyncEngine:
    """The store's engine for ``url`` (normalised): for SQLite, the file's folder is
    created and the connections are set up as described in :func:`_configure_sqlite`."""
    if sqlite_synchronous not in SQLITE_SYNCHRONOUS:
        raise ValueError(f"sqlite_synchronous is one of {', '.join(SQLITE_SYNCHRONOUS)}")
    parsed = make_url(url)
    options: dict[str, Any] = {}
    if parsed.get_backend_name() == "sqlite":
        if parsed.database in (None, "", ":memory:"):
            # The store's writer thread has a connection of its own (see
            # sqlite_connector), and each connection to ":memory:" is a database.
            raise ValueError("SQLite needs a file: an in-memory database cannot be shared")
        path = _sqlite_file(parsed)
        if path is not None:
            _private_file(path)
        options["connect_args"] = {"timeout": _SQLITE_BUSY_TIMEOUT}
    else:
        options.update(pool_size=10, max_overflow=20, pool_pre_ping=True)
    engine = create_async_engine(url, **options)
    if engine.dialect.name == "sqlite":
        _configure_sqlite(engine, sqlite_synchronous)
    return engine


def writer(engine: AsyncEngine) -> AsyncEngine:
    """The engine for write transactions (on SQLite they begin IMMEDIATE)."""
    return engine.execution_options(**{_WRITER_OPTION: True})


async def migrate(engine: AsyncEngine) -> None:
    """Create the database's tables or migrate them to the newest schema. On
    PostgreSQL an advisory lock lets one process at a time migrate, so that
    servers started together do not race."""
    async with writer(engine).begin() as connection:
        if engine.dialect.name == "postgresql":
            await connection.execute(
                text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_MIGRATION_LOCK}
            )
        await connection.run_sync(upgrade_to_head)


def _sqlite_file(url: URL) -> Path | None:
    database = url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def _private_file(path: Path) -> None:
    """Create the SQLite file readable by its owner only (0600; its folder, if new,
    0700): it holds password hashes and the seeds of running games, that is every
    deal to come. SQLite gives the ``-wal`` and ``-shm`` files the file's mode. A
    file made before is made private too."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        with contextlib.suppress(FileNotFoundError, PermissionError):
            if file.stat().st_mode & 0o077:
                file.chmod(0o600)


def _configure_sqlite(engine: AsyncEngine, synchronous: str) -> None:
    """WAL (readers never wait for the writer), ``synchronous`` (see
    :data:`SQLITE_SYNCHRONOUS`), foreign keys, and real transactions: Python's
    sqlite3 would otherwise begin them only at the first write."""

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        _set_up_sqlite(dbapi_connection, synchronous)

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Connection) -> None:
        # Writers take the write lock at once (BEGIN IMMEDIATE), waiting for it if need
        # be; a deferred transaction that reads and then writes could instead fail
        # at once with "database is locked" when another connection writes.
        if connection.get_execution_options().get(_WRITER_OPTION):
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            connection.exec_driver_sql("BEGIN")


def sqlite_connector(engine: AsyncEngine, synchronous: str) -> Callable[[], sqlite3.Connection]:
    """A maker of plain ``sqlite3`` connections to ``engine``'s SQLite file, set up
    like the engine's own (:func:`_configure_sqlite`), for a thread that keeps one
    for itself (:class:`romme.store.sqlite_writer.SqliteWriter`)."""
    args, kwargs = engine.dialect.create_connect_args(engine.url)
    (database,) = args
    uri = bool(kwargs.get("uri", False))

    def connect() -> sqlite3.Connection:
        connection = sqlite3.connect(database, timeout=_SQLITE_BUSY_TIMEOUT, uri=uri)
        try:
            _set_up_sqlite(connection, synchronous)
        except BaseException:
            connection.close()
            raise
        return connection

    return connect


def _set_up_sqlite(dbapi_connection: Any, synchronous: str) -> None:
    """A new connection's set-up (see :func:`_configure_sqlite`)."""
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        _set_wal(cursor)
        cursor.execute(f"PRAGMA synchronous={synchronous.upper()}")
        cursor.execute("PRAGMA foreign_keys=ON")
    finally:
        cursor.close()


def _set_wal(cursor: Any, patience: float = 30.0) -> None:
    """Switch the file to WAL. Switching needs the file to itself and SQLite answers
    "database is locked" at once, without its busy timeout, when another connection
    is creating or switching the same new file; so try again for a while."""
    deadline = time.monotonic() + patience
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)
