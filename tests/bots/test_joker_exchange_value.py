"""A card that can take a joker off the table is worth keeping and taking.

In classic an exchanged joker goes to the hand, where it makes a meld of any
pair and is laid off to go out. The strong level (and the expert, which starts
from it) values a loose card that can replace a table joker like a card that is
almost melded: it takes such a card from the discard pile, and exchanges it at
once. Measured against three casual players (four seats, single rounds, seed
11): 52.6% of 800 games instead of 47.0% (docs/bots.md).
"""

from __future__ import annotations

from romme.bots import make_bot, suggest
from romme.bots.strong import EXCHANGE_VALUE, exchange_bonus, frees_joker
from romme.engine.actions import Draw, ExchangeJoker
from romme.engine.cards import Card, parse_cards
from romme.engine.game import Game
from romme.engine.rules import Rules
from tests.engine.helpers import arranged

SINGLE_ROUND = Rules.classic(point_limit=1)
OPPONENT = "2C 4D 6S 8C TS KD AS 3D 5C 9S JC 4C"
"""Twelve loose cards."""


def eight_of_hearts_on_top(opened: bool = True) -> Game:
    """Seat 0 is to draw with four loose cards that meld with nothing; the
    discard pile shows ``8H``, which fits no end of the table but stands where
    the joker of ``7H XX 9H`` stands."""
    return arranged(
        SINGLE_ROUND,
        ["2S 5D 9C KC", OPPONENT],
        upcard="8H",
        melds=[(1, "7H XX 9H"), (1, "3S 3H 3C")],
        opened=[0, 1] if opened else [1],
        stock="6C 7D 2D 9D",
    )


def test_a_card_that_frees_a_joker_is_taken_and_exchanged() -> None:
    game = eight_of_hearts_on_top()
    bot = make_bot("strong", 1)
    action = bot.decide(game.view_for(0))
    assert action == Draw(0, "discard")
    game.apply(action)
    exchange = bot.decide(game.view_for(0))
    assert isinstance(exchange, ExchangeJoker)
    assert exchange.card == Card.parse("8H")


def test_the_hint_says_why() -> None:
    hint = suggest(eight_of_hearts_on_top().view_for(0))
    assert hint is not None
    assert hint.action == Draw(0, "discard")
    assert "joker" in hint.reason


def test_the_bonus_counts_distinct_cards_and_halves_before_opening() -> None:
    view = eight_of_hearts_on_top().view_for(0)
    eight, king = parse_cards("8H KC")
    assert frees_joker(eight, view) and not frees_joker(king, view)
    assert exchange_bonus(view, [eight, eight, king]) == EXCHANGE_VALUE
    closed = eight_of_hearts_on_top(opened=False).view_for(0)
    assert exchange_bonus(closed, [eight]) == EXCHANGE_VALUE / 2


def test_without_exchange_to_hand_the_card_is_left() -> None:
    """Where an exchanged joker must be laid at once (three-rounds' rule), a
    card that frees one is worth nothing special: a lone card stays on the pile."""
    rules = SINGLE_ROUND.replace(joker_exchange_to_hand=False)
    game = arranged(
        rules,
        ["2S 5D 9C KC", OPPONENT],
        upcard="8H",
        melds=[(1, "7H XX 9H"), (1, "3S 3H 3C")],
        opened=[0, 1],
        stock="6C 7D 2D 9D",
    )
    assert make_bot("strong", 1).decide(game.view_for(0)) == Draw(0, "stock")
