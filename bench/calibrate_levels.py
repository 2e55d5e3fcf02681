"""Where the named computer levels settle on the server's rating scale.

    python bench/calibrate_levels.py [--ladder 0.646,0.693,0.716] [--runs 40]
                                     [--games 4000] [--seed 100]

The server rates every game with openskill's Plackett-Luce model and shows
``1500 + 20 (mu - 3 sigma)`` (``romme.store.ratings``). This plays 2-seat games
between accounts of the four levels, each pair as likely as any other, with the
outcome drawn from the measured ladder (``--ladder``: the win rate of casual over
beginner, strong over casual and expert over strong; the win rate of two levels
further apart follows by adding their logits), rates each game with the server's
own functions, and prints each level's shown rating averaged over the second
half of each run and over ``--runs`` runs: the figures of
``romme.bots.rating.LEVEL_RATINGS``.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from romme.bots import LEVELS
from romme.store.ratings import BASE, DEFAULT_MU, DEFAULT_SIGMA, SCALE, ordinal, places, rate

LADDER = (0.646, 0.693, 0.716)
"""docs/bots.md: casual vs beginner, strong vs casual, expert vs strong (2,000 games each)."""


def settled_ratings(ladder: Sequence[float], runs: int, games: int, seed: int) -> dict[str, float]:
    """Each level's shown rating once the ratings have settled (see the module
    docstring)."""
    strength = {LEVELS[0]: 0.0}
    for level, below, p in zip(LEVELS[1:], LEVELS[:-1], ladder, strict=True):
        strength[level] = strength[below] + math.log(p / (1 - p))
    totals = dict.fromkeys(LEVELS, 0.0)
    for run in range(runs):
        rng = random.Random(seed + run)
        ratings = dict.fromkeys(LEVELS, (DEFAULT_MU, DEFAULT_SIGMA))
        for game in range(games):
            a, b = rng.sample(LEVELS, 2)
            p_a = 1 / (1 + math.exp(strength[b] - strength[a]))
            winner = 0 if rng.random() < p_a else 1
            ratings[a], ratings[b] = rate([ratings[a], ratings[b]], places([winner], [0, 0]))
            if game >= games // 2:
                for level in LEVELS:
                    shown = BASE + SCALE * ordinal(*ratings[level])
                    totals[level] += shown / (runs * (games - games // 2))
    return totals


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ladder", default=",".join(map(str, LADDER)))
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=100)
    args = parser.parse_args(argv)
    ladder = [float(x) for x in args.ladder.split(",")]
    if len(ladder) != len(LEVELS) - 1:
        parser.error(f"--ladder needs {len(LEVELS) - 1} win rates")
    for level, value in settled_ratings(ladder, args.runs, args.games, args.seed).items():
        print(f"{level:<9} {value:7.1f}")


if __name__ == "__main__":
    main()
