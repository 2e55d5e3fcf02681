"""Building games in a chosen position for rule tests."""

from __future__ import annotations

from collections import Counter

from romme.engine.cards import Card, parse_cards, shoe
from romme.engine.game import Game, Phase, TurnInfo
from romme.engine.melds import Meld
from romme.engine.rules import Rules

SEED = bytes(range(32))


def arranged(
    rules: Rules,
    hands: list[str],
    *,
    upcard: str = "2C",
    stock: str = "",
    melds: list[tuple[int, str]] | None = None,
    opened: list[int] | None = None,
    current: int = 0,
    drawn: bool = False,
) -> Game:
    """A game in round 1 with these hands, this upturned card, the stock drawn in
    the order given (the rest of the shoe below it) and these melds on the table.
    All 110 cards are somewhere."""
    game = Game.start(rules, len(hands), SEED)
    rest = Counter(shoe())
    game.hands = [list(parse_cards(h)) for h in hands]
    for hand in game.hands:
        rest.subtract(hand)
    game.melds = []
    game.meld_owners = []
    for owner, text in melds or []:
        meld = Meld.parse(parse_cards(text), rules)
        game.melds.append(meld)
        game.meld_owners.append(owner)
        rest.subtract(meld.cards)
    game.discard = [Card.parse(upcard)]
    rest.subtract(game.discard)
    top = list(parse_cards(stock))
    rest.subtract(top)
    assert all(v >= 0 for v in rest.values()), "more copies than the shoe holds"
    below = sorted(rest.elements())
    game.stock = below + list(reversed(top))
    game.opened = [seat in (opened or []) for seat in range(len(hands))]
    game.current = current
    game.phase = Phase.PLAY if drawn else Phase.DRAW
    game.turn = TurnInfo(opened_before=game.opened[current])
    game.knock = None
    game.history = []
    assert game.card_count() == Counter(shoe())
    return game


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def card(text: str) -> Card:
    return Card.parse(text)
