"""permessage-deflate on the server's real updates: the compression window's size.

    python bench/bench_deflate.py [--games 4] [--repeats 3] [--bits 12 13 15]
                                  [--levels -1]

Plays ``--games`` four-seat games with the reference player and builds, for every
move, each seat's ``update`` as the server sends it (``bench_json.game_messages``).
Each seat's updates, in order, go through one zlib stream as permessage-deflate
compresses a connection's messages (context kept from message to message, a sync
flush after each, ``memLevel`` 5 as uvicorn sets it), once for each window size in
``--bits`` and each zlib compression level in ``--levels`` (-1, zlib's default, is
level 6; 1 is the fastest). It prints, by the size of the update, the CPU time per message (best
of ``--repeats``) and the compressed bytes. An update carries the seat's whole
view, which grows over a game (past rounds' results, the round's history): once
it is larger than the window, the previous update is out of reach.

One stream at a time stays in the processor's caches; a server with thousands of
connections touches a cold zlib state for every message, so its cost per message
is higher than these figures. What they compare, the windows, is the same.
"""

from __future__ import annotations

import argparse
import sys
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_json import SEATS, game_messages

from romme.server import messages

EVERY = 1 << 30
BANDS = ((0, EVERY), (0, 2500), (2500, 4000), (4000, 6000), (6000, EVERY))
"""Update sizes in bytes (uncompressed), from .. below; the first is every update."""


def compress(streams: list[list[bytes]], bits: int, level: int = -1) -> tuple[float, int]:
    """CPU seconds and compressed bytes for all streams over a ``2**bits`` window
    at compression ``level``."""
    started = time.process_time()
    size = 0
    for stream in streams:
        encoder = zlib.compressobj(level, wbits=-bits, memLevel=5)
        for text in stream:
            size += len(encoder.compress(text) + encoder.flush(zlib.Z_SYNC_FLUSH)) - 4
    return time.process_time() - started, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--bits", type=int, nargs="+", default=[12, 13, 15])
    parser.add_argument("--levels", type=int, nargs="+", default=[-1])
    args = parser.parse_args()
    games = [game_messages(seed) for seed in range(1, args.games + 1)]
    seat_streams = [
        [messages.dumps(move[seat]).encode() for move in game]
        for game in games
        for seat in range(SEATS)
    ]
    total = sum(len(s) for s in seat_streams)
    print(f"{args.games} games, {total} updates of the four seats")
    for low, high in BANDS:
        # Each band keeps the order of its updates within each seat's stream.
        streams = [[t for t in s if low <= len(t) < high] for s in seat_streams]
        streams = [s for s in streams if s]
        count = sum(len(s) for s in streams)
        if not count:
            continue
        raw = sum(len(t) for s in streams for t in s) / count
        if (low, high) == (0, EVERY):
            label = "every update"
        elif high == EVERY:
            label = f"updates of {low} B and more"
        else:
            label = f"updates of {low}..{high} B"
        print(f"{label}: {count} ({100 * count / total:.0f} %), {raw:.0f} B on average")
        for bits in args.bits:
            for level in args.levels:
                best, size = min(compress(streams, bits, level) for _ in range(args.repeats))
                at = "" if args.levels == [-1] else f", level {level}"
                print(
                    f"  window 2**{bits} ({2**bits // 1024} KiB{at}): {1e6 * best / count:6.1f} "
                    f"µs and {size / count:6.0f} B per update"
                )


if __name__ == "__main__":
    main()
