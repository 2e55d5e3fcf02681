"""Which reason an analysis mark gives when the expert would have laid melds."""

from __future__ import annotations

from romme.bots.analysis import REASONS, _reason
from romme.engine.actions import Discard, Lay
from romme.engine.cards import parse_cards
from romme.engine.rules import Rules
from romme.engine.view import SeatView
from tests.engine.helpers import arranged

HAND = "TH JH QH KH 2C 2D 2S 9C 6S"


def view() -> SeatView:
    game = arranged(Rules.classic(point_limit=1), [HAND, "3C 3D 9H"], drawn=True)
    return game.view_for(0)


def test_laying_more_melds_than_the_expert_says_lay_fewer() -> None:
    both = Lay(0, (parse_cards("TH JH QH KH"), parse_cards("2C 2D 2S")))
    least = Lay(0, (parse_cards("TH JH QH KH"),))
    reason, params = _reason(view(), both, least)
    assert reason == "lay_fewer" and "lay_fewer" in REASONS
    assert params == {"melds": [["TH", "JH", "QH", "KH"]]}


def test_laying_other_melds_or_none_says_lay_first() -> None:
    least = Lay(0, (parse_cards("TH JH QH KH"),))
    other = Lay(0, (parse_cards("2C 2D 2S"), parse_cards("TH JH QH")))
    assert _reason(view(), other, least)[0] == "lay_first"
    assert _reason(view(), Discard(0, parse_cards("9C")[0]), least)[0] == "lay_first"
