"""Cards, notation and melds: the seeds' examples and docs/rules.md, both presets."""

from __future__ import annotations

from collections import Counter

import pytest

from romme.engine.cards import JOKER, Card, Suit, all_naturals, format_cards, parse_cards, shoe
from romme.engine.errors import CardParseError, InvalidMeld
from romme.engine.melds import Meld, MeldKind
from romme.engine.rules import Rules
from romme.engine.scoring import card_penalty, hand_penalty

from .helpers import cards

CLASSIC = Rules.classic()
THREE = Rules.three_rounds()
BOTH = pytest.mark.parametrize("rules", [CLASSIC, THREE], ids=["classic", "three-rounds"])


# ----------------------------------------------------------------- cards


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7H", "7H"),
        ("td", "TD"),
        ("10D", "TD"),
        ("as", "AS"),
        ("XX", "XX"),
        ("*", "XX"),
        ("🃏", "XX"),
        ("Q♠", "QS"),
        ("♥7", "7H"),
        ("10♣", "TC"),
        ("k♦", "KD"),
        ("joker", "XX"),
    ],
)
def test_notation_is_parsed(text: str, expected: str) -> None:
    assert str(Card.parse(text)) == expected


@pytest.mark.parametrize("token", ["1H", "7X", "", "HH", "11S", "7", "XXX", "Z♠"])
def test_bad_token_is_named(token: str) -> None:
    with pytest.raises(CardParseError) as info:
        parse_cards(["7H", token, "9H"])
    assert repr(token) in str(info.value)
    assert info.value.code == "bad_card"


def test_cards_are_values() -> None:
    assert Card.parse("7H") is Card.parse("7h")
    assert Card.parse("7H") == Card.natural(7, Suit.HEARTS)
    assert Card.from_code(Card.parse("KS").code) is Card.parse("KS")
    assert JOKER.is_joker and not Card.parse("AS").is_joker
    assert sorted(cards("KS 2C XX AD")) == list(cards("2C AD KS XX"))
    assert eval(repr(Card.parse("TD"))) == Card.parse("TD")
    assert format_cards(cards("7h td xx")) == "7H TD XX"


@pytest.mark.parametrize("token", [["7H"], {"card": "7H"}, 7, None])
def test_a_card_that_is_not_text_is_named(token: object) -> None:
    with pytest.raises(CardParseError, match="written as text"):
        Card.parse(token)  # type: ignore[arg-type]


def test_every_card_reads_back_from_its_notation_and_its_variants() -> None:
    for card in (JOKER, *all_naturals()):
        assert Card.parse(str(card)) is card
        assert Card.parse(f" {str(card).lower()} ") is card


def test_shoe_has_110_cards_two_decks_and_six_jokers() -> None:
    counts = Counter(shoe())
    assert sum(counts.values()) == 110
    assert counts[JOKER] == 6
    assert len(counts) == 53
    assert all(n == 2 for c, n in counts.items() if not c.is_joker)


# ----------------------------------------------------------------- melds


def meld(text: str, rules: Rules = CLASSIC) -> Meld:
    return Meld.parse(cards(text), rules)


@BOTH
def test_three_sevens_are_a_group_worth_21(rules: Rules) -> None:
    m = meld("7C 7D 7H", rules)
    assert m.kind is MeldKind.GROUP and m.value == 21


@BOTH
def test_same_card_twice_is_no_group(rules: Rules) -> None:
    with pytest.raises(InvalidMeld, match="TD twice"):
        meld("TD TC TD", rules)


@BOTH
def test_king_ace_two_is_no_sequence(rules: Rules) -> None:
    with pytest.raises(InvalidMeld, match="around the corner"):
        meld("KH AH 2H", rules)


@BOTH
def test_ace_low_and_high(rules: Rules) -> None:
    assert meld("AH 2H 3H", rules).value == 6
    assert meld("QH KH AH", rules).value == 31
    assert meld("AS AH AC", rules).value == 33
    assert meld("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH", rules).value == 85
    assert meld("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH", rules).value == 95


@BOTH
def test_groups_have_three_or_four_cards_and_sequences_at_most_13(rules: Rules) -> None:
    with pytest.raises(InvalidMeld):
        meld("7C 7D", rules)
    with pytest.raises(InvalidMeld):
        meld("7C 7D 7H 7S 7C", rules)
    with pytest.raises(InvalidMeld):
        meld("7C 7D 7H XX XX", CLASSIC if rules is CLASSIC else rules)


