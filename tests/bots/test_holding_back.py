"""The expert's plan: its melds stay in hand until they pay.

Heads-up it opens only to go out (measured against the strong level, classic
single rounds, 2,000 games: 66.6% without search where opening also for two
lay-offs or an opponent at three cards won 61.6%), or to take a joker off the
table with a loose card, with the least that opens, keeping its other and new
melds in hand (71.6% on the same games); against several opponents it also
opens for two lay-offs or an opponent at three cards (against three casual
players, 800 games: 56.2%, where opening only to go out won 46.4%), and there
too lays the least that opens and keeps the rest (62.5% against 56.0% on 4,000
games of other deals). In matches over several rounds it holds back the same
way, heads-up and at four seats, and lays everything once an opponent is down to
three cards (against the strong level: 89.6% of 1,000 heads-up matches to 100,
50.0% of 400 four-seat ones). The figures are in docs/bots.md.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from romme.bots import Bot, make_bot
from romme.bots.expert import ExpertBot
from romme.bots.playbook import (
    CLOSE_CARDS,
    HEADS_UP,
    MATCH,
    SEVERAL,
    HoldingPlan,
    holding_plan,
    keeps_melds_back,
    least_opening,
)
from romme.bots.rollout import _play as rollout_play
from romme.engine.actions import Discard, ExchangeJoker, Lay
from romme.engine.cards import parse_cards, shoe_counter
from romme.engine.game import Game
from romme.engine.melds import Meld
from romme.engine.rules import Rules
from tests.engine.helpers import arranged

ROOT = Path(__file__).resolve().parents[2]
SINGLE_ROUND = Rules.classic(point_limit=1)
MATCH_RULES = Rules.classic(point_limit=100)
TABLE = [(1, "5S 6S 7S"), (1, "8C 8H 8S")]
"""The second seat's melds: ``4S`` and ``8D`` lay off on them."""
OWN = "TH JH QH KH 2S 5D 9C 4S 8D"
"""An opening of 40 points and five loose cards, two of which fit the table."""
OTHERS = ["3C 3D 9H", "JC QD 2H 6D 5C", "AS 7C KD 4H 6H"]


def table(*texts: str) -> list[Meld]:
    return [Meld.parse(parse_cards(text), SINGLE_ROUND) for text in texts]


def opening_to_play(seats: int, own: str = OWN) -> Game:
    """Seat 0 has drawn and holds an opening; the second seat has opened."""
    return arranged(SINGLE_ROUND, [own, *OTHERS[: seats - 1]], melds=TABLE, opened=[1], drawn=True)


def expert_without_search() -> Bot:
    return make_bot("expert", 1, playouts=0, time_cap=None)


def test_heads_up_the_expert_holds_its_opening_back() -> None:
    """Two loose cards fit the table and the opponent is down to three cards:
    heads-up the expert still keeps its melds, where the strong level opens."""
    view = opening_to_play(2).view_for(0)
    assert isinstance(expert_without_search().decide(view), Discard)
    assert isinstance(make_bot("strong", 1).decide(view), Lay)


def test_against_several_the_expert_opens_when_it_pays() -> None:
    view = opening_to_play(4).view_for(0)
    assert isinstance(expert_without_search().decide(view), Lay)


def test_heads_up_the_expert_opens_to_go_out() -> None:
    """``TH JH QH KH`` and ``2S 3S 4S``, ``8D`` laid off, ``9C`` thrown."""
    view = opening_to_play(2, "TH JH QH KH 2S 3S 4S 8D 9C").view_for(0)
    assert isinstance(expert_without_search().decide(view), Lay)


