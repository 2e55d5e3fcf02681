"""The chat limits per player and per address, with the time given (the buckets
shared over a cluster: tests/server/test_cluster_limits.py)."""

from __future__ import annotations

import pytest

from romme.server.chatrate import PRUNE_AT, ChatRate

from .helpers import free_port


def test_a_player_gets_its_burst_then_the_rate() -> None:
    rate = ChatRate(2.0, 3, 0, 1)
    assert [rate.allow_here(1, None, now=0.0) for _ in range(4)] == [True, True, True, False]
    assert rate.allow_here(2, None, now=0.0)  # another player has a bucket of its own
    assert not rate.allow_here(1, None, now=0.4)
    assert rate.allow_here(1, None, now=0.5) and not rate.allow_here(1, None, now=0.5)


def test_an_address_is_shared_and_a_refusal_takes_nothing_from_the_player() -> None:
    rate = ChatRate(1.0, 2, 1.0, 3)
    said = [rate.allow_here(player, "10.0.0.1", now=0.0) for player in (1, 1, 2, 3)]
    assert said == [True, True, True, False]
    # Player 3 was refused by the address: its own bucket is still full.
    assert [rate.allow_here(3, "10.0.0.2", now=0.0) for _ in range(3)] == [True, True, False]


def test_zero_switches_a_limit_off_and_pruning_keeps_the_counts() -> None:
    rate = ChatRate(0, 1, 0, 1)
    assert all(rate.allow_here(1, "a", now=0.0) for _ in range(100))
    rate = ChatRate(1.0, 1, 0, 1)
    for player in range(PRUNE_AT + 10):
        assert rate.allow_here(player, None, now=float(player))
    assert not rate.allow_here(PRUNE_AT + 9, None, now=float(PRUNE_AT + 9))


@pytest.mark.asyncio
async def test_without_redis_the_nodes_own_buckets_decide() -> None:
    # Nothing listens on the port: each line is counted here only.
    rate = ChatRate(2.0, 3, 0, 1, f"redis://127.0.0.1:{free_port()}/0")
    try:
        assert [await rate.allow(1, "10.0.0.1") for _ in range(4)] == [True, True, True, False]
    finally:
        await rate.close()
