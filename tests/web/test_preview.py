"""preview.js, the client's meld preview, agrees with the rules engine: run in
Chromium through page.evaluate and compared with romme.engine on many cases."""

from __future__ import annotations

import random
from typing import Any

from romme.engine.cards import Card
from romme.engine.errors import InvalidMeld
from romme.engine.melds import Meld
from romme.engine.rules import Rules

RANKS = "A23456789TJQK"
SUITS = "CDHS"
DECK = [r + s for r in RANKS for s in SUITS] + ["XX"]

IMPORT = "async (cases) => { const p = await import('./js/preview.js'); return "


def engine_meld(cards: list[str], rules: Rules) -> Meld | None:
    try:
        return Meld.parse([Card.parse(c) for c in cards], rules)
    except InvalidMeld:
        return None


def random_cards(rng: random.Random, n: int) -> list[str]:
    # Bias towards near-melds: one suit or one rank most of the time.
    mode = rng.random()
    if mode < 0.4:
        suit = rng.choice(SUITS)
        start = rng.randrange(0, 13)
        cards = [RANKS[(start + i) % 13] + suit for i in range(n)]
    elif mode < 0.7:
        rank = rng.choice(RANKS)
        cards = [rank + rng.choice(SUITS) for _ in range(n)]
    else:
        cards = [rng.choice(DECK) for _ in range(n)]
    for i in range(n):
        if rng.random() < 0.2:
            cards[i] = "XX"
    return cards


def test_preview_agrees_with_the_engine(server: str, new_context: Any) -> None:
    page = new_context("preview")
    page.goto(server)
    page.wait_for_selector("#entry-submit")
    rng = random.Random(7)
    for rules in (Rules.classic(), Rules.three_rounds()):
        rules_json = rules.to_json()
        cases = [random_cards(rng, rng.randint(3, 7)) for _ in range(1500)]
        got = page.evaluate(
            IMPORT + "cases.list.map(c => { const m = p.parseMeld(c, cases.rules);"
            " return m ? [m.kind, m.start, p.meldValue(m)] : null; }) }",
            {"list": cases, "rules": rules_json},
        )
        for cards, answer in zip(cases, got, strict=True):
            meld = engine_meld(cards, rules)
            expected = None if meld is None else [meld.kind.value, meld.start, meld.value]
            assert answer == expected, f"{cards} ({rules.name})"

        # Lay-off ends and joker exchanges against valid table melds.
        melds = [m for m in (engine_meld(c, rules) for c in cases) if m is not None][:300]
        probes = [(m.to_json(), rng.choice(DECK)) for m in melds]
        got = page.evaluate(
            IMPORT + "cases.list.map(([m, c]) => [p.layOffEnds(m, c, cases.rules),"
            " p.exchangePositions(m, c)]) }",
            {"list": probes, "rules": rules_json},
        )
        for (_meld_json, card), (ends, positions), meld in zip(probes, got, melds, strict=True):
            c = Card.parse(card)
            assert ends == list(meld.lay_off_ends(c, rules)), f"{card} onto {meld}"
            assert positions == list(meld.exchange_positions(c)), f"{card} for a joker in {meld}"


def test_hand_melds_are_neighbours_that_form_melds(server: str, new_context: Any) -> None:
    page = new_context("preview-hand")
    page.goto(server)
    page.wait_for_selector("#entry-submit")
    rules = Rules.classic()
    hands = [
        ["7C", "7D", "7H", "KS", "QH", "KH", "AH", "2C", "XX", "4C"],
        ["5S", "6S", "7S", "8S", "9D", "9D", "9H", "9S"],
        ["KH", "AH", "2H", "3C"],
    ]
    got = page.evaluate(
        IMPORT
        + "cases.list.map(h => p.handMelds(h, cases.rules).map(s => [s.from, s.to, s.value])) }",
        {"list": hands, "rules": rules.to_json()},
    )
    assert got[0] == [[0, 3, 21], [4, 7, 31], [7, 10, 9]]
    assert got[1] == [[0, 4, 26], [5, 8, 27]]
    assert got[2] == []
    # The opening rule: 21 points alone cannot open, 21 + 31 can.
    can = page.evaluate(
        IMPORT + "[p.canLay([{from: 0, to: 3, value: 21}], cases.view),"
        " p.canLay([{from: 0, to: 3, value: 21}, {from: 4, to: 7, value: 31}], cases.view)] }",
        {
            "view": {
                "seat": 0,
                "current": 0,
                "phase": "play",
                "opened": [False, False],
                "hand": hands[0],
                "rules": rules.to_json(),
            }
        },
    )
    assert can == [False, True]