@pytest.mark.parametrize(
    ("loose", "others", "keeps"),
    [
        pytest.param("2S 5D 9C 4S 8D", [3], True, id="heads-up: two fits, opponent close"),
        pytest.param("2S 4S", [1], False, id="heads-up: goes out"),
        pytest.param("2S 5D 9C 4S 8D", [9, 9, 9], False, id="several: two fits"),
        pytest.param("2S 5D 9C 4S", [9, 9, 9], True, id="several: one fit"),
        pytest.param("2S 5D 9C", [9, CLOSE_CARDS, 9], False, id="several: someone close"),
        pytest.param("2S 5D 9C", [9, CLOSE_CARDS + 1, 9], True, id="several: nobody close"),
    ],
)
def test_keeps_melds_back(loose: str, others: list[int], keeps: bool) -> None:
    melds = table("5S 6S 7S", "8C 8H 8S")
    plan = HEADS_UP if len(others) < 2 else SEVERAL
    assert keeps_melds_back(SINGLE_ROUND, melds, parse_cards(loose), others, plan) is keeps


@pytest.mark.parametrize(
    ("plan", "others", "keeps"),
    [
        pytest.param(SEVERAL, [3], False, id="heads-up with the plan for several"),
        pytest.param(HEADS_UP, [9, 2, 9], True, id="several with the heads-up plan"),
        pytest.param(HoldingPlan(close=0, fits=3), [9, 9, 9], True, id="two fits of three"),
        pytest.param(HoldingPlan(close=5, fits=0), [9, 5], False, id="an opponent at five"),
    ],
)
def test_keeps_melds_back_by_a_given_plan(
    plan: HoldingPlan, others: list[int], keeps: bool
) -> None:
    melds = table("5S 6S 7S", "8C 8H 8S")
    loose = parse_cards("2S 5D 9C 4S 8D")
    assert keeps_melds_back(SINGLE_ROUND, melds, loose, others, plan) is keeps


@pytest.mark.parametrize(
    ("loose", "plan", "keeps"),
    [
        pytest.param("6S 9C 2D", HEADS_UP, False, id="heads-up: 6S takes the joker"),
        pytest.param("6D 9C 2D", HEADS_UP, True, id="heads-up: no card takes the joker"),
        pytest.param("XX 9C 2D", HEADS_UP, True, id="heads-up: a joker takes no joker"),
        pytest.param("6S 9C 2D", SEVERAL, True, id="several: jokers are no reason"),
    ],
)
def test_heads_up_a_loose_card_that_takes_a_joker_opens(
    loose: str, plan: HoldingPlan, keeps: bool
) -> None:
    melds = table("5S XX 7S", "KC KH KS")
    assert keeps_melds_back(SINGLE_ROUND, melds, parse_cards(loose), [9], plan) is keeps


def test_a_joker_that_would_not_come_home_is_no_reason() -> None:
    """Three-rounds: an exchanged joker must go into a new meld at once."""
    rules = Rules.three_rounds()
    melds = [Meld.parse(parse_cards("5S XX 7S"), rules)]
    assert keeps_melds_back(rules, melds, parse_cards("6S 9C 2D"), [9], HEADS_UP) is True


def joker_on_the_table(own: str) -> Game:
    """Seat 0 has drawn; the opponent's ``5S 6S 7S`` holds a joker for ``6S``."""
    return arranged(
        SINGLE_ROUND,
        [own, OTHERS[0]],
        melds=[(1, "5S XX 7S"), (1, "8C 8H 8S")],
        opened=[1],
        drawn=True,
    )


def test_heads_up_the_expert_opens_to_bring_a_joker_home() -> None:
    """It opens with the least that opens (``TH JH QH KH``, not ``2C 2D 2S``
    too), and exchanges ``6S`` for the joker next."""
    game = joker_on_the_table("TH JH QH KH 2C 2D 2S 9C 6S")
    bot = expert_without_search()
    lay = bot.decide(game.view_for(0))
    assert isinstance(lay, Lay)
    assert lay.melds == (parse_cards("TH JH QH KH"),)
    game.apply(lay)
    assert isinstance(bot.decide(game.view_for(0)), ExchangeJoker)
    # The strong level lays both melds.
    strong = make_bot("strong", 1).decide(
        joker_on_the_table("TH JH QH KH 2C 2D 2S 9C 6S").view_for(0)
    )
    assert isinstance(strong, Lay) and len(strong.melds) == 2


