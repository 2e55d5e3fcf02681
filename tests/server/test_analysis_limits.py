"""The limits on starting analyses: ten new ones per player an hour, and twenty
games waiting at a time (the protocol test cannot finish that many games)."""

from __future__ import annotations

from pathlib import Path

import pytest

from romme.server.analysis import MAX_QUEUED, PER_HOUR, AnalysisRunner
from romme.server.botpool import BotPool
from romme.store import Store
from romme.store.limits import LimitReached

pytestmark = pytest.mark.asyncio


async def test_a_player_starts_at_most_ten_analyses_an_hour(tmp_path: Path) -> None:
    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'limits.db'}")
    try:
        runner = AnalysisRunner(store, BotPool(workers=0))
        for _ in range(PER_HOUR):
            runner.admit(1)
        with pytest.raises(LimitReached) as refused:
            runner.admit(1)
        assert refused.value.code == "too_many_analyses"
        assert 3500 <= refused.value.retry_after <= 3601
        runner.admit(2)  # another player is not held back

        runner._waiting.update(range(100, 100 + MAX_QUEUED))
        with pytest.raises(LimitReached) as busy:
            runner.admit(3)
        assert busy.value.code == "analysis_busy" and busy.value.retry_after == 60
    finally:
        await store.close()
