"""Fixtures of the in-process table tests (see ``harness.py``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio

from romme.server.timers import ManualClock
from romme.store import Store

from .harness import TableBench, bench_options, store_clock


@pytest_asyncio.fixture
async def clock() -> ManualClock:
    return ManualClock()


@pytest_asyncio.fixture
async def store(tmp_path: Path, clock: ManualClock) -> AsyncIterator[Store]:
    opened = await Store.open(
        f"sqlite+aiosqlite:///{tmp_path / 'bench.db'}", clock=store_clock(clock)
    )
    try:
        yield opened
    finally:
        await opened.close()


@pytest_asyncio.fixture
async def bench(store: Store, clock: ManualClock) -> AsyncIterator[TableBench]:
    made = TableBench(store, clock, bench_options())
    try:
        yield made
    finally:
        await made.close()
