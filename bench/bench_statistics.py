"""What keeping statistics costs at the end of a game: the time of
``Store.finish_game`` (one transaction: result, ratings, statistics) and, inside
it, of :func:`romme.store.statistics.tally_game` (dealing every round again and
judging each hand), on SQLite.

    python bench/bench_statistics.py [--games 40] [--seats 4] [--seed 1] [--out FILE]

Plays ``--games`` classic games (elimination at 100, the knock on) with the
reference player in every seat, stores each with its action log, then finishes
them one by one and prints per game the rounds and the milliseconds, then the
median and p99 of both times and of the longest stall of the event loop during
each ``finish_game`` (a ticker sleeping 1 ms measures how late it wakes): what
the other tables' moves would wait. CPU-bound: run it on an idle core (``nice -n 19``).
``--without`` leaves the statistics out of ``finish_game`` (the time it took
before they existed), for comparison. ``--out`` appends the figures as one JSON
line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from argon2 import PasswordHasher, profiles

from romme.engine.game import Game
from romme.engine.reference import play_game
from romme.engine.rules import Rules
from romme.store import Store
from romme.store import results as results_module
from romme.store.statistics import tally_game


def quantile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def run(games: int, seats: int, seed: int, without: bool) -> dict[str, Any]:
    rules = Rules.classic(knock=True)
    finish_ms: list[float] = []
    tally_ms: list[float] = []
    stall_ms: list[float] = []
    worst = [0.0]

    async def ticker() -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.001)
            worst[0] = max(worst[0], (time.perf_counter() - before) * 1000 - 1)

    ticking = asyncio.create_task(ticker())
    with tempfile.TemporaryDirectory() as workdir:
        store = await Store.open(
            f"sqlite+aiosqlite:///{workdir}/bench.db",
            password_hasher=PasswordHasher.from_parameters(profiles.CHEAPEST),
        )
        try:
            players = [await store.register(f"Bench{i}", "password1") for i in range(seats)]
            ids = [p.id for p in players]
            for index in range(games):
                match_seed = f"{seed}:{index}".encode().ljust(32, b".")
                game = Game(rules, seats, match_seed)
                actions = [a.to_json() for a in play_game(game)]
                results = [r.to_json() for r in game.results]
                table = await store.create_table(ids[0], {}, rules.to_json(), [], match_seed)
                await store.update_table(table, status="playing")
                await store.append_actions(table, 1, actions)
                started = time.perf_counter()
                winners = list(game.winners)
                tally_game(rules.to_json(), match_seed, ids, winners, results, actions, {})
                tally_ms.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                worst[0] = 0.0
                await store.finish_game(
                    table,
                    winners=list(game.winners),
                    totals=list(game.totals),
                    seat_players=ids,
                    results=results,
                )
                finish_ms.append((time.perf_counter() - started) * 1000)
                stall_ms.append(worst[0])
                print(
                    f"game {index + 1}: {len(results)} rounds, finish_game "
                    f"{finish_ms[-1]:.1f} ms, tally {tally_ms[-1]:.1f} ms, "
                    f"loop stall {stall_ms[-1]:.1f} ms",
                    flush=True,
                )
        finally:
            ticking.cancel()
            await store.close()
    return {
        "without_statistics": without,
        "games": games,
        "seats": seats,
        "finish_ms_p50": round(statistics.median(finish_ms), 2),
        "finish_ms_p99": round(quantile(finish_ms, 0.99), 2),
        "tally_ms_p50": round(statistics.median(tally_ms), 2),
        "tally_ms_p99": round(quantile(tally_ms, 0.99), 2),
        "stall_ms_p50": round(statistics.median(stall_ms), 2),
        "stall_ms_p99": round(quantile(stall_ms, 0.99), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--without", action="store_true")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.without:

        async def nothing(*_: object) -> None:
            return None

        results_module.record_statistics = nothing  # type: ignore[assignment]
    figures = asyncio.run(run(args.games, args.seats, args.seed, args.without))
    print(json.dumps(figures))
    if args.out:
        with args.out.open("a") as out:
            out.write(json.dumps(figures) + "\n")


if __name__ == "__main__":
    main()
