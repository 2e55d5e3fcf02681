"""A bot sees only its seat's view: it cannot read another hand or the stock.

The guarantee is in the interface (a bot is handed a ``SeatView``, never a
``Game``); these tests show that it holds: swapping hidden cards around (other
hands, the stock order, the buried part of the discard pile) changes no view and
no decision, and the expert's sampled deals agree with everything the seat knows.
"""

from __future__ import annotations

import inspect
import random
from collections import Counter

import pytest

from romme.bots import LEVELS, make_bot
from romme.bots.base import BaseBot, Bot
from romme.bots.expert import ExpertBot
from romme.bots.knowledge import read_knowledge
from romme.bots.sampler import sample_game
from romme.engine.actions import Action, Knock, NextRound
from romme.engine.cards import shoe_counter
from romme.engine.game import Game, Phase
from romme.engine.rules import Rules
from romme.engine.view import SeatView


def shuffle_hidden(game: Game, seat: int, rng: random.Random) -> Game:
    """A copy of ``game`` in which every card ``seat`` cannot see has moved:
    the other hands, the stock and the discard pile below its top."""
    other = game.clone()
    others = [s for s in range(game.seats) if s != seat]
    hidden = [c for s in others for c in other.hands[s]] + other.stock + other.discard[:-1]
    rng.shuffle(hidden)
    for s in others:
        size = len(other.hands[s])
        other.hands[s], hidden = hidden[:size], hidden[size:]
    size = len(other.stock)
    other.stock, hidden = hidden[:size], hidden[size:]
    other.discard = hidden + other.discard[-1:]
    return other


def exact_bot(level: str, seed: int) -> Bot:
    """The bot, without the expert's wall-clock safety cap (which could cut a
    search short on a busy machine and so change a decision), and with a small
    search budget to keep the test quick (the budget does not change what the
    search may read)."""
    if level == "expert":
        return ExpertBot(seed, playouts=12, time_cap=None, search_close=True)
    return make_bot(level, seed)


def test_the_interface_hands_bots_a_view() -> None:
    for level in LEVELS:
        bot = make_bot(level, 1)
        for name in ("decide", "suggest"):
            signature = inspect.signature(getattr(bot, name))
            (parameter,) = signature.parameters.values()
            assert parameter.annotation in ("SeatView", SeatView)
    assert "Game" not in inspect.signature(BaseBot.decide).parameters


@pytest.mark.parametrize(
    "level",
    [*LEVELS[:-1], pytest.param(LEVELS[-1], marks=pytest.mark.slow)],  # the expert searches
)
@pytest.mark.parametrize(
    "rules",
    [Rules.classic(point_limit=1), Rules.classic(point_limit=1, knock=True), Rules.three_rounds()],
    ids=["classic", "knock", "three"],
)
def test_no_decision_changes_when_hidden_cards_move(level: str, rules: Rules) -> None:
    rng = random.Random(f"{level}-{rules.name}-{rules.knock}")
    seats = 2 if not rules.knock else 3
    game = Game.start(rules, seats, rng.randbytes(32))
    bots = [exact_bot(level, seat + 10) for seat in range(seats)]
    checked = 0
    limit = 16 if level == "expert" else 120
    while not game.is_over and checked < limit:
        if game.phase is Phase.ROUND_OVER:
            game.apply(NextRound())
            continue
        asked = [*game.knock_seats(), game.current]
        action: Action | None = None
        for seat in asked:
            view = game.view_for(seat)
            decision = bots[seat].decide(view)
            for _ in range(2):
                moved = shuffle_hidden(game, seat, rng)
                assert moved.card_count() == game.card_count()
                assert moved.view_for(seat) == view
                assert exact_bot(level, seat + 10).decide(moved.view_for(seat)) == decision
            checked += 1
            if seat != game.current and isinstance(decision, Knock):
                action = decision
                break
            if seat == game.current:
                action = decision
        assert action is not None
        game.apply(action)
    assert checked >= min(limit, 10)


def test_sampled_deals_agree_with_what_the_seat_knows() -> None:
    rng = random.Random(5)
    rules = Rules.classic(point_limit=1, knock=True)
    for _ in range(6):
        game = Game.start(rules, 3, rng.randbytes(32))
        bots = [make_bot("strong", s) for s in range(3)]
        for _ in range(rng.randrange(10, 60)):
            if game.phase is not Phase.DRAW and game.phase is not Phase.PLAY:
                break
            action = bots[game.current].decide(game.view_for(game.current))
            assert action is not None
            game.apply(action)
        if not game.in_round:
            continue
        seat = (game.current + 1) % 3
        view = game.view_for(seat)
        know = read_knowledge(view)
        assert know.consistent
        for _ in range(5):
            sample = sample_game(view, know, rng)
            assert sample is not None
            assert sample.card_count() == shoe_counter()
            seen = sample.view_for(seat)
            assert seen.hand == view.hand and seen.melds == view.melds
            assert seen.hand_counts == view.hand_counts and seen.stock_count == view.stock_count
            assert seen.discard_top == view.discard_top and seen.history == view.history
            for other in range(3):
                if other != seat:
                    assert not (know.known[other] - Counter(sample.hands[other]))
