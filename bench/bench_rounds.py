"""Complete rounds of reference players per second, on one core.

    python bench/bench_rounds.py [--seats 4] [--rounds 300] [--repeats 5]
                                 [--rules classic|three-rounds]

Each repeat plays ``--rounds`` complete rounds (deal to round end, via
``Game.apply`` with every action checked) between reference players, with a new
seed per round, and reports rounds per second. The figures printed are the median
and the spread (min..max) over the repeats, plus actions per second.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from romme.engine.actions import NextRound
from romme.engine.game import Game, Phase
from romme.engine.reference import reference_action
from romme.engine.rules import Rules


def play_round(rules: Rules, seats: int, seed: bytes) -> int:
    """One complete round; return the number of actions applied."""
    game = Game(rules, seats, seed)
    game.apply(NextRound())
    actions = 1
    while game.phase in (Phase.DRAW, Phase.PLAY):
        action = None
        for seat in game.knock_seats():
            wish = reference_action(game.view_for(seat))
            if wish is not None:
                action = wish
                break
        if action is None:
            action = reference_action(game.view_for(game.current))
        assert action is not None
        game.apply(action)
        actions += 1
    return actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rules", default="classic", choices=["classic", "three-rounds"])
    args = parser.parse_args()
    rules = Rules.preset(args.rules)
    rates, action_rates = [], []
    for repeat in range(args.repeats):
        started = time.perf_counter()
        actions = 0
        for n in range(args.rounds):
            seed = hashlib.sha256(f"bench:{repeat}:{n}".encode()).digest()
            actions += play_round(rules, args.seats, seed)
        elapsed = time.perf_counter() - started
        rates.append(args.rounds / elapsed)
        action_rates.append(actions / elapsed)
        print(
            f"repeat {repeat + 1}: {args.rounds} rounds in {elapsed:.2f} s = "
            f"{rates[-1]:.0f} rounds/s, {action_rates[-1]:.0f} actions/s",
            flush=True,
        )
    print(
        f"{args.rules}, {args.seats} seats, reference players: rounds/s median "
        f"{statistics.median(rates):.0f} (min {min(rates):.0f}, max {max(rates):.0f}); "
        f"actions/s median {statistics.median(action_rates):.0f}"
    )


if __name__ == "__main__":
    main()
