"""Replay the ladder's games with fixed seeds and record each one, to show that a
change to the engine or the bots leaves every decision as it was.

Each game is played exactly as ``romme tournament`` plays it (same deal seeds, same
bot seeds, seats rotated), with the expert's CPU time cap switched off so that its
search depends on the seeds alone. For every game the record holds the winners, the
penalties of every round and a SHA-256 over the whole sequence of actions, so two
runs agree game for game only if every decision agreed.

    python bench/ladder_replay.py --out before.jsonl
    python bench/ladder_replay.py --out after.jsonl --compare before.jsonl
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from romme.bots.tournament import bot_seed, deal_seed, play_match
from romme.engine.actions import Action
from romme.engine.rules import Rules

LADDER = [
    ("casual,beginner", "classic", 150),
    ("casual,beginner", "three-rounds", 50),
    ("strong,casual", "classic", 150),
    ("strong,casual", "three-rounds", 50),
    ("expert,strong", "classic", 40),
    ("expert,casual,casual,casual", "classic", 5),
]
"""Pairings, preset and how many deals of each to replay (each deal once per seat
rotation). Classic is played at limit 1, one round, as the ladder in docs/bots.md."""
SEED = 0


def _hasher(digest: Any) -> Callable[[object, Action], None]:
    """Feed each action's wire form (stable across refactorings) into ``digest``."""

    def record_action(_game: object, action: Action) -> None:
        digest.update(json.dumps(action.to_json(), sort_keys=True).encode())

    return record_action


def replay_deal(levels: tuple[str, ...], preset: str, deal: int) -> list[dict[str, object]]:
    """Every rotation of one deal, as records."""
    rules = Rules.classic(point_limit=1) if preset == "classic" else Rules.three_rounds()
    seats = len(levels)
    options = {"expert": {"time_cap": None}}
    records = []
    for rotation in range(seats):
        lineup = tuple(levels[(i + rotation) % seats] for i in range(seats))
        seeds = [bot_seed(SEED, deal, rotation, seat) for seat in range(seats)]
        digest = hashlib.sha256()
        record_action = _hasher(digest)
        match = play_match(rules, lineup, deal_seed(SEED, deal), seeds, record_action, options)
        records.append(
            {
                "preset": preset,
                "levels": list(lineup),
                "deal": deal,
                "rotation": rotation,
                "wins": match.wins,
                "penalties": match.penalties,
                "actions": match.actions,
                "log_sha256": digest.hexdigest(),
            }
        )
    return records


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--compare", type=Path)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the deals")
    args = parser.parse_args()
    work = [
        (tuple(levels.split(",")), preset, deal)
        for levels, preset, deals in LADDER
        for deal in range(max(1, round(deals * args.scale)))
    ]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        results = pool.map(replay_deal, *zip(*work, strict=True), chunksize=4)
        lines = [json.dumps(r, sort_keys=True) for batch in results for r in batch]
    args.out.write_text("\n".join(lines) + "\n")
    print(f"{len(lines)} games written to {args.out}")
    if args.compare is None:
        return 0
    before = args.compare.read_text().splitlines()
    differing = [i for i, (a, b) in enumerate(zip(before, lines, strict=False)) if a != b]
    if len(before) != len(lines) or differing:
        print(
            f"DIFFERENT: {len(differing)} of {len(lines)} games differ "
            f"(first: {differing[:5]}); {len(before)} games before, {len(lines)} now"
        )
        return 1
    print(f"identical: all {len(lines)} games agree game for game with {args.compare}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
