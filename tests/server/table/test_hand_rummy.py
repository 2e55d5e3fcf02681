"""A hand rummy through the table, in-process: a four-seat table with the knock,
dealt so that the first player, after drawing, can lay the whole hand at once.
The table ends the round as a hand rummy (the others' penalties doubled), tells
every seat so, and stores the result (the log replays to the same end)."""

from __future__ import annotations

import hashlib

import pytest

from romme.engine.scoring import hand_penalty
from romme.engine.solver import solve
from tests.server.verify import check_log

from .harness import TableBench

pytestmark = pytest.mark.asyncio

SEED = hashlib.sha256(b"hand-rummy|494").digest()
"""A deal in which the first player's hand and the stock's top card form four melds
and one card to throw (found by searching deals with the engine's solver)."""


async def test_the_first_player_lays_every_card_at_once_a_hand_rummy(bench: TableBench) -> None:
    table = await bench.open(4, SEED, seats=4, knock=True, point_limit=1)
    await bench.start()
    game = table.game
    assert game is not None and game.rules.knock_possible(4) and game.rules.hand_rummy
    seat = game.current
    await bench.act(seat, {"type": "draw", "source": "stock"})
    arrangement = solve(game.hands[seat], game.rules)
    assert len(arrangement.left) == 1, "the deal no longer gives a hand rummy"
    melds = [[str(card) for card in meld.cards] for meld in arrangement.melds]
    await bench.act(seat, {"type": "lay", "melds": melds})
    await bench.act(seat, {"type": "discard", "card": str(arrangement.left[0])})
    await bench.settle()

    result = game.results[-1]
    assert result.winner == seat and result.hand_rummy and result.ended == "out"
    assert game.rules.hand_rummy_multiplier == 2
    for other in range(4):
        if other != seat:
            held = hand_penalty(result.hands[other], game.rules)
            assert held > 0 and result.penalties[other] == 2 * held
    # Every seat was told: the update that ended the round says "hand rummy".
    for conn in bench.players:
        ended = [
            event
            for update in conn.of_type("update")
            for event in update.get("events", [])
            if event["type"] == "round_ended"
        ]
        assert len(ended) == 1, conn
        assert ended[0]["result"]["hand_rummy"] is True
    # The stored log replays to the same hand rummy.
    log = await bench.store.game_log(table.id)
    assert log is not None
    replayed = check_log(log, list(game.winners))
    assert replayed.results[-1].hand_rummy
