"""The hint: the strong level's move with a one-line reason, always legal."""

from __future__ import annotations

import random

import pytest

from romme.bots import make_bot, suggest
from romme.bots.base import is_acceptable
from romme.engine.actions import Discard, Draw, Lay
from romme.engine.game import Game, Phase
from romme.engine.rules import Rules


@pytest.mark.slow
def test_hints_are_the_strong_move_with_a_reason() -> None:
    rng = random.Random(3)
    strong = make_bot("strong", 0)
    kinds: set[str] = set()
    for _ in range(8):
        game = Game.start(Rules.classic(point_limit=1), 2, rng.randbytes(32))
        while game.phase in (Phase.DRAW, Phase.PLAY):
            view = game.view_for(game.current)
            hint = suggest(view)
            assert hint is not None
            assert hint.action == strong.decide(view)
            assert is_acceptable(view, hint.action)
            assert hint.reason and "\n" not in hint.reason and len(hint.reason) < 100
            kinds.add(hint.action.type)
            game.apply(hint.action)
    assert {Draw.type, Discard.type, Lay.type} <= kinds


def test_no_hint_when_it_is_not_your_turn() -> None:
    game = Game.start(Rules.classic(), 3, bytes(32))
    assert suggest(game.view_for(1)) is None
    assert suggest(game.view_for(None)) is None
