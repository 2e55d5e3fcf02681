"""What settling a game's chips adds to storing its result: ``Store.finish_game``
timed for free and for staked four-seat games (two players, two computer
opponents), one after the other, on a fresh database.

    python bench/bench_settlement.py [--games 300] [--repeats 3] [--db URL]

For each repeat it starts ``--games`` games of each kind (a staked one pays its
stakes into escrow when it starts), then finishes them alternately, timing each
``finish_game`` call alone. It prints the median and p99 of both kinds and their
difference, as the median and spread (min..max) over the repeats. The server's
move-to-broadcast latency under load is ``bench/bench_server.py --point-limit 1
--stake 100`` (against ``--stake 0``).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from argon2 import PasswordHasher, profiles

from romme.store import Store

SEED = bytes(range(32))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def one_repeat(url: str, games: int, repeat: int) -> dict[str, list[float]]:
    store = await Store.open(url, password_hasher=PasswordHasher.from_parameters(profiles.CHEAPEST))
    try:
        bot = (await store.bot_player("casual")).id
        people = [(await store.create_guest(f"s{repeat}p{i}")).id for i in range(2 * games)]
        tables: dict[str, list[tuple[int, list[int]]]] = {"free": [], "staked": []}
        for n in range(games):
            for kind, stake in (("free", 0), ("staked", 100)):
                pair = people[2 * n : 2 * n + 2]
                seats = [{"player": p, "bot": None} for p in pair] + [
                    {"player": bot, "bot": "casual"}
                ] * 2
                table = await store.create_table(pair[0], {"stake": stake}, {}, seats, SEED)
                if stake:
                    await store.start_staked_game(table, seats, stake, 5)
                else:
                    await store.update_table(table, status="playing", seats=seats)
                tables[kind].append((table, [*pair, bot, bot]))
        times: dict[str, list[float]] = {"free": [], "staked": []}
        for n in range(games):
            for kind in ("free", "staked"):
                table, seat_players = tables[kind][n]
                began = time.perf_counter()
                await store.finish_game(
                    table,
                    winners=[n % 4],
                    totals=[0, 12, 30, 47],
                    seat_players=seat_players,
                    results=[{"round_no": 1, "totals": [0, 12, 30, 47]}],
                )
                times[kind].append((time.perf_counter() - began) * 1000)
        return times
    finally:
        await store.close()


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ms ({min(values):.2f}..{max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--db", default=None, help="database URL (default: SQLite, temporary)")
    args = parser.parse_args()
    rows: dict[str, list[float]] = {
        k: [] for k in ("free p50", "staked p50", "free p99", "staked p99")
    }
    for repeat in range(args.repeats):
        with tempfile.TemporaryDirectory(prefix="romme-settle-") as tmp:
            url = args.db or f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
            times = asyncio.run(one_repeat(url, args.games, repeat))
        for kind in ("free", "staked"):
            rows[f"{kind} p50"].append(statistics.median(times[kind]))
            rows[f"{kind} p99"].append(percentile(times[kind], 0.99))
        print(f"repeat {repeat + 1}: " + ", ".join(f"{k} {v[-1]:.2f} ms" for k, v in rows.items()))
    print(
        f"\nfinish_game, {args.games} games of each kind, {args.repeats} repeats "
        "(median and min..max)"
    )
    for name, values in rows.items():
        print(f"{name:>10}: {spread(values)}")
    for q in ("p50", "p99"):
        extra = [s - f for s, f in zip(rows[f"staked {q}"], rows[f"free {q}"], strict=True)]
        print(f"extra {q:>4}: {spread(extra)}")


if __name__ == "__main__":
    main()
