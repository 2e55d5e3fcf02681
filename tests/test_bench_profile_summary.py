"""``bench/profile_summary.py`` sums up a py-spy profile: samples of threads that
only wait are left out, the rest are counted by group and per move."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MAIN = "<module> (romme/__main__.py:5);BaseEventLoop.run_forever (asyncio/base_events.py:607)"
PROFILE = "\n".join(
    [
        # the event loop waiting in epoll, as py-spy 0.4 names it
        f"{MAIN};_PollLikeSelector.select (selectors.py:415) 50",
        # the bot pool's manager thread in poll and its queue's feeder on a condition
        "Thread.run (threading.py:982);wait (multiprocessing/connection.py:947)"
        ";_PollLikeSelector.select (selectors.py:415) 30",
        "Thread.run (threading.py:982);Queue._feed (multiprocessing/queues.py:231)"
        ";Condition.wait (threading.py:327) 20",
        # work: the engine and a socket write
        f"{MAIN};TableActor._play (romme/server/table/actor.py:339)"
        ";Game.apply (romme/engine/game.py:10) 30",
        f"{MAIN};Connection.send (romme/server/connection.py:100)"
        ";_SelectorSocketTransport.write (asyncio/selector_events.py:1057) 10",
    ]
)


def test_waiting_threads_are_left_out_and_the_work_is_counted_per_move(tmp_path: Path) -> None:
    profile = tmp_path / "run.raw"
    profile.write_text(PROFILE + "\n")
    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "profile_summary.py"), str(profile),
         "--moves", "100", "--rate", "200"],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "40 samples at work (100 samples of waiting threads left out)" in out
    # 40 samples at 200 a second are 0.2 s of work over 100 moves
    assert "100 moves: 2.00 ms of sampled CPU per move" in out
    assert "75.0 %  rules engine (romme/engine)  1.50 ms/move" in out
    assert "25.0 %  asyncio (the loop, selectors, threads)  0.50 ms/move" in out
