"""JSON encoding of the server's real messages: the standard library against orjson.

    python bench/bench_json.py [--games 3] [--repeats 5]

Plays ``--games`` four-seat games with the reference player, and for every move
builds what the server sends: the ``update`` of each seat and the spectators'
(events filtered for the seat, the seat's view, the timer), as
``romme.server.table.actor`` does. Then it times encoding all of them to text
with ``romme.server.messages.dumps`` (the standard ``json``, compact, UTF-8
text) and with ``orjson.dumps(...).decode()`` (the same text: the script checks
that both parse back to the same data), best of ``--repeats`` in CPU time, and prints the
microseconds per move (five updates) and per update. orjson is optional: without
it only the standard library is measured.
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
from romme.engine.reference import play_game
from romme.engine.rules import Rules
from romme.server import messages
from romme.server.encode import ViewEncoder

SEATS = 4


def game_messages(seed: int) -> list[list[dict[str, Any]]]:
    """The updates of every move of one game: per move, each seat's and the
    spectators' (seat ``None``)."""
    rules = Rules.classic()
    seed_bytes = seed.to_bytes(32, "big")
    actions: list[Action] = []
    play_game(Game(rules, SEATS, seed_bytes), on_action=lambda _g, a: actions.append(a))
    game = Game(rules, SEATS, seed_bytes)
    encoder = ViewEncoder()
    moves: list[list[dict[str, Any]]] = []
    for version, action in enumerate(actions, start=1):
        events = game.apply(action)
        timer = {"seat": game.current, "deadline": 1_796_000_000_000 + version, "start": None}
        updates = []
        for seat in [*range(SEATS), None]:
            shown = [e.to_json() for e in (ev.for_seat(seat) for ev in events) if e is not None]
            view = encoder.view(game.view_for(seat))
            updates.append(messages.update(1234, version, shown, view, timer))
        moves.append(updates)
    return moves


def best_of(repeats: int, encode: Any, moves: list[list[dict[str, Any]]]) -> float:
    """The fastest of ``repeats`` runs over every update, in seconds of this
    process's CPU time (a loaded machine does not count)."""
    times = []
    for _ in range(repeats):
        began = time.process_time()
        for updates in moves:
            for data in updates:
                encode(data)
        times.append(time.process_time() - began)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    moves = [m for g in range(args.games) for m in game_messages(g + 1)]
    count = sum(len(u) for u in moves)
    sizes = [len(messages.dumps(d).encode()) for u in moves for d in u]
    print(
        f"{len(moves)} moves, {count} updates, median {statistics.median(sizes):.0f} bytes "
        f"(largest {max(sizes)})"
    )
    coders: dict[str, Any] = {"json (standard library)": messages.dumps}
    try:
        import orjson

        coders["orjson"] = lambda data: orjson.dumps(data).decode()
        for updates in moves:
            for data in updates:
                assert json.loads(coders["orjson"](data)) == json.loads(messages.dumps(data))
    except ImportError:
        print("orjson is not installed: the standard library only")
    for name, encode in coders.items():
        took = best_of(args.repeats, encode, moves)
        print(
            f"{name:>24}: {took / len(moves) * 1e6:6.1f} µs per move (5 updates), "
            f"{took / count * 1e6:5.1f} µs per update"
        )


if __name__ == "__main__":
    main()
