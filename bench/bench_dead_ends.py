"""Random legal games that look for a turn with no way on: 0 dead ends expected.

    python bench/bench_dead_ends.py [--games 1000] [--first 0] [--seed 1] [--jobs 1]
                                    [--rules classic,three-rounds]

Plays ``--games`` games of random legal actions per preset (the walk of
``tests/engine/dead_ends.py``: tables with random seats and options, lays,
lay-offs, joker exchanges, knocks and timeouts) and checks every state of a turn:
the player to move has a legal action and the server's timeout move is accepted.
Prints per preset the games, states checked, joker exchanges, states with an
exchanged joker pending, dead ends (each with a replay) and the time taken, also
after each batch of games (so that a run cut short still reports what it checked).
Game ``n`` of a preset is the same for a given ``--seed`` whatever the jobs, so a
long run may be split over processes with ``--first``. Exit status 1 if any dead
end was found.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from romme.engine.rules import PRESETS
from tests.engine.dead_ends import DeadEnd, table_for, walk_game


@dataclass
class Tally:
    games: int = 0
    states: int = 0
    exchanges: int = 0
    pending: int = 0
    dead_ends: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.games += other.games
        self.states += other.states
        self.exchanges += other.exchanges
        self.pending += other.pending
        self.dead_ends.extend(other.dead_ends)


def walk_games(preset: str, seed: int, first: int, count: int) -> Tally:
    """Games ``first .. first+count-1`` of ``preset``: each has its own seeded
    randomness, so the split into jobs does not change what is played."""
    tally = Tally()
    for n in range(first, first + count):
        rng = random.Random(f"bench-dead-ends:{seed}:{preset}:{n}")
        rules, seats = table_for(preset, rng)
        match_seed = hashlib.sha256(f"bench-dead-ends:{seed}:{preset}:{n}".encode()).digest()
        tally.games += 1
        try:
            walk = walk_game(rules, seats, match_seed, rng)
        except DeadEnd as exc:
            tally.dead_ends.append(f"game {n}: {exc}")
            continue
        tally.states += walk.states
        tally.exchanges += walk.exchanges
        tally.pending += walk.pending_joker_states
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games",
        type=int,
        default=1000,
        help="games per preset (the figures in docs/rules.md: 10000)",
    )
    parser.add_argument("--first", type=int, default=0, help="number of the first game")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="processes")
    parser.add_argument(
        "--rules", default=",".join(PRESETS), help="comma-separated presets (default: both)"
    )
    args = parser.parse_args()
    presets = [p.strip() for p in args.rules.split(",") if p.strip()]
    unknown = [p for p in presets if p not in PRESETS]
    if unknown or args.games < 1 or args.jobs < 1 or args.first < 0:
        parser.error(
            "--rules names presets, --games and --jobs are at least 1, --first is not negative"
        )
    total = Tally()
    started_all = time.perf_counter()
    for preset in presets:
        started = time.perf_counter()
        chunk = max(1, min(250, args.games // (4 * args.jobs)))
        end = args.first + args.games
        parts = [
            (preset, args.seed, first, min(chunk, end - first))
            for first in range(args.first, end, chunk)
        ]
        tally = Tally()
        with ProcessPoolExecutor(args.jobs) as pool:
            for part in pool.map(walk_games, *zip(*parts, strict=True)):
                tally.add(part)
                elapsed = time.perf_counter() - started
                print(
                    f"{preset}: {tally.games} games from game {args.first}, "
                    f"{tally.states} states checked, {tally.exchanges} joker exchanges, "
                    f"{tally.pending} states with a joker pending, "
                    f"{len(tally.dead_ends)} dead ends; {elapsed:.0f} s "
                    f"({tally.games / elapsed:.1f} games/s, "
                    f"{tally.states / elapsed:.0f} states/s, {args.jobs} job(s))",
                    flush=True,
                )
        for line in tally.dead_ends[:5]:
            print(f"  {line}")
        total.add(tally)
    elapsed = time.perf_counter() - started_all
    print(
        f"total: {total.games} games, {total.states} states checked, "
        f"{len(total.dead_ends)} dead ends; {elapsed:.0f} s, seed {args.seed}"
    )
    if total.dead_ends:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
