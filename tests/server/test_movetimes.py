"""How long moves take, as ``/healthz`` reports it (``move_ms``): counts per bucket
that a reader subtracts to get the moves of its own window."""

from __future__ import annotations

import itertools
import math

import httpx
import pytest

from romme.server.movetimes import BOUNDS_MS, STAGES, MoveTimes, percentile

from .conftest import nickname
from .helpers import Autoplayer, Client, ServerProcess, create_table, play_out


def test_a_duration_lands_in_the_bucket_of_the_smallest_bound_not_below_it() -> None:
    times = MoveTimes()
    times.record("move", 0.0)  # the first bucket
    times.record("move", BOUNDS_MS[3] / 1000)  # on a bound: that bound's bucket
    times.record("move", BOUNDS_MS[3] * 1.01 / 1000)  # just above: the next one
    times.record("commit", 60.0)  # over the last bound
    snapshot = times.snapshot()
    assert snapshot["bounds"] == list(BOUNDS_MS)
    assert set(snapshot) == {"bounds", *STAGES}
    move, commit = snapshot["move"], snapshot["commit"]
    assert len(move) == len(BOUNDS_MS) + 1
    assert [i for i, n in enumerate(move) if n] == [0, 3, 4]
    assert [i for i, n in enumerate(commit) if n] == [len(BOUNDS_MS)]


def test_each_bound_is_a_quarter_above_the_one_before() -> None:
    assert BOUNDS_MS[0] == 0.1 and BOUNDS_MS[-1] > 10_000
    for low, high in itertools.pairwise(BOUNDS_MS):
        assert high / low == pytest.approx(1.25, rel=0.01)


def test_percentiles_are_read_from_the_buckets() -> None:
    times = MoveTimes()
    for ms in [1.0] * 98 + [20.0, 500.0]:
        times.record("move", ms / 1000)
    counts = times.snapshot()["move"]
    p50, p99, worst = (percentile(counts, f) for f in (0.5, 0.99, 1.0))
    assert p50 is not None and 1.0 <= p50 < 1.25
    assert p99 is not None and 20.0 <= p99 < 25.0
    assert worst is not None and 500.0 <= worst < 625.0
    assert percentile([0] * len(counts), 0.5) is None
    assert percentile([0] * len(BOUNDS_MS) + [1], 0.5) == math.inf


@pytest.mark.asyncio
async def test_the_moves_of_a_game_are_counted_and_a_commit_is_part_of_its_move(
    shared_server: ServerProcess,
) -> None:
    """Read before and after a game: the difference counts the game's moves, as
    many in each stage, and no move took less than its own commit."""

    def read() -> dict[str, list[int]]:
        data = httpx.get(shared_server.base + "/healthz").json()["move_ms"]
        assert data["bounds"] == list(BOUNDS_MS)
        return {stage: data[stage] for stage in STAGES}

    before = read()
    anna = await Client(shared_server, nickname("Tim")).guest()
    ben = await Client(shared_server, nickname("Tom")).guest()
    for client in (anna, ben):
        await client.connect()
    table = await create_table(anna, seats=2, point_limit=1)
    await ben.request({"type": "join_table", "table": table})
    await anna.request({"type": "start_game", "table": table})
    players = [Autoplayer(anna, table), Autoplayer(ben, table)]
    await play_out(players, timeout=90)
    after = read()
    for client in (anna, ben):
        await client.close()

    window = {s: [b - a for a, b in zip(before[s], after[s], strict=True)] for s in STAGES}
    assert all(n >= 0 for counts in window.values() for n in counts)
    moves = sum(window["move"])
    assert moves >= sum(p.moves for p in players) // 2 > 0
    assert sum(window["commit"]) == moves
    # Every move waited for its own commit: at each bound at least as many
    # commits as moves were done.
    done_moves = list(itertools.accumulate(window["move"]))
    done_commits = list(itertools.accumulate(window["commit"]))
    assert all(c >= m for c, m in zip(done_commits, done_moves, strict=True))
