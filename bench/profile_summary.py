"""Where the time goes, from a py-spy profile in collapsed form.

    py-spy record --pid PID --duration 20 --rate 200 --format raw --output run.txt
    python bench/profile_summary.py run.txt [--top 25] [--moves N]

Prints the top frames by self time (samples in the frame itself) and by total
time (samples with the frame anywhere on the stack), as shares of all samples,
and the share of a few groups of the server's work (the engine, the store and
its drivers, asyncio, JSON, the WebSocket frames). With ``--moves`` (the moves
the server played while sampled) and ``--rate`` (py-spy's samples per second)
it also gives each group's CPU milliseconds per move: py-spy leaves out the
samples of idle threads by default, so the samples are the time spent working.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

GROUPS = {
    "rules engine (romme/engine)": re.compile(r"romme/engine/"),
    "view encoding (romme/server/encode.py)": re.compile(r"romme/server/encode\.py"),
    "store (romme/store)": re.compile(r"romme/store/"),
    "SQLAlchemy": re.compile(r"sqlalchemy/"),
    "aiosqlite / sqlite3": re.compile(r"aiosqlite/|sqlite3"),
    "asyncpg": re.compile(r"asyncpg/"),
    "JSON (json, orjson)": re.compile(r"/json/|orjson"),
    "WebSocket frames (uvicorn, websockets, wsproto)": re.compile(
        r"uvicorn/protocols/websockets|websockets/|wsproto/"
    ),
    "asyncio (the loop, selectors, threads)": re.compile(r"asyncio/|selectors\.py|threading\.py"),
}


IDLE = re.compile(
    r"^(\w+\.)?(select \(selectors\.py|wait \(threading\.py"
    r"|_worker \(concurrent/futures/thread\.py)"
    r"|^_connection_worker_thread \(aiosqlite/core\.py:59\)"
    r"|^(SqliteWriter\.)?_work \(romme/store/sqlite_writer\.py"
)
"""Leaf frames of a thread that waits (the event loop in ``epoll``, aiosqlite's
thread for its next call, the store's SQLite writer thread for its next write
(a sample of its own bytecode in ``_work`` is counted out with it, a few
instructions between writes), the bot pool's manager thread in ``poll`` and its
queue's feeder on a condition): py-spy counts some of them as at work (all of
them with ``--nonblocking``), but they use no CPU, so they are left out. py-spy
0.4 names a method with its class (``EpollSelector.select`` is reported as
``_PollLikeSelector.select``, where it is defined)."""


def frames(line: str) -> tuple[list[str], int]:
    stack, _, count = line.rpartition(" ")
    return stack.split(";"), int(count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile", type=Path)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--moves", type=int, default=0, help="moves played while sampled")
    parser.add_argument("--rate", type=float, default=100.0, help="py-spy's samples per second")
    args = parser.parse_args()
    own: Counter[str] = Counter()
    anywhere: Counter[str] = Counter()
    groups: Counter[str] = Counter()
    total = idle = 0
    for line in args.profile.read_text().splitlines():
        if not line.strip():
            continue
        stack, count = frames(line)
        if IDLE.search(stack[-1]):
            idle += count
            continue
        total += count
        own[stack[-1]] += count
        for frame in set(stack):
            anywhere[frame] += count
        # A sample counts for the innermost group it is in (its own work).
        for frame in reversed(stack):
            group = next((g for g, rx in GROUPS.items() if rx.search(frame)), None)
            if group is not None:
                groups[group] += count
                break
        else:
            groups["other"] += count
    print(f"{total} samples at work ({idle} samples of waiting threads left out)")
    if args.moves:
        cpu_ms = total / args.rate * 1000 / args.moves
        print(f"{args.moves} moves: {cpu_ms:.2f} ms of sampled CPU per move")
    print("\nby group (a sample counts for the innermost group on its stack):")
    for group, count in groups.most_common():
        extra = f"  {count / args.rate * 1000 / args.moves:.2f} ms/move" if args.moves else ""
        print(f"{100 * count / total:6.1f} %  {group}{extra}")
    print(f"\ntop {args.top} frames by self time:")
    for frame, count in own.most_common(args.top):
        print(f"{100 * count / total:6.1f} %  {frame}")
    print(f"\ntop {args.top} frames by total time:")
    for frame, count in anywhere.most_common(args.top):
        print(f"{100 * count / total:6.1f} %  {frame}")


if __name__ == "__main__":
    main()
