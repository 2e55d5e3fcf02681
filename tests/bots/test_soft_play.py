"""The soft-play check (romme.bots.soft_play): it finds exactly the turns on
which a seat held back from going out, in games played to the end in-process."""

from __future__ import annotations

import pytest

from romme.bots.analysis import AnalysisInput, bot_game
from romme.bots.soft_play import missed_outs
from romme.engine.actions import Draw, NextRound
from romme.engine.game import Game, Phase
from romme.engine.reference import Policy
from romme.engine.rules import Rules
from tests.bots.holding_back import HOLDS, HoldingBack


def _held_back_game(seed: int, timed_out: bool = False) -> tuple[AnalysisInput, list[int]]:
    """Seat 0 holds back twice while seat 1 waits; the game is played to its end.
    Returns the log and the indices of the draws that began the held-back turns.
    With ``timed_out``, every draw of seat 0 is marked as played by the server."""
    rules = Rules.classic(point_limit=1)
    match_seed = seed.to_bytes(32, "big")
    game = Game(rules, 2, match_seed)
    holding = HoldingBack()

    policies: list[Policy] = [holding, holding.waiting]
    actions = [NextRound().to_json()]
    game.apply(NextRound())
    held_at: list[int] = []
    last_draw = -1
    while game.phase in (Phase.DRAW, Phase.PLAY):
        seat = game.current
        before = holding.held
        action = policies[seat](game.view_for(seat))
        assert action is not None
        if seat == 0 and holding.held > before:
            held_at.append(last_draw)
        data = action.to_json()
        if isinstance(action, Draw):
            last_draw = len(actions)
            if timed_out and seat == 0:
                data["by"] = "timeout"
        game.apply(action)
        actions.append(data)
    return AnalysisInput(rules.to_json(), 2, match_seed.hex(), actions), held_at


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_the_turns_held_back_are_found(seed: int) -> None:
    log, held_at = _held_back_game(seed)
    assert len(held_at) == HOLDS
    assert missed_outs(log).get(0) == held_at


def test_turns_the_server_played_are_not_looked_at() -> None:
    log, held_at = _held_back_game(1, timed_out=True)
    assert len(held_at) == HOLDS
    assert 0 not in missed_outs(log)


def test_computer_opponents_that_go_out_when_they_can_miss_nothing() -> None:
    rules = Rules.classic(point_limit=1)
    for seed in range(4):
        assert missed_outs(bot_game(rules, ("casual", "strong"), seed)) == {}