def test_a_holding_playout_opens_with_the_least_heads_up() -> None:
    game = joker_on_the_table("TH JH QH KH 2C 2D 2S 9C 6S")
    held = rollout_play(game, 0, shoe_counter(), hold=True)
    assert isinstance(held, Lay) and held.melds == (parse_cards("TH JH QH KH"),)
    free = rollout_play(game, 0, shoe_counter())
    assert isinstance(free, Lay) and len(free.melds) == 2


@pytest.mark.parametrize(
    ("melds", "single", "least"),
    [
        pytest.param(["TH JH QH KH", "2C 2D 2S"], False, ["TH JH QH KH"], id="one meld opens"),
        pytest.param(["XX QS KS", "JH QH KH", "2C 2D 2S"], False, ["JH QH KH"], id="no joker"),
        pytest.param(
            ["2C 2D 2S", "7C 7D 7H", "5S 6S 7S"], False, ["7C 7D 7H", "5S 6S 7S"], id="two melds"
        ),
        pytest.param(["4C 4D 4H", "5S 6S 7S 8S"], False, ["4C 4D 4H", "5S 6S 7S 8S"], id="all"),
        pytest.param(["9C 9D 9H 9S", "TH JH QH"], True, ["TH JH QH"], id="fewest cards"),
        pytest.param(
            ["2C 2D 2S", "7C 7D 7H", "5S 6S 7S"],
            True,
            ["2C 2D 2S", "7C 7D 7H", "5S 6S 7S"],
            id="one meld must open: none does, all stay",
        ),
    ],
)
def test_least_opening(melds: list[str], single: bool, least: list[str]) -> None:
    rules = Rules.classic(point_limit=1, opening_single_meld=single)
    parsed = [Meld.parse(parse_cards(text), rules) for text in melds]
    chosen = least_opening(parsed, rules)
    assert [m.cards for m in chosen] == [parse_cards(text) for text in least]


NEW_MELD = "TH JH QH 2C 2D 2S 9C 4D"
"""An opened seat's hand: two melds and two loose cards that fit nowhere."""


def opened_to_play(seats: int, own: str = NEW_MELD) -> Game:
    """Seat 0 has opened with ``5S 6S 7S`` and drawn; the second seat has opened."""
    return arranged(
        SINGLE_ROUND,
        [own, *OTHERS[: seats - 1]],
        melds=[(0, "5S 6S 7S"), (1, "8C 8H 8S")],
        opened=[0, 1],
        drawn=True,
    )


@pytest.mark.parametrize(
    ("loose", "others", "keeps"),
    [
        pytest.param("9C 4D", [9], True, id="heads-up: two loose cards"),
        pytest.param("9C", [9], False, id="heads-up: one loose card, the discard"),
        pytest.param("9C 8D", [9], False, id="heads-up: the rest fits the table"),
        pytest.param("9C 4D", [9, 9, 9], True, id="several: two loose cards"),
        pytest.param("9C", [9, 9, 9], False, id="several: one loose card, the discard"),
    ],
)
def test_the_plan_keeps_new_melds_and_opens_with_the_least(
    loose: str, others: list[int], keeps: bool
) -> None:
    """Both only heads-up, and not when the seat goes out."""
    melds = table("5S 6S 7S", "8C 8H 8S")
    cards = parse_cards(loose)
    plan = holding_plan(len(others))
    assert plan is not None
    assert plan.keeps_new_melds(SINGLE_ROUND, melds, cards, others) is keeps
    assert plan.opens_with_least(SINGLE_ROUND, melds, cards, others) is keeps
    lays_all = HoldingPlan(close=CLOSE_CARDS, fits=2)
    assert not lays_all.keeps_new_melds(SINGLE_ROUND, melds, cards, others)
    assert not lays_all.opens_with_least(SINGLE_ROUND, melds, cards, others)


