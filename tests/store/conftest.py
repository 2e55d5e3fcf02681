"""Fixtures of the store's tests: every test that takes ``store`` runs twice, on
SQLite (a temporary file) and on PostgreSQL (a fresh database for this test
session, dropped at its end).

PostgreSQL comes from ``$ROMME_TEST_PG_URL`` (default: the local test server). If it
cannot be reached, its tests fail when ``$CI`` is set and are skipped otherwise, with
the reason.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio

from romme.store import Store

from .helpers import FAST_HASHER, FakeClock, create_pg_database, drop_pg_database, wipe


@pytest.fixture(scope="session")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('store') / 'romme.db'}"


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    url = create_pg_database()
    yield url
    drop_pg_database(url)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest) -> str:
    """The URL of the session's database on each backend in turn."""
    url: str = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    return url


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest_asyncio.fixture
async def store(db_url: str, clock: FakeClock) -> AsyncIterator[Store]:
    """An open store on an empty database."""
    opened = await Store.open(db_url, password_hasher=FAST_HASHER, clock=clock)
    try:
        await wipe(opened)
        yield opened
    finally:
        await opened.close()
