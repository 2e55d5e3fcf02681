"""The server benchmark's load generator, its parts that need no server: how the
tables are shared out over its processes, how their measurements merge, and which
of the server's per-second event-loop figures fall in the measured window (the
benchmark itself is ``bench/bench_server.py``; it measures, these tests do not),
and one small run of it against a real server: what it reports of the moves it
measured."""

from __future__ import annotations

import asyncio
import math
import os
import pickle
import re
import subprocess
import sys
import time
from pathlib import Path

from bench.bench_server import default_workers, kinds_line, shares, window_times, worst_in_window
from bench.serverload.seats import Stats
from romme.server.movetimes import BOUNDS_MS

ROOT = Path(__file__).resolve().parent.parent


def test_tables_are_shared_out_evenly_and_numbered_across_the_processes() -> None:
    work = shares(10, 3, 8000, 5.0, {"seats": 4}, mixed_stake=100, tag="t", at_once=4)
    assert [(s.first, s.tables) for s in work] == [(0, 4), (4, 3), (7, 3)]
    assert {(s.port, s.think, s.mixed_stake, s.tag, s.at_once) for s in work} == {
        (8000, 5.0, 100, "t", 4)
    }
    # Never more processes than tables.
    assert [(s.first, s.tables) for s in shares(2, 5, 8000, 5.0, {})] == [(0, 1), (1, 1)]


def test_the_default_number_of_processes_grows_with_the_tables_within_a_cap() -> None:
    assert default_workers(1) == 1
    assert default_workers(100) == 1
    assert default_workers(101) == 2
    assert 1 <= default_workers(1_000_000) <= 4 * (os.cpu_count() or 1)


def test_the_workers_measurements_merge() -> None:
    one = Stats(latencies=[0.001, 0.002], moves=3, games=1, errors=1, codes={"busy": 1})
    one.by_kind = {"free": [0.001]}
    one.client_cpu, one.client_lag, one.received = 0.1, 0.004, 100
    two = Stats(latencies=[0.003], moves=2, codes={"busy": 2, "stale": 1}, received=50)
    two.by_kind, two.ends_by_kind = {"free": [0.003], "staked": [0.002]}, {"staked": [0.002]}
    two.client_cpu, two.client_lag = 0.2, 0.025
    one.sent_kinds, one.rounds = {"draw": 2, "discard": 1}, {7: 1}
    two.sent_kinds, two.rounds = {"draw": 1, "next_round": 1}, {9: 3}
    merged = Stats()
    merged.add(one)
    # Through a pipe, as a worker sends it.
    merged.add(pickle.loads(pickle.dumps(two)))
    assert sorted(merged.latencies) == [0.001, 0.002, 0.003]
    assert (merged.moves, merged.games, merged.errors, merged.received) == (5, 1, 1, 150)
    assert merged.codes == {"busy": 3, "stale": 1}
    assert merged.by_kind == {"free": [0.001, 0.003], "staked": [0.002]}
    assert merged.ends_by_kind == {"staked": [0.002]}
    assert math.isclose(merged.client_cpu, 0.3)
    assert merged.client_lag == 0.025
    assert merged.sent_kinds == {"draw": 3, "discard": 1, "next_round": 1}
    assert merged.rounds == {7: 1, 9: 3}


def test_the_kinds_of_moves_measured_are_shares_the_commonest_first() -> None:
    line = kinds_line({"discard": 30, "draw": 40, "lay": 10, "next_round": 20})
    assert (
        line
        == "moves measured by kind: draw 40 %, discard 30 %, next_round 20 %, lay 10 % (of 100)"
    )
    assert kinds_line({}) == "moves measured by kind: none (of 0)"


def test_an_advanced_run_measures_moves_of_later_in_a_round() -> None:
    """Four tables race for 10 s at a twentieth of the think time, then 5 s are
    measured: the tables are past their first round (measured from the start,
    they are all in round 1) and the moves measured are not only draws and
    discards."""
    run = subprocess.run(
        [
            sys.executable,
            "bench/bench_server.py",
            *("--tables", "4", "--think", "0.5", "--advance", "10", "--duration", "5"),
            *("--repeats", "1", "--workers", "1", "--skip-echo"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    found = re.search(
        r"^moves measured by kind: (.*) \(of (\d+)\); .*round while measured: (\d+) ",
        run.stdout,
        re.M,
    )
    assert found, run.stdout
    parts = [re.fullmatch(r"(\w+) (\d+) %", part) for part in found[1].split(", ")]
    shares = {part[1]: int(part[2]) for part in parts if part}
    assert len(shares) == len(parts), found[0]
    assert int(found[2]) > 0
    assert 95 <= sum(shares.values()) <= 105
    assert set(shares) - {"draw", "discard"}, found[0]
    assert int(found[3]) > 1, found[0]
    # The server's own figures of the same moves: a commit is part of its move.
    inside = {
        stage: [float(ms) for ms in re.findall(r"p[\d.]+ ([\d.]+) ms", line)]
        for stage, line in re.findall(r"^  inside the server, (\w+) .*?:(.*)$", run.stdout, re.M)
    }
    assert set(inside) == {"move", "commit"}, run.stdout
    assert all(len(figures) == 3 for figures in inside.values()), run.stdout
    assert 0 < inside["commit"][0] <= inside["move"][0], run.stdout


def test_the_generators_lag_is_how_late_its_clients_timers_fire_while_measured() -> None:
    """A think time that ends 50 ms late, because the event loop was busy,
    counts while measured and not before."""

    async def late_think(stats: Stats) -> None:
        thinking = asyncio.create_task(stats.think(0.005))
        await asyncio.sleep(0)  # the timer is set
        time.sleep(0.05)  # the loop busy
        await thinking

    stats = Stats()
    asyncio.run(late_think(stats))
    assert stats.client_lag == 0.0
    stats.measuring = True
    asyncio.run(late_think(stats))
    assert 0.04 <= stats.client_lag < 1.0


def test_only_the_seconds_of_the_window_count_for_the_servers_stall() -> None:
    # Seconds 95..100, the current one (100) last.
    lag_ms = [500, 7, 9, 30, 400, 2]
    assert worst_in_window(lag_ms, 100, 96.0, 99.0) == 0.030
    assert worst_in_window(lag_ms, 100, 96.5, 99.5) == 0.400
    assert worst_in_window(lag_ms, 100, 95.0, 96.0) == 0.500
    assert math.isnan(worst_in_window([], 100, 96.0, 99.0))


def test_the_servers_own_figures_are_those_of_the_moves_between_two_readings() -> None:
    buckets = len(BOUNDS_MS) + 1
    before = {"move": [5] * buckets, "commit": [5] * buckets}
    after = {"move": [5] * buckets, "commit": [5] * buckets}
    after["move"][10] += 99  # 99 moves in the window at about BOUNDS_MS[10]
    after["move"][30] += 1  # and one slow one
    after["commit"][2] += 100
    found = window_times(before, after)
    assert found["move"] == (BOUNDS_MS[10], BOUNDS_MS[10], BOUNDS_MS[30])
    assert found["commit"] == (BOUNDS_MS[2],) * 3
    quiet = window_times(before, before)
    assert all(math.isnan(ms) for ms in quiet["move"])
    assert window_times({}, {}) == {}
