"""Playouts that look only a few turns ahead, and the judgement of where they stop.

``playout(..., turns=N)`` stops once every active seat has begun N more turns
(or the round ends first); :func:`romme.bots.rollout.judge` scores the position
it stopped in by each hand's worth, and a finished round as
:func:`romme.bots.rollout.utility` does. The expert searches with them when it
is given a ``horizon``.
"""

from __future__ import annotations

import pytest

from romme.bots import make_bot
from romme.bots.expert import ExpertBot
from romme.bots.rollout import judge, playout, utility
from romme.engine.actions import Discard, Lay
from romme.engine.game import Game, Phase
from romme.engine.rules import Rules
from tests.engine.helpers import arranged

SINGLE_ROUND = Rules.classic(point_limit=1)
LOOSE = "2C 4D 6S 8C TS KD AS 3D 5C 9S JC 4C"
"""Twelve cards that make no meld and fit nothing on the tables below."""
NEARLY_OUT = "7H 8H 9H KS KC KH 5D 6D 7D 2S 4S 6C"
"""Four melds and one loose card (plus the card it throws): one card from going out."""


def draws(game: Game) -> list[int]:
    """The seats that drew, in order, this round."""
    return [e.seat for e in game.history if e.move in ("draw_stock", "draw_discard")]


@pytest.mark.parametrize("turns", [1, 2, 3])
def test_a_short_playout_stops_after_that_many_turns_per_seat(turns: int) -> None:
    game = Game.start(SINGLE_ROUND, 3, b"\x07" * 32)
    playout(game, turns=turns)
    if game.phase is Phase.DRAW:
        assert draws(game) == [0, 1, 2] * turns
    else:
        # Somebody went out first: fewer turns were played, never more.
        assert len(draws(game)) <= 3 * turns


def test_a_playout_without_turns_plays_the_round_to_its_end() -> None:
    game = Game.start(SINGLE_ROUND, 2, b"\x07" * 32)
    playout(game)
    assert game.phase is not Phase.DRAW and game.phase is not Phase.PLAY
    assert game.results


def test_judge_of_a_finished_round_is_its_utility() -> None:
    """Seat 0 goes out by laying everything but the card it throws."""
    game = arranged(SINGLE_ROUND, ["7H 8H 9H KS KC KH 2S", LOOSE], drawn=True)
    game.apply(Lay(0, (tuple(game.hands[0][:3]), tuple(game.hands[0][3:6]))))
    game.apply(Discard(0, game.hands[0][0]))
    assert game.results and game.results[-1].winner == 0
    for seat in (0, 1):
        assert judge(game, seat, True) == utility(game, seat, True)
    assert judge(game, 0, True) > 1.0 > judge(game, 1, True)


def test_judge_favours_the_hand_closer_to_going_out() -> None:
    """A running round: the hand one card from going out is far likelier to win
    than twelve loose cards, whichever seat holds it."""
    game = arranged(SINGLE_ROUND, [NEARLY_OUT, LOOSE])
    near, far = judge(game, 0, True), judge(game, 1, True)
    assert near > 0.9 and far < 0.1
    swapped = arranged(SINGLE_ROUND, [LOOSE, NEARLY_OUT])
    assert judge(swapped, 1, True) == pytest.approx(near)
    assert judge(swapped, 0, True) == pytest.approx(far)


def test_judge_of_even_hands_is_even() -> None:
    game = arranged(SINGLE_ROUND, [LOOSE, "2H 4S 6D 8H TC KS AD 3S 5H 9C JD 4H"])
    chance = [judge(game, seat, True) for seat in (0, 1)]
    assert 0.3 < chance[0] < 0.7 and 0.3 < chance[1] < 0.7


def test_the_expert_with_a_horizon_plays_legal_moves() -> None:
    """Every decision of an expert that searches with short playouts is one the
    engine accepts, through a whole round."""
    game = Game.start(SINGLE_ROUND, 2, b"\x0b" * 32)
    expert = make_bot("expert", seed=5, playouts=24, time_cap=None, horizon=2, search_close=True)
    assert isinstance(expert, ExpertBot) and expert.horizon == 2
    bots = [expert, make_bot("strong", seed=6)]
    for _ in range(400):
        if game.phase is not Phase.DRAW and game.phase is not Phase.PLAY:
            break
        seat = game.current
        action = bots[seat].decide(game.view_for(seat))
        assert action is not None
        game.apply(action)
    assert game.results