@pytest.mark.parametrize(
    ("opponent", "keeps"),
    [
        pytest.param(CLOSE_CARDS + 1, True, id="the opponent far from going out"),
        pytest.param(CLOSE_CARDS, False, id="the opponent close: lay everything"),
    ],
)
def test_in_a_match_heads_up_the_plan_lays_everything_once_the_opponent_is_close(
    opponent: int, keeps: bool
) -> None:
    """In a match the cards left in hand are counted: once the one opponent is
    down to three cards, the seat opens, with every meld, and lays new ones."""
    melds = table("5S 6S 7S", "8C 8H 8S")
    loose = parse_cards("9C 4D")
    plan = holding_plan(1, single_round=False)
    assert plan == MATCH
    assert keeps_melds_back(MATCH_RULES, melds, loose, [opponent], plan) is keeps
    assert plan.keeps_new_melds(MATCH_RULES, melds, loose, [opponent]) is keeps
    assert plan.opens_with_least(MATCH_RULES, melds, loose, [opponent]) is keeps
    # At a one-round table the same opponent changes nothing of that.
    assert HEADS_UP.keeps_new_melds(SINGLE_ROUND, melds, loose, [opponent])
    assert HEADS_UP.opens_with_least(SINGLE_ROUND, melds, loose, [opponent])


@pytest.mark.parametrize("seats", [2, 4])
def test_the_opened_expert_keeps_new_melds_in_hand(seats: int) -> None:
    """Opened, it throws a card and keeps ``TH JH QH`` and ``2C 2D 2S`` in hand,
    where the strong level lays them."""
    view = opened_to_play(seats).view_for(0)
    assert isinstance(expert_without_search().decide(view), Discard)
    assert isinstance(make_bot("strong", 1).decide(view), Lay)


def test_heads_up_the_opened_expert_lays_new_melds_to_go_out() -> None:
    """``TH JH QH`` and ``2C 2D 2S`` laid, ``8D`` laid off, ``9C`` thrown."""
    view = opened_to_play(2, "TH JH QH 2C 2D 2S 9C 8D").view_for(0)
    assert isinstance(expert_without_search().decide(view), Lay)


@pytest.mark.parametrize("seats", [2, 4])
def test_a_holding_playout_keeps_new_melds_in_hand(seats: int) -> None:
    """The expert's playouts play its seat by the same plan, the others not."""
    game = opened_to_play(seats)
    assert not isinstance(rollout_play(game, 0, shoe_counter(), hold=True), Lay)
    assert isinstance(rollout_play(game, 0, shoe_counter()), Lay)


def test_the_plan_by_number_of_opponents() -> None:
    assert (
        holding_plan(1)
        == HEADS_UP
        == HoldingPlan(close=0, fits=0, jokers=True, keep_new=True, least=True)
    )
    assert (
        holding_plan(2)
        == holding_plan(3)
        == SEVERAL
        == HoldingPlan(close=CLOSE_CARDS, fits=2, keep_new=True, least=True)
    )
    assert (
        holding_plan(1, single_round=False)
        == holding_plan(3, single_round=False)
        == MATCH
        == HoldingPlan(
            close=CLOSE_CARDS, fits=0, jokers=True, keep_new=True, least=True, open_up=True
        )
    )


def load_probe() -> Any:
    spec = importlib.util.spec_from_file_location("probe", ROOT / "bench/probe_holding.py")
    assert spec is not None and spec.loader is not None
    probe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probe)
    return probe


@pytest.mark.parametrize(
    ("seats", "plan"), [(2, HEADS_UP), (4, SEVERAL)], ids=["heads-up", "four seats"]
)
def test_the_probe_plays_the_expert_plan_with_its_settings(seats: int, plan: HoldingPlan) -> None:
    """bench/probe_holding.py with the settings docs/bots.md gives for the
    expert's plan decides as the expert without search does."""
    probe = load_probe().plan_level(
        plan.close, plan.fits, plan.keep_new, jokers=plan.jokers, least=plan.least
    )(1)
    view = opening_to_play(seats).view_for(0)
    assert type(probe.decide(view)) is type(expert_without_search().decide(view))


