"""A loose joker that fits the table is laid off when that lets the seat go out.

Every level used to keep a loose joker "for later" even when it was all that
stood between the seat and going out: with ``QD XX`` in hand and a meld on the
table that takes the joker, it threw ``QD`` and kept the joker, turn after turn,
until someone else went out. A hand that can go out now does so (the strong
level used to hold it back for a hand rummy it already had). Each position here is built card by card and
played through the bots' public interface, one action at a time, as the server
does.
"""

from __future__ import annotations

import pytest

from romme.bots import make_bot
from romme.bots.beginner import MISS_JOKER_LAY_OFF
from romme.bots.playbook import lay_off_options
from romme.bots.rollout import playout
from romme.engine.actions import Discard, Draw, ExchangeJoker, Lay, LayOff
from romme.engine.cards import JOKER, parse_cards
from romme.engine.game import Game, Phase
from romme.engine.rules import Rules
from tests.engine.helpers import arranged

SINGLE_ROUND = Rules.classic(point_limit=1)
OPPONENT = "2C 4D 6S 8C TS KD AS 3D 5C 9S JC 4C"
"""Twelve loose cards that fit nothing on the tables below."""


def queen_and_joker(rules: Rules = SINGLE_ROUND) -> Game:
    """Seat 0 has opened and drawn; it holds ``QD XX``. The table takes the joker
    (at either end of ``7H 8H 9H``) but not the queen."""
    return arranged(
        rules,
        ["QD XX", OPPONENT],
        melds=[(0, "7H 8H 9H"), (1, "3S 3H 3C")],
        opened=[0, 1],
        drawn=True,
        stock="6C 7D 2S 9C",
    )


def two_jokers_and_two_hearts() -> Game:
    """Seat 0 has opened and drawn; it holds ``2H TH XX XX``: the ten fits
    ``JH QH KH``, the jokers fit anywhere, the two fits nowhere."""
    return arranged(
        SINGLE_ROUND,
        ["2H TH XX XX", OPPONENT],
        melds=[(0, "JH QH KH"), (1, "7S 8S 9S")],
        opened=[0, 1],
        drawn=True,
        stock="6C 7D 2S 9C",
    )


def play_turn(
    game: Game, level: str, options: dict[str, object] | None = None, seed: int = 0
) -> None:
    """Let a bot of ``level`` play seat 0's turn to its end."""
    bot = make_bot(level, seed, **(options or {}))
    for _ in range(12):
        if game.phase not in (Phase.DRAW, Phase.PLAY) or game.current != 0:
            return
        action = bot.decide(game.view_for(0))
        assert action is not None
        game.apply(action)
    raise AssertionError("the turn did not end")


def went_out(game: Game) -> bool:
    return bool(game.results) and game.results[-1].winner == 0


LEVELS_OPTIONS = [
    ("casual", {}),
    ("strong", {}),
    ("expert", {"playouts": 16, "time_cap": None}),
]


@pytest.mark.parametrize(("level", "options"), LEVELS_OPTIONS)
def test_queen_and_joker_go_out(level: str, options: dict[str, object]) -> None:
    game = queen_and_joker()
    play_turn(game, level, options)
    assert went_out(game), game.history


@pytest.mark.parametrize(("level", "options"), LEVELS_OPTIONS)
def test_two_jokers_go_out_with_the_ten(level: str, options: dict[str, object]) -> None:
    game = two_jokers_and_two_hearts()
    play_turn(game, level, options)
    assert went_out(game), game.history
    assert game.results[-1].hands[0] == ()


def test_the_beginner_sees_it_often_but_not_always() -> None:
    """The newcomer may hold on to its joker (``MISS_JOKER_LAY_OFF``), each turn
    anew, decided by its seed: never always, never never."""
    seeds = range(60)
    outs = 0
    for seed in seeds:
        game = queen_and_joker()
        play_turn(game, "beginner", seed=seed)
        outs += went_out(game)
    assert 0 < outs < len(seeds)
    assert abs(outs / len(seeds) - (1 - MISS_JOKER_LAY_OFF)) < 0.2


def test_a_joker_stays_in_hand_while_it_cannot_take_the_seat_out() -> None:
    """With two cards that fit nothing, laying the joker off would not end the
    round: it stays in hand, where a pair makes a meld with it."""
    game = arranged(
        SINGLE_ROUND, ["QD 4S XX", OPPONENT], melds=[(0, "7H 8H 9H")], opened=[0], drawn=True
    )
    assert lay_off_options(game.view_for(0), parse_cards("QD 4S XX")) == []
    for level, options in LEVELS_OPTIONS:
        action = make_bot(level, 0, **options).decide(game.view_for(0))
        assert not isinstance(action, LayOff), (level, action)


def test_naturals_are_laid_off_before_the_joker() -> None:
    """A group of three takes one more card: the natural four, not the joker,
    or the four would be left over."""
    game = arranged(
        SINGLE_ROUND,
        ["4C XX", OPPONENT.replace("4C", "KC")],
        melds=[(0, "4S 4H 4D"), (1, "7H 8H 9H")],
        opened=[0],
        drawn=True,
    )
    offs = lay_off_options(game.view_for(0), parse_cards("4C XX"))
    assert [o.card for o in offs] == list(parse_cards("4C XX"))
    assert offs[1].meld == 1


def test_playouts_lay_the_joker_off_to_go_out() -> None:
    """The expert's playouts follow the same rule: from ``QD XX`` the seat goes
    out in two actions (lay off the joker, throw the queen)."""
    game = queen_and_joker()
    playout(game, max_actions=2)
    assert went_out(game)


def test_strong_does_not_hold_back_a_hand_that_goes_out_now() -> None:
    """Holding an opening back for a hand rummy makes no sense when the hand can
    go out right now (open, lay off ``4S`` and then ``3S``): that is the hand
    rummy. The next player has not opened, so throwing a card looked safe."""
    game = arranged(
        SINGLE_ROUND,
        ["7H 8H 9H KS KC KH 4S 3S", OPPONENT + " 7C", "2S 3C 5D 6C 8D 9D TC JH QC 2H 4H 6H 9C"],
        melds=[(2, "5S 6S 7S"), (2, "JD QD KD")],
        opened=[2],
        drawn=True,
    )
    play_turn(game, "strong")
    assert went_out(game), game.history
    assert game.results[-1].hand_rummy


def test_playouts_and_the_expert_discard_a_pending_exchanged_joker() -> None:
    """The playouts use the engine's discard rule: a joker taken from the pile and
    laid, then a joker exchanged (three-rounds), leaves the exchanged joker as the
    only discard. A copy of the old rule found no discard and failed in the
    playout (``min()`` of nothing), so the expert could not decide here."""
    game = arranged(
        Rules.three_rounds(),
        ["TC JC 6H 2S 9D", "3H 6C TD 4S 8C"],
        upcard="XX",
        melds=[(1, "5H XX 7H")],
        opened=[0, 1],
        stock="2C 3C 4C 5C 6D 7D",
    )
    game.apply(Draw(0, "discard"))
    game.apply(Lay(0, (parse_cards("TC JC XX"),)))
    game.apply(ExchangeJoker(0, parse_cards("6H")[0], 0, 1))
    assert game.legal_actions(0) == [Discard(0, JOKER)]
    playout(game.clone(), max_actions=1)
    choice = make_bot("expert", seed=3, playouts=8, search_close=True).decide(game.view_for(0))
    assert choice == Discard(0, JOKER)
