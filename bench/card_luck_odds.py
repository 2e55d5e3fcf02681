"""The odds that a dealt hand is meld-ready (see :mod:`romme.engine.cardluck`).

    python bench/card_luck_odds.py [--hands 200000] [--seed 1]

Deals ``--hands`` hands per preset from seeds ``sha256(seed || "odds" || i)``
(one hand per shuffle, the first of the deal: every hand of a deal has the same
distribution) and prints, per preset, the share that can lay an opening at once
with its standard error, and the jokers per hand against the exact mean. The
figures go into ``MELD_READY_ODDS``.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from romme.engine.cardluck import hand_luck, joker_odds, meld_key
from romme.engine.fairness import deal_from_seed
from romme.engine.rules import Rules
from romme.engine.solver import solve_opening


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for rules in (Rules.classic(), Rules.three_rounds()):
        ready = jokers = 0
        for i in range(args.hands):
            seed = hashlib.sha256(f"{args.seed}:odds:{i}".encode()).digest()
            hand = deal_from_seed(seed, 1, rules.hand_size).hands[0]
            ready += solve_opening(hand, rules) is not None
            jokers += hand_luck(hand, rules).jokers
        share = ready / args.hands
        error = math.sqrt(share * (1 - share) / args.hands)
        mean, _ = joker_odds(rules.hand_size)
        print(
            f"{rules.name} {meld_key(rules)}: meld-ready {share:.4f} +- {error:.4f}; "
            f"jokers {jokers / args.hands:.4f} per hand (exact {mean:.4f})",
            flush=True,
        )


if __name__ == "__main__":
    main()
