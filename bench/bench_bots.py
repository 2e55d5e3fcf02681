"""The bots' ladder and decision times.

    python bench/bench_bots.py [--pairs expert-strong,strong-casual,casual-beginner]
                               [--games 2000] [--four 0] [--jobs 1] [--seed 1]
                               [--four-levels expert,strong] [--four-against casual]
                               [--rules classic] [--limit 1] [--out FILE]

For each pair ``upper-lower`` plays ``--games`` seat-rotated 2-seat games (classic,
single rounds by default: ``--limit 1``) and prints the tournament table and one
ladder line: the upper level's win rate with its 95% confidence interval against
its target at single rounds (:data:`TARGETS`; elsewhere against an equal player's
50%). ``--four N`` also plays N 4-seat games of expert and of strong against three
casual players (``--four-against`` names another level for the three), against
:data:`FOUR_TARGETS` likewise.
``--rules`` and ``--limit`` choose the preset and classic's point limit (full matches:
``--limit 100``). Decision times (p50, p99) are measured per decision
inside the worker that plays it, one core each: with ``--jobs 2`` run it on an
otherwise idle machine with at least two cores. ``--out`` appends the figures as
JSON lines.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from romme.bots import is_level
from romme.bots.tournament import TournamentResult, run_tournament
from romme.engine.rules import Rules

TARGETS = {"expert-strong": 0.67, "strong-casual": 0.60, "casual-beginner": 0.60}
"""What each step of the ladder must win at single rounds (classic, limit 1):
60%, and 67% for the expert's step (issue 15)."""
FOUR_TARGETS = {"expert-casual": 0.60, "strong-casual": 0.50}
"""What a level must win against three of another at single rounds (an equal
player wins 25%)."""
LADDER = "expert-strong,strong-casual,casual-beginner"


def _record(result: TournamentResult, kind: str) -> dict[str, object]:
    return {
        "kind": kind,
        "rules": result.rules.name,
        "limit": result.rules.point_limit,
        "levels": list(result.levels),
        "games": result.games,
        "seed": result.seed,
        "seconds": round(result.seconds, 1),
        "stats": {
            level: {
                "seat_games": s.seat_games,
                "wins": s.wins,
                "win_rate": round(s.win_rate, 4),
                "ci95": [round(x, 4) for x in s.interval()],
                "penalty_per_round": round(s.mean_penalty, 2),
                "jokers_only_losses": s.jokers_only,
                "decisions": len(s.times),
                "p50_ms": round(s.percentile_ms(0.5), 3),
                "p99_ms": round(s.percentile_ms(0.99), 3),
            }
            for level, s in result.stats.items()
        },
    }


def _verdict(rules: Rules, target: float | None, win_rate: float, seats: int) -> str:
    """The target and whether it is met; where there is none (another pair, or a
    full match), what an equal player would win."""
    if target is None or rules.name != "classic" or rules.point_limit != 1:
        return f"an equal player wins {1 / seats:.0%}"
    verdict = "meets" if win_rate >= target else f"misses by {target - win_rate:.1%}"
    return f"target {target:.0%}: {verdict}"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--pairs", default=LADDER, help=f"comma-separated upper-lower pairs (default {LADDER})"
    )
    parser.add_argument(
        "--games", type=int, default=200, help="games per pair (the ladder figures use 2000)"
    )
    parser.add_argument(
        "--four",
        type=int,
        default=0,
        help="also play this many 4-seat games of expert and strong vs casual",
    )
    parser.add_argument(
        "--four-levels",
        default="expert,strong",
        help="the levels that play the 4-seat games (default expert,strong)",
    )
    parser.add_argument(
        "--four-against",
        default="casual",
        help="the level of the three other seats in the 4-seat games (default casual)",
    )
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rules", default="classic", choices=("classic", "three-rounds"))
    parser.add_argument("--limit", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="append JSON lines here")
    args = parser.parse_args(argv)

    options = {"point_limit": args.limit} if args.rules == "classic" else {}
    rules = Rules.preset(args.rules, **options)
    records: list[dict[str, object]] = []
    pairs = [p.strip() for p in args.pairs.split(",") if p.strip()]  # "" plays no pairs
    for pair in pairs:
        upper, lower = pair.split("-")
        if not (is_level(upper) and is_level(lower)):
            parser.error(f"unknown level in {pair!r}")
        result = run_tournament(rules, [upper, lower], args.games, seed=args.seed, jobs=args.jobs)
        print(result.report())
        s = result.stats[upper]
        low, high = s.interval()
        print(
            f"ladder: {upper} vs {lower}: {s.win_rate:.1%} [{low:.1%}, {high:.1%}] over "
            f"{result.games} games; {_verdict(rules, TARGETS.get(pair), s.win_rate, 2)}\n",
            flush=True,
        )
        records.append(_record(result, "ladder"))
    if args.four:
        against = args.four_against.strip()
        if not is_level(against):
            parser.error(f"unknown level {against!r}")
        for level in [x.strip() for x in args.four_levels.split(",") if x.strip()]:
            if not is_level(level) or level == against:
                parser.error(f"level {level!r} is unknown or the same as --four-against")
            result = run_tournament(
                rules,
                [level, against, against, against],
                args.four,
                seed=args.seed,
                jobs=args.jobs,
            )
            print(result.report())
            s = result.stats[level]
            low, high = s.interval()
            target = FOUR_TARGETS.get(f"{level}-{against}")
            print(
                f"four seats: {level} vs 3 {against}: {s.win_rate:.1%} [{low:.1%}, {high:.1%}] "
                f"over {result.games} games; {_verdict(rules, target, s.win_rate, 4)}\n",
                flush=True,
            )
            records.append(_record(result, "four-seat"))
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with args.out.open("a") as out:
            for record in records:
                record["when"] = time.strftime("%Y-%m-%d %H:%M:%S")
                out.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
