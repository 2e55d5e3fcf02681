"""``Timer.start``: when the seat's own time begins. After a discard at a table with
the knock, the next player's time begins when the knock window closes, so the
window is told apart from the turn and the turn keeps its full length."""

from __future__ import annotations

import pytest

from .conftest import ServerFactory, nickname
from .helpers import Client, create_table

pytestmark = pytest.mark.asyncio


async def test_the_timer_tells_when_the_turn_starts(make_server: ServerFactory) -> None:
    server = make_server(time_scale=1)
    player = await (await Client(server, nickname("ts")).guest()).connect()
    table = await create_table(
        player, seats=3, knock=True, turn_seconds=45, bots={"1": "casual", "2": "casual"}
    )
    await player.request({"type": "start_game", "table": table})
    first = await player.expect("update", lambda m: m["version"] == 1)
    timer = first["timer"]
    # A turn without a knock window: the time runs from the deal.
    assert timer["knock"] is None
    assert timer["deadline"] - timer["start"] == 45_000
    drawn = await player.request(
        {"type": "action", "table": table, "action": {"type": "draw", "source": "stock"}}
    )
    assert drawn["timer"]["start"] == timer["start"]  # the same turn
    card = next(c for c in drawn["view"]["hand"] if c != "XX")
    discarded = await player.request(
        {"type": "action", "table": table, "action": {"type": "discard", "card": card}}
    )
    timer = discarded["timer"]
    assert timer["seat"] == 1 and timer["knock"] is not None
    # Seat 1's 45 s begin when the knock window closes.
    assert timer["start"] == timer["knock"]["deadline"]
    assert timer["deadline"] - timer["start"] == 45_000
    # Seat 2's turn (after seat 1, or at once by a knock) has its own start.
    later = await player.expect(
        "update", lambda m: m["timer"] is not None and m["timer"]["seat"] == 2, timeout=20
    )
    assert later["timer"]["start"] > timer["start"] - 3000
    assert later["timer"]["deadline"] - later["timer"]["start"] == 45_000
    await player.close()
