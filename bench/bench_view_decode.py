"""Decoding a seat's view from JSON, as a client or a bot does for every update.

    python bench/bench_view_decode.py [--games 3] [--repeats 5]

Plays ``--games`` four-seat games with the reference player and keeps every view
a seat was asked to act on, as JSON text parsed back (what a client holds after
``json.loads``). Then it times ``SeatView.from_json`` on all of them,
``--repeats`` times in CPU time, and prints the microseconds per view (median and
min..max of the repeats), beside the reference player's decision on the decoded
views, for scale. The bot pool of the server and the load generator of
``bench_server.py`` decode a view for every decision.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from romme.engine.actions import Action
from romme.engine.game import Game
from romme.engine.reference import play_game, reference_action
from romme.engine.rules import Rules
from romme.engine.view import SeatView

SEATS = 4


def game_views(seed: int) -> list[dict[str, Any]]:
    """Every view a seat of one game acted on, as parsed JSON."""
    views: list[dict[str, Any]] = []

    def keeping(view: SeatView) -> Action | None:
        views.append(json.loads(json.dumps(view.to_json())))
        return reference_action(view)

    play_game(Game(Rules.classic(), SEATS, seed.to_bytes(32, "big")), keeping)
    return views


def per_item(work: Any, items: list[Any]) -> float:
    """CPU microseconds per item of one pass of ``work`` over ``items``."""
    started = time.process_time()
    for item in items:
        work(item)
    return (time.process_time() - started) * 1e6 / len(items)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    views = [view for seed in range(args.games) for view in game_views(seed)]
    decoded = [SeatView.from_json(view) for view in views]
    decode = [per_item(SeatView.from_json, views) for _ in range(args.repeats)]
    decide = [per_item(reference_action, decoded) for _ in range(args.repeats)]
    games = f"{args.games} game" + ("s" if args.games != 1 else "")
    print(f"{len(views)} views of {games}, {args.repeats} repeats (median, min..max)")
    for name, times in (("SeatView.from_json", decode), ("reference_action", decide)):
        print(
            f"{name}: {statistics.median(times):.0f} µs per view "
            f"({min(times):.0f}..{max(times):.0f})"
        )


if __name__ == "__main__":
    main()
