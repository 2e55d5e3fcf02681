"""The server benchmark's load generator, its parts that need no server: how the
tables are shared out over its processes, how their measurements merge, and which
of the server's per-second event-loop figures fall in the measured window (the
benchmark itself is ``bench/bench_server.py``; it measures, these tests do not)."""

from __future__ import annotations

import math
import os

from bench.bench_server import default_workers, shares, worst_in_window
from bench.serverload.seats import Stats


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
    merged = Stats()
    merged.add(one)
    merged.add(two)
    assert sorted(merged.latencies) == [0.001, 0.002, 0.003]
    assert (merged.moves, merged.games, merged.errors, merged.received) == (5, 1, 1, 150)
    assert merged.codes == {"busy": 3, "stale": 1}
    assert merged.by_kind == {"free": [0.001, 0.003], "staked": [0.002]}
    assert merged.ends_by_kind == {"staked": [0.002]}
    assert math.isclose(merged.client_cpu, 0.3)
    assert merged.client_lag == 0.025


def test_only_the_seconds_of_the_window_count_for_the_servers_stall() -> None:
    # Seconds 95..100, the current one (100) last.
    lag_ms = [500, 7, 9, 30, 400, 2]
    assert worst_in_window(lag_ms, 100, 96.0, 99.0) == 0.030
    assert worst_in_window(lag_ms, 100, 96.5, 99.5) == 0.400
    assert worst_in_window(lag_ms, 100, 95.0, 96.0) == 0.500
    assert math.isnan(worst_in_window([], 100, 96.0, 99.0))
