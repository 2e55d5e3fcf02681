"""How long the analysis of a finished game takes, and how it grows with the game.

    python bench/bench_analysis.py [--games 30] [--seed 1] [--levels casual,strong]
                                   [--limit 1] [--out FILE]

Plays ``--games`` 2-seat games (classic, one round: ``--limit 1``) between
computer opponents of ``--levels`` and analyses both seats as the server does:
one decision at a time (:func:`romme.bots.analysis.analyse_decision`, which also
replays the game up to the decision, as a bot worker does). Prints per game the
number of decisions, the time and the marks; then p50/p99 of the game's
analysis time, p50/p99/max of one decision's time, and the least-squares line of
game time against decisions (seconds per decision), which says how the analysis
scales with the game's length. Times are CPU seconds of this process (one core),
so a loaded machine does not inflate them. ``--out`` appends the figures as one
JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from romme.bots.analysis import (
    COMPARE_DEALS,
    analyse_decision,
    bot_game,
    decisions,
)
from romme.engine.rules import Rules


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--levels", default="casual,strong")
    parser.add_argument("--limit", type=int, default=1)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    levels = tuple(args.levels.split(","))
    rules = Rules.classic(point_limit=args.limit)
    game_times: list[float] = []
    decision_times: list[float] = []
    sizes: list[int] = []
    for n in range(args.games):
        log = bot_game(rules, levels, args.seed + 1000 * n)
        indices = decisions(log, {0, 1})
        marks = 0
        started = time.process_time()
        for index in indices:
            before = time.process_time()
            marks += analyse_decision(log, index) is not None
            decision_times.append(time.process_time() - before)
        game_times.append(time.process_time() - started)
        sizes.append(len(indices))
        print(
            f"game {n:3d}: {len(log.actions):3d} actions, {len(indices):3d} decisions, "
            f"{game_times[-1]:6.2f} s, {marks} marks",
            flush=True,
        )
    slope, intercept = statistics.linear_regression(sizes, game_times)
    figures = {
        "kind": "analysis",
        "games": args.games,
        "levels": list(levels),
        "compare_deals": COMPARE_DEALS,
        "decisions_p50": statistics.median(sizes),
        "decisions_max": max(sizes),
        "game_p50_s": round(statistics.median(game_times), 3),
        "game_p99_s": round(percentile(game_times, 0.99), 3),
        "game_max_s": round(max(game_times), 3),
        "decision_p50_s": round(statistics.median(decision_times), 4),
        "decision_p99_s": round(percentile(decision_times, 0.99), 4),
        "decision_max_s": round(max(decision_times), 4),
        "seconds_per_decision": round(slope, 4),
        "intercept_s": round(intercept, 3),
        "correlation": round(statistics.correlation(sizes, game_times), 3),
    }
    print(json.dumps(figures, indent=2))
    if args.out is not None:
        with args.out.open("a") as out:
            out.write(json.dumps(figures) + "\n")


if __name__ == "__main__":
    main()