def test_the_probe_runs(capsys: pytest.CaptureFixture[str]) -> None:
    options = ["--close", "0", "--fits", "0", "--jokers", "--keep-new", "--least"]
    load_probe().main([*options, "--games", "4", "--seed", "3"])
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("plan (close 0, fits 0, jokers, keep new, least) vs 1 strong: ")
    assert last.endswith("over 4 games (an equal player wins 50%)")


def test_the_probe_changes_the_judgement_s_weights(capsys: pytest.CaptureFixture[str]) -> None:
    probe = load_probe()
    plan = probe.plan_level(0, 0, keep_new=False, weights={"risk_weight": 1.2})(1)
    assert plan.style.risk_weight == 1.2
    assert plan.style.take_margin == make_bot("strong", 1).style.take_margin  # type: ignore[attr-defined]
    probe.main(["--style", "risk_weight=1.2", "--games", "4", "--seed", "3"])
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("plan (close 3, fits 2, risk_weight 1.2) vs 1 strong: ")


@pytest.mark.parametrize("item", ["draws_left=3", "nerve=1", "risk_weight=high"])
def test_the_probe_refuses_a_weight_it_does_not_know(
    item: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        load_probe().main(["--style", item, "--games", "4"])
    assert stop.value.code == 2
    assert "--style" in capsys.readouterr().err


def test_the_expert_searches_only_when_asked() -> None:
    """The plan decides at every table; the search is a probe's option."""
    matches = [
        arranged(MATCH_RULES, [OWN, *OTHERS[: seats - 1]], melds=TABLE, opened=[1], drawn=True)
        for seats in (2, 4)
    ]
    views = [opening_to_play(2).view_for(0), opening_to_play(4).view_for(0)]
    views += [match.view_for(0) for match in matches]
    plain, searching = ExpertBot(1), ExpertBot(1, search_close=True)
    for view in views:
        assert not plain.may_search(view, plain.context(view))
        assert searching.may_search(view, searching.context(view))


TWO_MELDS = "TH JH QH KH 2C 2D 2S 9C 5D"
"""Two melds (``TH JH QH KH`` opens alone) and two loose cards that fit nowhere."""


FAR = ["JC QD 2H 6D 5C AS 7C KD 4H", "JD QC 3H 6C 5H AD 7H KC 4C", "TS JS 3S 4D 6H 7D 9D AC KS"]
"""Nine cards each: opponents far from going out."""


def match_to_play(opponents: list[str]) -> Game:
    """A match to 100: seat 0 has drawn and holds :data:`TWO_MELDS`; the second
    seat has opened."""
    return arranged(MATCH_RULES, [TWO_MELDS, *opponents], melds=TABLE, opened=[1], drawn=True)


@pytest.mark.parametrize("seats", [2, 4])
@pytest.mark.parametrize("bot", [expert_without_search(), ExpertBot(1)], ids=["plan", "expert"])
def test_in_a_match_the_expert_holds_back_until_an_opponent_is_close(seats: int, bot: Bot) -> None:
    """Nine cards in every opponent's hand: it keeps its melds for a hand rummy,
    which doubles the opponents' penalties. Three in one: that opponent may go
    out any turn, and it lays both melds, where at a one-round table it would
    lay only the one that opens."""
    others = seats - 1
    far = match_to_play(FAR[:others]).view_for(0)
    assert isinstance(bot.decide(far), Discard)
    assert isinstance(make_bot("strong", 1).decide(far), Lay)
    close = match_to_play([*FAR[: others - 1], OTHERS[0]]).view_for(0)
    lay = bot.decide(close)
    assert isinstance(lay, Lay) and len(lay.melds) == 2
