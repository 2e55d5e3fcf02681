"""The time the server takes to replay a finished game's log into the positions of
``GET /api/games/{id}/replay``, and the size of the answer.

    python bench/bench_replay.py [--games 20] [--seats 4] [--limit 100] [--seed 1]

Plays ``--games`` whole games (classic, ``--limit`` penalty points) with the
reference player in every seat, then times :func:`romme.server.replay.replay_positions`
on each game's log (five times each, the median kept) and prints per game the number
of actions, the milliseconds and the JSON size, then the median and the spread
(p10 to p90) of the time per action. Run it on an idle core (``nice -n 19``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from romme.engine.game import Game, Phase
from romme.engine.reference import reference_action
from romme.engine.rules import Rules
from romme.server.replay import replay_positions


def played_log(rules: Rules, seats: int, seed: bytes) -> dict[str, object]:
    """The ``GameLog`` fields a replay reads, of a game the reference player plays out."""
    game = Game.start(rules, seats, seed)
    actions = [{"type": "next_round"}]
    while not game.is_over:
        if game.phase is Phase.ROUND_OVER:
            action = game.legal_actions(None)[-1]
        else:
            found = reference_action(game.view_for(game.current))
            assert found is not None
            action = found
        game.apply(action)
        actions.append(action.to_json())
    return {
        "id": 1,
        "rules": rules.to_json(),
        "seats": [{"seat": s} for s in range(seats)],
        "winners": list(game.winners),
        "match_seed": seed.hex(),
        "rounds": [],
        "actions": actions,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rules = Rules.classic(point_limit=args.limit)
    per_action = []
    for index in range(args.games):
        seed = (args.seed * 1_000_003 + index).to_bytes(32, "big")
        log = played_log(rules, args.seats, seed)
        times = []
        for _ in range(5):
            start = time.perf_counter()
            replay = replay_positions(log)
            times.append(time.perf_counter() - start)
        elapsed = statistics.median(times)
        actions = len(log["actions"])  # type: ignore[arg-type]
        size = len(json.dumps(replay))
        per_action.append(elapsed / actions)
        print(f"game {index}: {actions} actions, {elapsed * 1000:.1f} ms, {size / 1024:.0f} KiB")
    deciles = statistics.quantiles(per_action, n=10)
    print(
        f"per action: median {statistics.median(per_action) * 1e6:.0f} us, "
        f"p10 {deciles[0] * 1e6:.0f} us, p90 {deciles[-1] * 1e6:.0f} us"
    )


if __name__ == "__main__":
    main()