def test_ace_joker_joker_is_invalid_in_classic() -> None:
    with pytest.raises(InvalidMeld, match="at least 2 natural"):
        meld("AS XX XX")


def test_classic_allows_many_jokers_with_two_naturals() -> None:
    m = meld("5H XX XX 8H")
    assert [m.stands_for(i) for i in range(4)] == ["5H", "6H", "7H", "8H"]
    assert meld("7H 8H XX XX XX").value == 7 + 8 + 9 + 10 + 10


def test_three_rounds_allows_one_joker_per_meld() -> None:
    assert meld("5H XX 7H", THREE).value == 18
    with pytest.raises(InvalidMeld, match="at most 1 joker"):
        meld("5H XX 7H XX", THREE)
    assert meld("5H XX 7H XX", CLASSIC).value == 26


@BOTH
def test_joker_stands_for_its_position(rules: Rules) -> None:
    m = meld("XX 2H 3H", rules)
    assert m.stands_for(0) == "AH" and m.value == 6
    m = meld("QH KH XX", rules)
    assert m.stands_for(2) == "AH" and m.value == 31
    m = meld("3H 2H XX", rules)  # high to low is read the other way round
    assert str(m) == "XX 2H 3H" and m.value == 6
    m = meld("7H 7S XX", rules)
    assert m.stands_for(2) == "7C/7D"


@BOTH
def test_cards_out_of_order_or_mixed_suits(rules: Rules) -> None:
    with pytest.raises(InvalidMeld, match="consecutive"):
        meld("5H 7H 6H", rules)
    assert Meld.check(cards("5H 7H 6H"), rules).value == 18
    with pytest.raises(InvalidMeld, match="one suit"):
        meld("5H 6S 7H", rules)
    with pytest.raises(InvalidMeld, match="same rank twice"):
        meld("5H 5H 6H", rules)


def test_lay_off_ends() -> None:
    seq = meld("7C 8C 9C")
    assert seq.lay_off_ends(Card.parse("TC"), CLASSIC) == ("high",)
    assert seq.lay_off_ends(Card.parse("6C"), CLASSIC) == ("low",)
    assert seq.lay_off_ends(Card.parse("TD"), CLASSIC) == ()
    assert seq.lay_off_ends(JOKER, CLASSIC) == ("low", "high")
    assert str(seq.with_card(Card.parse("TC"), None, CLASSIC)) == "7C 8C 9C TC"
    with pytest.raises(InvalidMeld, match="which end"):
        seq.with_card(JOKER, None, CLASSIC)
    top = meld("QC KC AC")
    assert top.lay_off_ends(Card.parse("2C"), CLASSIC) == ()
    assert top.lay_off_ends(JOKER, CLASSIC) == ("low",)
    low = meld("AC 2C 3C")
    assert low.lay_off_ends(Card.parse("KC"), CLASSIC) == ()
    assert low.lay_off_ends(Card.parse("4C"), CLASSIC) == ("high",)
    group = meld("7H 7S XX")
    assert group.lay_off_ends(Card.parse("7C"), CLASSIC) == (None,)
    assert group.lay_off_ends(Card.parse("7H"), CLASSIC) == ()
    full = group.with_card(Card.parse("7C"), None, CLASSIC)
    assert full.lay_off_ends(Card.parse("7D"), CLASSIC) == ()  # four cards: the joker is 7D
    assert meld("7H 7S XX", THREE).lay_off_ends(JOKER, THREE) == ()


def test_joker_exchange_positions() -> None:
    seq = meld("5H XX 7H")
    assert seq.exchange_positions(Card.parse("6H")) == (1,)
    assert seq.exchange_positions(Card.parse("6S")) == ()
    assert str(seq.with_joker_exchanged(Card.parse("6H"))) == "5H 6H 7H"
    group = meld("7H 7S XX")
    assert group.exchange_positions(Card.parse("7C")) == (2,)
    assert group.exchange_positions(Card.parse("7D")) == (2,)
    assert group.exchange_positions(Card.parse("7H")) == ()


def test_penalties() -> None:
    assert [card_penalty(c, CLASSIC) for c in cards("AS 2S 9D TD JH QC KS XX")] == [
        15,
        2,
        9,
        10,
        10,
        10,
        10,
        30,
    ]
    assert card_penalty(JOKER, THREE) == 20
    assert hand_penalty(cards("AS XX"), THREE) == 35


def test_meld_json_round_trip() -> None:
    for text in ("QH KH XX", "7H 7S XX", "XX 2H 3H"):
        m = meld(text)
        assert Meld.from_json(m.to_json(), CLASSIC) == m
