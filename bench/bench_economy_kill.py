"""The economy simulation killed: the ledger's invariants across SIGKILLs.

    python bench/bench_economy_kill.py [--kills 5] [--backend sqlite|postgresql]
                                       [--min-seconds 6] [--max-seconds 20]

Each round runs ``bench/bench_economy.py`` (today's rules) in a process of its
own on a fresh database, kills it with SIGKILL after a random time (between
``--min-seconds`` and ``--max-seconds``: mid-game, often mid-settlement), then
opens the database as a restarted server would and checks:

* the sum over all accounts equals the chips granted, and no balance is negative;
* every finished game's pot is empty and what left it equals what entered it;
* every game started and not finished holds in its pot exactly its stakes (a
  settlement is all or nothing); settled now, as the restarted server settles a
  game it plays to its end, it is settled once, and settling it again changes
  nothing.

Exit status 1 if any check fails. PostgreSQL comes from ``$ROMME_TEST_PG_URL``
(default: the local test server), one fresh database per round.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import func, select

from romme.store import Store
from romme.store.models import ChipAccount, ChipMovement, GameResult, GameTable
from tests.server.conftest import drop_pg_database, new_pg_database

BENCH = Path(__file__).resolve().parent / "bench_economy.py"


async def _sums(store: Store) -> tuple[int, int, int | None]:
    """The sum over accounts, the chips granted and the lowest balance."""
    async with store._read() as session:
        total = await session.scalar(select(func.coalesce(func.sum(ChipAccount.balance), 0)))
        minted = await session.scalar(
            select(func.coalesce(func.sum(ChipMovement.amount), 0)).where(
                ChipMovement.from_account.is_(None)
            )
        )
        lowest = await session.scalar(select(func.min(ChipAccount.balance)))
    return int(total or 0), int(minted or 0), lowest


async def _pots(store: Store) -> list[tuple[int, int, int, int, bool]]:
    """Each game's pot: (table, balance, chips in, chips out, finished)."""
    async with store._read() as session:
        escrows = (
            await session.execute(
                select(ChipAccount.id, ChipAccount.table_id, ChipAccount.balance).where(
                    ChipAccount.table_id.is_not(None)
                )
            )
        ).all()
        finished = set(await session.scalars(select(GameResult.table_id)))
        pots = []
        for account, table, balance in escrows:
            if table is None:
                continue
            into = await session.scalar(
                select(func.coalesce(func.sum(ChipMovement.amount), 0)).where(
                    ChipMovement.to_account == account
                )
            )
            out = await session.scalar(
                select(func.coalesce(func.sum(ChipMovement.amount), 0)).where(
                    ChipMovement.from_account == account
                )
            )
            done = table in finished
            pots.append((int(table), int(balance), int(into or 0), int(out or 0), done))
    return pots


async def verify(url: str) -> dict[str, Any]:
    """The checks of the module's docstring on a killed run's database."""
    store = await Store.open(url)
    failures: list[str] = []
    try:
        total, minted, lowest = await _sums(store)
        if total != minted:
            failures.append(f"sum over accounts {total} != chips granted {minted}")
        if lowest is not None and lowest < 0:
            failures.append(f"a negative balance ({lowest})")
        pots = await _pots(store)
        finished = [p for p in pots if p[4]]
        in_flight = [p for p in pots if not p[4]]
        for table, balance, into, out, _ in finished:
            if balance != 0 or into != out:
                failures.append(f"finished game {table}: pot {balance}, in {into}, out {out}")
        for table, balance, into, out, _ in in_flight:
            if out != 0 or balance != into:
                failures.append(f"running game {table} partly settled: in {into}, out {out}")
            async with store._read() as session:
                row = await session.get(GameTable, table)
                seats = list(row.seats) if row is not None else []
            players = [int(s["player"]) for s in seats]
            totals = [0] + [40] * (len(players) - 1)
            for _ in range(2):  # the second settlement must change nothing
                await store.finish_game(
                    table, winners=[0], totals=totals, seat_players=players, results=[]
                )
        if in_flight:
            for table, balance, into, out, _ in await _pots(store):
                if any(table == p[0] for p in in_flight) and (balance != 0 or into != out):
                    failures.append(f"game {table} not settled once after the restart")
            total, minted, lowest = await _sums(store)
            if total != minted or (lowest is not None and lowest < 0):
                failures.append(f"after settling: sum {total}, granted {minted}, lowest {lowest}")
        return {"finished": len(finished), "in_flight": len(in_flight), "failures": failures}
    finally:
        await store.close()


def kill_round(url: str, seconds: float, seed: int) -> None:
    """Run the simulation on ``url`` and SIGKILL it after ``seconds``."""
    command = [sys.executable, str(BENCH), "--games", "1000000", "--rules", "after"]
    command += ["--seed", str(seed), "--db", url]
    child = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if child.poll() is not None:
            err = child.stderr.read().decode() if child.stderr else ""
            raise SystemExit(f"the simulation ended before the kill:\n{err}")
        time.sleep(0.05)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--min-seconds", type=float, default=6.0)
    parser.add_argument("--max-seconds", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    failed = False
    for round_no in range(args.kills):
        seconds = rng.uniform(args.min_seconds, args.max_seconds)
        with tempfile.TemporaryDirectory() as tmp:
            if args.backend == "postgresql":
                url = new_pg_database()
            else:
                url = f"sqlite+aiosqlite:///{Path(tmp) / 'economy.db'}"
            try:
                kill_round(url, seconds, args.seed + round_no)
                found = asyncio.run(verify(url))
            finally:
                if args.backend == "postgresql":
                    drop_pg_database(url)
        failed = failed or bool(found["failures"])
        print(
            f"kill {round_no + 1} after {seconds:.1f} s: {found['finished']} games settled, "
            f"{found['in_flight']} in flight; failures: {found['failures'] or 'none'}",
            flush=True,
        )
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
