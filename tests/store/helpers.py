"""Helpers of the store's tests: a controllable clock, PostgreSQL test databases,
and ``refused``, which checks that a refused call changes nothing."""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Awaitable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from argon2 import PasswordHasher, profiles
from sqlalchemy import select, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from romme.store import Store, StoreError
from romme.store.chip_policy import ChipPolicy
from romme.store.models import Base

from ..postgres import pg_base_url

# Tests hash many passwords: the cheapest argon2 parameters keep them fast. One test
# checks the default parameters.
FAST_HASHER = PasswordHasher.from_parameters(profiles.CHEAPEST)


class FakeClock:
    """The store's clock in tests: starts at a fixed moment and moves on a
    millisecond at each reading, so that every timestamp is distinct."""

    def __init__(self, start: datetime = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=1)
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)

    def ms(self) -> int:
        return int(self.now.timestamp() * 1000)


async def _pg_admin(url: str, statement: str) -> None:
    engine = create_async_engine(url, isolation_level="AUTOCOMMIT", connect_args={"timeout": 10})
    try:
        async with engine.connect() as connection:
            await connection.execute(text(statement))
    finally:
        await engine.dispose()


def create_pg_database(prefix: str = "romme_store_test") -> str:
    """A new, empty PostgreSQL database; its URL. Skips (or fails on CI) if PostgreSQL
    cannot be reached or will not create it."""
    base = pg_base_url()
    name = f"{prefix}_{os.getpid()}_{secrets.token_hex(4)}"
    try:
        asyncio.run(_pg_admin(base, f'CREATE DATABASE "{name}"'))
    except Exception as exc:
        where = make_url(base).render_as_string(hide_password=True)
        reason = (
            f"PostgreSQL at {where} (ROMME_TEST_PG_URL) is unavailable: {type(exc).__name__}: {exc}"
        )
        if os.environ.get("CI"):
            pytest.fail(reason + " (CI is set, so this fails instead of skipping)")
        pytest.skip(reason)
    return make_url(base).set(database=name).render_as_string(hide_password=False)


def drop_pg_database(url: str) -> None:
    name = make_url(url).database
    asyncio.run(_pg_admin(pg_base_url(), f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


async def wipe(store: Store) -> None:
    tables = [t.name for t in reversed(Base.metadata.sorted_tables)]
    async with store._engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            await connection.execute(text(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY CASCADE"))
        else:
            for name in tables:
                await connection.execute(text(f"DELETE FROM {name}"))


async def snapshot(store: Store) -> dict[str, list[str]]:
    """Every row of every table, to check that a refused call changed nothing (but
    the limits' counters: a failed login is counted, see romme.store.limits)."""
    rows: dict[str, list[str]] = {}
    async with store._engine.connect() as connection:
        for table in Base.metadata.sorted_tables:
            if table.name == "rate_counters":
                continue
            result = await connection.execute(select(table))
            rows[table.name] = sorted(repr(tuple(row)) for row in result)
    return rows


async def refused(store: Store, code: str, call: Awaitable[Any]) -> StoreError:
    """Await ``call``, which must raise ``StoreError(code)`` and change nothing."""
    before = await snapshot(store)
    with pytest.raises(StoreError) as info:
        await call
    assert info.value.code == code, info.value
    assert await snapshot(store) == before, f"{code}: the refused call changed the database"
    return info.value


OPEN_POLICY = ChipPolicy(
    established_games=1,
    established_hours=0,
    pair_staked_games=0,
    accounts_per_address=0,
    pair_rated_games=0,
)
"""The chip policy without the daily limits, and with every registered person
who finished a game established: for tests of ratings and rankings themselves
(the limits have their own tests, tests/store/test_economy.py)."""
