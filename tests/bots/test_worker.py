"""Bots are synchronous and run in a worker process: a bot and a view pickle,
and a worker decides exactly what the parent would."""

from __future__ import annotations

import pickle
from concurrent.futures import ProcessPoolExecutor

from romme.bots import LEVELS, make_bot
from romme.engine.actions import Action
from romme.engine.game import Game
from romme.engine.rules import Rules
from romme.engine.view import SeatView


def _decide(level: str, seed: int, view: SeatView) -> Action | None:
    return make_bot(level, seed, **({"time_cap": None} if level == "expert" else {})).decide(view)


def test_a_worker_process_decides_like_the_parent() -> None:
    game = Game.start(Rules.classic(point_limit=1), 2, bytes(range(32)))
    view = game.view_for(0)
    assert pickle.loads(pickle.dumps(view)) == view
    with ProcessPoolExecutor(max_workers=1) as pool:
        for level in LEVELS:
            bot = make_bot(level, 4)
            assert pickle.loads(pickle.dumps(bot)).decide(view) == bot.decide(view)
            assert pool.submit(_decide, level, 4, view).result() == _decide(level, 4, view)
