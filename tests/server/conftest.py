"""Fixtures of the end-to-end tests: a real ``romme serve`` in a subprocess on a
free loopback port, on SQLite (a temporary file) or PostgreSQL (a fresh database
per server, dropped afterwards).

PostgreSQL comes from ``$ROMME_TEST_PG_URL`` (default: the local test server). If it
cannot be reached, its tests fail when ``$CI`` is set and are skipped otherwise,
with the reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import secrets
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from ..postgres import pg_base_url
from .helpers import ServerProcess
from .redis_server import RedisServer

_names = itertools.count(1)


def nickname(prefix: str = "p") -> str:
    """A nickname no other test uses (3..20 characters)."""
    return f"{prefix[:8]}{next(_names)}x{secrets.token_hex(2)}"


async def _pg_admin(base: str, statement: str) -> None:
    import asyncpg

    url = make_url(base)
    connection = await asyncpg.connect(
        user=url.username,
        password=url.password,
        host=url.host or "127.0.0.1",
        port=url.port or 5432,
        database=url.database or "postgres",
        timeout=5,
    )
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


def _run(statement: str) -> None:
    """Run an admin statement from sync or async code alike (in its own thread)."""
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, _pg_admin(pg_base_url(), statement)).result()


def new_pg_database() -> str:
    base = pg_base_url()
    name = f"romme_e2e_{os.getpid()}_{secrets.token_hex(4)}"
    try:
        _run(f'CREATE DATABASE "{name}"')
    except Exception as exc:
        where = make_url(base).render_as_string(hide_password=True)
        reason = f"PostgreSQL at {where} (ROMME_TEST_PG_URL) is unavailable: {exc!r}"
        if os.environ.get("CI"):
            pytest.fail(reason + " (CI is set, so this fails instead of skipping)")
        pytest.skip(reason)
    return make_url(base).set(database=name).render_as_string(hide_password=False)


def drop_pg_database(url: str) -> None:
    name = make_url(url).database
    with contextlib.suppress(Exception):
        _run(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


ServerFactory = Callable[..., ServerProcess]


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator[ServerFactory]:
    """Start servers (``backend``: sqlite or postgresql); all are stopped at the end."""
    started: list[ServerProcess] = []
    databases: list[str] = []

    def make(
        backend: str = "sqlite", *, db_url: str | None = None, start: bool = True, **options: object
    ) -> ServerProcess:
        if db_url is None:
            if backend == "postgresql":
                db_url = new_pg_database()
                databases.append(db_url)
            else:
                db_url = f"sqlite+aiosqlite:///{tmp_path / f'romme-{len(started)}.db'}"
        server = ServerProcess(db_url, tmp_path, **options)  # type: ignore[arg-type]
        started.append(server)
        if start:
            server.start()
        return server

    yield make
    for server in started:
        server.stop()
        # Captured output: pytest shows it with a failing test only.
        print(f"--- log of the server on port {server.port} (its end) ---")
        print(server.logs()[-6000:])
    for url in databases:
        drop_pg_database(url)


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One SQLite server for a whole module (tests use their own nicknames). Its
    tests create more guests from 127.0.0.1 than the default limit of new accounts
    per address allows, so that limit is off here."""
    workdir = tmp_path_factory.mktemp("server")
    server = ServerProcess(
        f"sqlite+aiosqlite:///{workdir / 'romme.db'}",
        workdir,
        time_scale=10,
        extra=["--accounts-per-hour", "0"],
    ).start()
    yield server
    server.stop()


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A redis-server of the test's own."""
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()
