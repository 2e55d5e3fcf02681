"""The economy simulation (bench/bench_economy.py) on a short run: under
today's rules its dump rings gain nothing, the farmer gains at most the daily
cap, no honest game is voided and the ledger's invariants hold after every
game (the simulation asserts them); under the rules before, the same script
pours the rings' chips into their collectors."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bench.bench_economy import AFTER, simulate


def test_the_abusers_gain_nothing_under_todays_rules(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'after.db'}"
    report = asyncio.run(simulate(url, "after", 60, seed=3))
    abusers = {a["name"]: a for a in report["abusers"]}
    for size in (4, 8, 20):
        ring = abusers[f"dump ring of {size}"]
        assert ring["gained"] == 0 and ring["chips_rank"] is None
    assert abusers["farmer"]["gained"] <= AFTER.bot_win_cap * report["days"]
    assert report["honest_void"] == 0 and report["games"] >= 60

    before = asyncio.run(simulate(f"sqlite+aiosqlite:///{tmp_path / 'b.db'}", "before", 60, 3))
    rings = [a for a in before["abusers"] if a["name"].startswith("dump ring")]
    assert [a["gained"] for a in rings] == [4 * 9_000, 8 * 9_000, 20 * 9_000]


def test_the_check_after_a_kill_finds_a_broken_ledger(tmp_path: Path) -> None:
    from sqlalchemy import create_engine, text

    from bench.bench_economy_kill import verify

    url = f"sqlite+aiosqlite:///{tmp_path / 'killed.db'}"
    asyncio.run(simulate(url, "after", 20, seed=5))
    assert asyncio.run(verify(url))["failures"] == []
    engine = create_engine(f"sqlite:///{tmp_path / 'killed.db'}")
    with engine.begin() as connection:  # a chip from nowhere
        connection.execute(
            text("UPDATE chip_accounts SET balance = balance + 1 WHERE kind = 'player'")
        )
    engine.dispose()
    [failure] = asyncio.run(verify(url))["failures"]
    assert failure.startswith("sum over accounts")
