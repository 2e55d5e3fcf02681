"""Time the hand solver on random hands dealt from the shuffled 110-card shoe.

    python bench/bench_solver.py [--hands 10000] [--seed S] [--rules classic|three-rounds]
                                 [--no-gc]

Deals ``--hands`` hands of 13 or 14 cards (each equally likely) with
``random.Random(seed)``, times every :func:`solve` and :func:`solve_opening` call
with ``time.perf_counter_ns`` and prints n, p50, p90, p99, max and mean in
milliseconds for 13 cards, 14 cards and all hands. Run it on an otherwise idle
machine; it uses one core.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from romme.engine.cards import Card, shoe
from romme.engine.rules import Rules
from romme.engine.solver import solve, solve_opening


def deal(count: int, seed: int) -> list[list[Card]]:
    """``count`` hands of 13 or 14 cards, each from a freshly shuffled shoe."""
    rng = random.Random(seed)
    cards = shoe()
    hands = []
    for _ in range(count):
        rng.shuffle(cards)
        hands.append(cards[: rng.choice((13, 14))])
    return hands


def percentile(sorted_ns: Sequence[int], fraction: float) -> float:
    """The nearest-rank percentile, in milliseconds."""
    index = min(len(sorted_ns) - 1, max(0, round(fraction * len(sorted_ns)) - 1))
    return sorted_ns[index] / 1e6


def summary(label: str, times: list[int]) -> str:
    if not times:
        return f"{label:<22} n=0"
    ordered = sorted(times)
    return (
        f"{label:<22} n={len(ordered):<6} p50={percentile(ordered, 0.50):.3f} "
        f"p90={percentile(ordered, 0.90):.3f} p99={percentile(ordered, 0.99):.3f} "
        f"max={ordered[-1] / 1e6:.3f} mean={statistics.fmean(ordered) / 1e6:.3f} ms"
    )


def time_calls(
    name: str,
    function: Callable[[Sequence[Card], Rules], object],
    hands: list[list[Card]],
    rules: Rules,
    *,
    collect: bool,
) -> None:
    by_size: dict[int, list[int]] = {13: [], 14: []}
    clock = time.perf_counter_ns
    gc_was_enabled = gc.isenabled()
    if not collect:
        gc.disable()
    try:
        for hand in hands:
            start = clock()
            function(hand, rules)
            by_size.setdefault(len(hand), []).append(clock() - start)
    finally:
        if gc_was_enabled:
            gc.enable()
    everything = [t for times in by_size.values() for t in times]
    for size in sorted(by_size):
        print(summary(f"{name} {size} cards", by_size[size]))
    print(summary(f"{name} all", everything))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--rules", choices=("classic", "three-rounds"), default="classic")
    parser.add_argument(
        "--no-gc", action="store_true", help="switch the garbage collector off while timing"
    )
    args = parser.parse_args(argv)
    rules = Rules.preset(args.rules)
    hands = deal(args.hands, args.seed)
    for hand in hands[:200]:  # warm up caches and the interpreter
        solve(hand, rules)
        solve_opening(hand, rules)
    print(
        f"{args.hands} hands, seed {args.seed}, rules {rules.name}, "
        f"python {sys.version.split()[0]}, gc {'off' if args.no_gc else 'on'}"
    )
    time_calls("solve", solve, hands, rules, collect=not args.no_gc)
    time_calls("solve_opening", solve_opening, hands, rules, collect=not args.no_gc)


if __name__ == "__main__":
    main()
