"""A move's updates: every seat gets the events it may see, each as its seat may
see it, though the events all seats see alike are encoded once per move."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from .harness import TableBench

pytestmark = pytest.mark.asyncio


def _last_update(messages: list[dict[str, Any]]) -> dict[str, Any]:
    return [m for m in messages if m["type"] == "update"][-1]


async def test_a_stock_draw_shows_its_card_to_the_drawer_alone(bench: TableBench) -> None:
    await bench.open(3, seats=3)
    await bench.start()
    game = bench.game
    seat = game.current
    hand_before = Counter(game.view_for(seat).hand)
    await bench.act(seat, {"type": "draw", "source": "stock"})
    await bench.settle()
    (drawn,) = Counter(game.view_for(seat).hand) - hand_before
    for other, conn in enumerate(bench.players):
        events = _last_update(conn.messages)["events"]
        (drew,) = [e for e in events if e["type"] == "drew"]
        assert drew["seat"] == seat and drew["source"] == "stock"
        assert drew["card"] == (str(drawn) if other == seat else None)


async def test_a_discard_reads_the_same_for_every_seat(bench: TableBench) -> None:
    await bench.open(3, seats=3)
    await bench.start()
    game = bench.game
    seat = game.current
    await bench.act(seat, {"type": "draw", "source": "stock"})
    card = str(game.view_for(seat).hand[0])
    await bench.act(seat, {"type": "discard", "card": card})
    await bench.settle()
    seen = [_last_update(conn.messages)["events"] for conn in bench.players]
    assert any(e["type"] == "discarded" and e["card"] == card for e in seen[0])
    assert seen[1] == seen[0] and seen[2] == seen[0]
    # Each seat's view is its own all the same.
    hands = [_last_update(conn.messages)["view"]["hand"] for conn in bench.players]
    assert len({tuple(hand) for hand in hands}) == 3


async def test_a_move_keeps_none_of_the_views_built_for_it(bench: TableBench) -> None:
    """The views of a move are dropped once its updates are encoded: kept until the
    table's next move, they would be scanned by the garbage collector's young
    collections (docs/server.md, "Short garbage-collector pauses")."""
    await bench.open(3, seats=3)
    await bench.start()
    seat = bench.game.current
    await bench.act(seat, {"type": "draw", "source": "stock"})
    await bench.settle()
    assert len(bench.players[seat].of_type("update")) >= 1
    assert bench.actor._encoder._shared == {}
    # Built again on demand, the same as the engine's own view.
    game = bench.game
    assert bench.actor._encoder.seat_view(game, seat) == game.view_for(seat).to_json()
