"""Computer opponents think in a worker process: the event loop does not wait."""

from __future__ import annotations

import hashlib
import time

import pytest

from romme.engine.actions import action_from_json
from romme.engine.game import Game
from romme.engine.reference import reference_action
from romme.engine.rules import Rules
from romme.server.botpool import BotPool
from romme.server.encode import ViewEncoder

pytestmark = pytest.mark.asyncio


async def test_expert_moves_cost_the_event_loop_under_10_ms() -> None:
    game = Game.start(Rules.classic(), 4, hashlib.sha256(b"botpool").digest())
    for _ in range(12):  # a few turns in, with something on the table
        action = reference_action(game.view_for(game.current))
        assert action is not None
        game.apply(action)
    pool = BotPool(workers=1)
    await pool.start()
    encoder = ViewEncoder()
    try:
        for _ in range(6):
            seat = game.current
            view = encoder.view(game.view_for(seat))
            # The CPU time of the event loop's thread while the expert thinks (which
            # takes it up to a second): sending the view and reading the answer.
            started = time.thread_time()
            answer = await pool.decide("expert", 7, view)
            loop_cpu = time.thread_time() - started
            assert loop_cpu < 0.010, f"the loop spent {loop_cpu * 1000:.1f} ms on a bot move"
            assert answer is not None
            game.apply(action_from_json(answer))
        hint, reason = await pool.suggest(encoder.view(game.view_for(game.current)))
        assert hint is not None and reason
    finally:
        await pool.close()
