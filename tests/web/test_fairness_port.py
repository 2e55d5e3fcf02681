"""romme/web/js/fairness.js, the browser's shuffle check, repeats the engine's deal.

The module runs under Node.js (``fairness_runner.mjs``: one process for every case of
this file) and, for a few seeds, in Chromium; its answers are compared with
``romme.engine`` on random match seeds of both presets, 2 to 4 seats."""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

from romme.engine.actions import Discard, Draw
from romme.engine.cards import Card, parse_cards
from romme.engine.fairness import (
    ShuffleStream,
    commitment_of,
    deal_from_seed,
    restock_seed,
    round_seed,
    shuffled,
    verify_deal,
)
from romme.engine.game import Game
from romme.engine.rules import PRESETS, Rules

NODE = os.environ.get("ROMME_NODE", "/usr/bin/node")
RUNNER = Path(__file__).with_name("fairness_runner.mjs")
CASES_PER_PRESET = 1000

Call = tuple[str, list[Any]]


def run_in_node(calls: list[Call]) -> list[Any]:
    """The results of fairness.js's functions on these calls, from one Node.js process."""
    assert Path(NODE).exists(), f"the shuffle check's tests need Node.js 20 at {NODE}"
    done = subprocess.run(
        [NODE, str(RUNNER)],
        input=json.dumps(calls).encode(),
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    results: list[Any] = json.loads(done.stdout)
    assert len(results) == len(calls)
    return results


def texts(cards: Any) -> list[str]:
    return [str(card) for card in cards]


def first_round(rules: Rules, seats: int, match_seed: bytes, dealer: int) -> dict[str, Any]:
    """Round 1 as the engine deals it at a new table: seeds, hands per seat, upturned
    card and the stock in the order it will be drawn."""
    game = Game.start(rules, seats, match_seed, first_dealer=dealer)
    return {
        "round_seed": game.round_seed.hex(),
        "commitment": game.commitment,
        "dealer": game.dealer,
        "hands": [texts(hand) for hand in game.hands],
        "upcard": str(game.discard[-1]),
        "stock": texts(reversed(game.stock)),
    }


def later_round(match_seed: bytes, round_no: int, seats: int, hand_size: int) -> dict[str, Any]:
    """A later round's seed, commitment and deal (hands in the order dealt)."""
    seed = round_seed(match_seed, round_no)
    deal = deal_from_seed(seed, seats, hand_size)
    return {
        "round_seed": seed.hex(),
        "commitment": commitment_of(seed),
        "deal": {
            "hands": [texts(hand) for hand in deal.hands],
            "upcard": str(deal.upcard),
            "stock": texts(deal.stock),
        },
    }


def restocked(match_seed: bytes) -> dict[str, Any]:
    """A round whose stock runs out after one draw: the pile the engine shuffles and
    the new stock in the order it will be drawn."""
    game = Game.start(Rules.classic(), 2, match_seed)
    game.discard = [*game.stock[:-1], *game.discard]
    game.stock = game.stock[-1:]
    seat = game.current
    game.apply(Draw(seat, "stock"))
    pile = texts(game.discard)
    game.apply(Discard(seat, game.hands[seat][-1]))
    assert game.restocks == 1
    return {"round_seed": game.round_seed.hex(), "pile": pile, "stock": texts(reversed(game.stock))}


def port_cases() -> list[tuple[str, dict[str, Any], list[Call]]]:
    """Every case: its group, what the engine says, and the calls that ask the port."""
    cases: list[tuple[str, dict[str, Any], list[Call]]] = []
    for preset in PRESETS:
        rng = random.Random(f"fairness-port-{preset}")
        rules = Rules.preset(preset)
        for _ in range(CASES_PER_PRESET):
            cases.append(deal_case(preset, rules, rng))
    rng = random.Random("fairness-port-hand-sizes")
    for _ in range(100):
        cases.append(deal_case("hand-size", Rules.classic(hand_size=rng.randint(3, 20)), rng))
    rng = random.Random("fairness-port-restock")
    for _ in range(50):
        engine = restocked(rng.randbytes(32))
        seed = engine["round_seed"]
        restock_no = rng.randint(1, 5)
        engine["restock_seed"] = restock_seed(bytes.fromhex(seed), restock_no).hex()
        pile = [Card.parse(c) for c in engine["pile"]]
        engine["shuffled"] = texts(shuffled(pile, bytes.fromhex(engine["restock_seed"])))
        calls: list[Call] = [
            ("restockFromSeed", [seed, 1, engine["pile"]]),
            ("restockSeed", [seed, restock_no]),
            ("shuffled", [engine["pile"], engine["restock_seed"]]),
        ]
        cases.append(("restock", engine, calls))
    return cases


def deal_case(
    group: str, rules: Rules, rng: random.Random
) -> tuple[str, dict[str, Any], list[Call]]:
    """A random match of these rules: its first round dealt by a new table
    (``Game.start``, the dealer drawn at random) and a later round by
    ``deal_from_seed``, with the calls that ask the port the same."""
    match_seed = rng.randbytes(32)
    seats = rng.randint(2, 4)
    dealer = rng.randrange(seats)
    round_no = rng.randint(2, 9)
    engine = {
        "first": first_round(rules, seats, match_seed, dealer),
        "later": later_round(match_seed, round_no, seats, rules.hand_size),
    }
    first_seed = engine["first"]["round_seed"]
    calls: list[Call] = [
        ("roundSeed", [match_seed.hex(), 1]),
        ("commitmentOf", [first_seed]),
        ("dealOrder", [engine["first"]["dealer"], [True] * seats]),
        ("dealFromSeed", [first_seed, seats, rules.hand_size]),
        ("roundSeed", [match_seed.hex(), round_no]),
        ("commitmentOf", [engine["later"]["round_seed"]]),
        ("dealFromSeed", [engine["later"]["round_seed"], seats, rules.hand_size]),
    ]
    return group, engine, calls


@pytest.fixture(scope="module")
def port_answers() -> list[tuple[str, dict[str, Any], list[Any]]]:
    """Each case with the port's answers, all computed in one Node.js process."""
    cases = port_cases()
    results = iter(run_in_node([call for _, _, calls in cases for call in calls]))
    return [(group, engine, [next(results) for _ in calls]) for group, engine, calls in cases]


@pytest.mark.parametrize("group", [*PRESETS, "hand-size"])
def test_the_port_deals_as_the_engine(
    port_answers: list[tuple[str, dict[str, Any], list[Any]]], group: str
) -> None:
    checked = 0
    for case_group, engine, answers in port_answers:
        if case_group != group:
            continue
        first, later = engine["first"], engine["later"]
        seed1, commitment1, order, deal1, seed_n, commitment_n, deal_n = answers
        assert seed1 == first["round_seed"]
        assert commitment1 == first["commitment"]
        hands_by_seat: list[list[str]] = [[] for _ in first["hands"]]
        for seat, hand in zip(order, deal1["hands"], strict=True):
            hands_by_seat[seat] = hand
        assert hands_by_seat == first["hands"], first["round_seed"]
        assert deal1["upcard"] == first["upcard"]
        assert deal1["stock"] == first["stock"]
        assert seed_n == later["round_seed"]
        assert commitment_n == later["commitment"]
        assert deal_n == later["deal"], later["round_seed"]
        checked += 1
    assert checked == (100 if group == "hand-size" else CASES_PER_PRESET)


def test_the_port_rebuilds_the_stock_as_the_engine(
    port_answers: list[tuple[str, dict[str, Any], list[Any]]],
) -> None:
    cases = [(engine, answers) for group, engine, answers in port_answers if group == "restock"]
    assert len(cases) == 50
    for engine, (stock, seed, shuffled_pile) in cases:
        assert stock == engine["stock"]
        assert seed == engine["restock_seed"]
        assert shuffled_pile == engine["shuffled"]


class CountingStream(ShuffleStream):
    """The engine's stream, counting the 64-bit numbers it reads."""

    reads = 0

    def _next64(self) -> int:
        self.reads += 1
        return super()._next64()


def test_the_port_rejects_the_same_numbers_as_the_engine() -> None:
    """Rejection sampling: with n close to 2**64 / 2049 about one number in 2049 is
    drawn again; the engine's stream must have rejected some here for the test to
    mean anything."""
    n = 2**64 // 2049 + 1
    seed = random.Random("fairness-rejection").randbytes(32)
    stream = CountingStream(seed)
    expected = [stream.randbelow(n) for _ in range(20_000)]
    assert stream.reads > len(expected)
    assert run_in_node([("draws", [seed.hex(), n, len(expected)])]) == [expected]


def verify_cases() -> tuple[dict[str, dict[str, Any]], tuple[str, str]]:
    """Rounds as a log would publish them, by name: one honest, the others tampered
    with; and the two cards the "swapped card" round exchanged between hands 0 and 1."""
    match_seed = random.Random("fairness-verify").randbytes(32)
    honest = later_round(match_seed, 1, 3, 13)
    hands = honest["deal"]["hands"]
    a = hands[0][0]
    b = next(card for card in hands[1] if card != a)
    swapped = [list(hand) for hand in hands]
    swapped[0][0] = b
    swapped[1][hands[1].index(b)] = a
    base = {
        "seed": honest["round_seed"],
        "commitment": honest["commitment"],
        # The order within a hand does not matter (a player may sort it).
        "hands": [sorted(hand) for hand in hands],
        "upcard": honest["deal"]["upcard"],
        "matchSeed": match_seed.hex(),
        "roundNo": 1,
    }
    forged = random.Random("fairness-forged").randbytes(32)
    forged_deal = deal_from_seed(forged, 3)
    rounds = {
        "honest": base,
        "commitment in capitals": {**base, "commitment": honest["commitment"].upper()},
        "swapped card": {**base, "hands": swapped},
        "upcard": {**base, "upcard": next(c for c in ("2C", "3C") if c != base["upcard"])},
        "another round's seed": {**base, "seed": round_seed(match_seed, 2).hex()},
        "forged seed and commitment": {
            **base,
            "seed": forged.hex(),
            "commitment": commitment_of(forged),
            "hands": [texts(hand) for hand in forged_deal.hands],
            "upcard": str(forged_deal.upcard),
        },
        "not hex": {**base, "seed": "zz"},
        "no hands": {**base, "hands": []},
    }
    return rounds, (a, b)


def test_verify_round_says_whether_and_why_a_deal_differs() -> None:
    rounds, (a, b) = verify_cases()
    answers = run_in_node([("verifyRound", [round_]) for round_ in rounds.values()])
    verdicts = dict(zip(rounds, answers, strict=True))

    def codes(name: str) -> list[str]:
        return [problem["code"] for problem in verdicts[name]["problems"]]

    honest = verdicts["honest"]
    assert honest["ok"] is True and honest["problems"] == []
    assert honest["commitment"] == rounds["honest"]["commitment"]
    assert verdicts["commitment in capitals"]["ok"] is True
    assert verdicts["swapped card"]["problems"] == [
        {"code": "hand_mismatch", "hand": 0, "missing": [a], "extra": [b]},
        {"code": "hand_mismatch", "hand": 1, "missing": [b], "extra": [a]},
    ]
    assert verdicts["upcard"]["problems"] == [
        {
            "code": "upcard_mismatch",
            "expected": rounds["honest"]["upcard"],
            "got": rounds["upcard"]["upcard"],
        }
    ]
    assert codes("another round's seed")[:2] == ["commitment_mismatch", "round_seed_mismatch"]
    assert "hand_mismatch" in codes("another round's seed")
    # A seed that fits its own commitment and hands still is not this match's seed.
    assert codes("forged seed and commitment") == ["round_seed_mismatch"]
    assert codes("not hex") == ["bad_seed"] and verdicts["not hex"]["deal"] is None
    assert codes("no hands") == ["hand_count"]
    assert all(
        verdicts[name]["ok"] is False
        for name in rounds
        if "honest" not in name and name != "commitment in capitals"
    )

    # The engine's verify_deal agrees wherever it can tell (it knows no match seed).
    for name, round_ in rounds.items():
        if name in ("forged seed and commitment", "no hands"):
            continue
        given = [parse_cards(hand) for hand in round_["hands"]]
        engine_ok = verify_deal(
            round_["seed"], round_["commitment"], given, Card.parse(round_["upcard"])
        )
        assert engine_ok == verdicts[name]["ok"], name


BROWSER_CHECK = """async (cases) => {
  const f = await import('./js/fairness.js');
  const out = [];
  for (const c of cases) {
    const seed = f.bytesToHex(await f.roundSeed(c.matchSeed, c.roundNo));
    const deal = await f.dealFromSeed(seed, c.seats);
    const verdict = await f.verifyRound({seed, commitment: c.commitment, hands: c.hands,
      upcard: c.upcard, matchSeed: c.matchSeed, roundNo: c.roundNo});
    out.push({seed, commitment: await f.commitmentOf(seed), deal, ok: verdict.ok});
  }
  return {secure: window.isSecureContext, out};
}"""


def test_the_port_deals_as_the_engine_in_chromium(server: str, new_context: Any) -> None:
    page = new_context("fairness")
    page.goto(server)
    page.wait_for_selector("#entry-submit")
    rng = random.Random("fairness-chromium")
    cases = []
    for _ in range(6):
        match_seed, round_no, seats = rng.randbytes(32), rng.randint(1, 5), rng.randint(2, 4)
        engine = later_round(match_seed, round_no, seats, 13)
        cases.append(
            {
                "matchSeed": match_seed.hex(),
                "roundNo": round_no,
                "seats": seats,
                "commitment": engine["commitment"],
                "hands": engine["deal"]["hands"],
                "upcard": engine["deal"]["upcard"],
                "engine": engine,
            }
        )
    got = page.evaluate(BROWSER_CHECK, cases)
    assert got["secure"] is True
    for case, answer in zip(cases, got["out"], strict=True):
        engine = case["engine"]
        assert answer["seed"] == engine["round_seed"]
        assert answer["commitment"] == engine["commitment"]
        assert answer["deal"] == engine["deal"]
        assert answer["ok"] is True
