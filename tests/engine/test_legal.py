"""The one legality check, the explicit game state, determinisation, the error
codes and the engine's public names."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from pathlib import Path

import pytest

import romme.engine
from romme.engine import (
    ERROR_CODES,
    Draw,
    Game,
    GameState,
    HiddenCards,
    IllegalAction,
    InvalidMeld,
    Lay,
    NextRound,
    Rules,
    check,
    legal_actions,
    opening_value,
)
from romme.engine.actions import Action
from romme.engine.cards import Card, shoe
from romme.engine.melds import Meld
from romme.engine.reference import reference_action
from romme.engine.state import Phase

from .helpers import SEED, arranged, cards
from .test_properties import random_action

ROOT = Path(__file__).resolve().parents[2]


def outcome(subject: Game | romme.engine.SeatView, action: Action) -> str:
    """``"ok"`` or the code ``check`` refuses the action with."""
    try:
        check(subject, action)
    except (IllegalAction, InvalidMeld) as error:
        return error.code
    return "ok"


def walk(rules: Rules, seats: int, seed: int, steps: int) -> list[Game]:
    """Positions of a match the reference player plays (copies, one per step)."""
    game = Game(rules, seats, SEED)
    rng = random.Random(seed)
    positions = []
    for _ in range(steps):
        if game.is_over:
            break
        if game.phase in (Phase.NOT_STARTED, Phase.ROUND_OVER):
            game.apply(NextRound())
            continue
        positions.append(game.clone())
        seat = rng.choice([*game.knock_seats(), game.current])
        action = reference_action(game.view_for(seat)) or reference_action(
            game.view_for(game.current)
        )
        assert action is not None
        game.apply(action)
    return positions


@pytest.mark.parametrize(
    "rules", [Rules.classic(knock=True), Rules.three_rounds()], ids=["classic", "three"]
)
def test_check_changes_nothing_and_says_what_apply_does(rules: Rules) -> None:
    rng = random.Random(7)
    refused: Counter[str] = Counter()
    for game in walk(rules, 4, seed=1, steps=400):
        before = json.dumps(game.to_json())
        for action in [random_action(game, rng) for _ in range(6)]:
            code = outcome(game, action)
            assert json.dumps(game.to_json()) == before, f"check({action}) changed the game"
            assert game.is_legal(action) == (code == "ok")
            trial = game.clone()
            try:
                trial.apply(action)
                applied = "ok"
            except (IllegalAction, InvalidMeld) as error:
                applied = error.code
                assert json.dumps(trial.to_json()) == before
            assert applied == code
            refused[code] += 1
    assert refused["ok"] > 0 and len(refused) > 8, refused


@pytest.mark.parametrize("rules", [Rules.classic(), Rules.three_rounds()], ids=["classic", "three"])
def test_a_view_judges_its_own_moves_as_the_game_does(rules: Rules) -> None:
    """Every action the view lists is accepted by both; a lay-down the seat makes
    up is judged by the view exactly as by the game (same code)."""
    rng = random.Random(3)
    lays = 0
    for game in walk(rules, 2, seed=2, steps=300):
        seat = game.current
        view = game.view_for(seat)
        for action in legal_actions(view):
            assert outcome(view, action) == outcome(game, action) == "ok"
        if game.phase is not Phase.PLAY:
            continue
        hand = game.hands[seat]
        for _ in range(4):
            size = rng.randrange(3, 5)
            lay = Lay(seat, (tuple(rng.sample(hand, min(size, len(hand)))),))
            assert outcome(view, lay) == outcome(game, lay)
            lays += 1
    assert lays > 100


def test_a_view_refuses_other_seats_and_unlisted_moves() -> None:
    game = arranged(Rules.classic(), ["7H 7S 7D 8C", "2C 3C 4C 5C"], drawn=True)
    view = game.view_for(0)
    assert outcome(view, Lay(1, (cards("2C 3C 4C"),))) == "bad_seat"
    assert outcome(view, NextRound()) == "bad_seat"
    assert outcome(game.view_for(None), Lay(0, (cards("7H 7S 7D"),))) == "bad_seat"
    assert outcome(view, Lay(0, (cards("7H 7S 7D"),))) == "opening_too_low"
    assert outcome(view, Draw(0, "stock")) == "illegal_action"
    assert outcome(game, Draw(0, "stock")) == "already_drew"


def test_the_opening_rule_is_one_value() -> None:
    rules = Rules.classic()
    melds = [Meld.parse(cards("7H 7S 7D"), rules), Meld.parse(cards("TC JC QC"), rules)]
    assert opening_value(melds, rules) == 21 + 30
    single = Rules.classic(opening_single_meld=True)
    assert opening_value(melds, single) == 30
    game = arranged(single, ["7H 7S 7D 9C TC JC 2S", "2C 3C 4C 5C"], drawn=True, current=0)
    with pytest.raises(IllegalAction) as refused:
        game.apply(Lay(0, (cards("7H 7S 7D"), cards("9C TC JC"))))
    assert refused.value.code == "opening_too_low"
    assert "one meld worth 30" in refused.value.message


# ---------------------------------------------------------------- the state


def test_clone_and_json_go_through_every_field_of_the_state() -> None:
    game = walk(Rules.classic(knock=True), 3, seed=5, steps=60)[-1]
    copy = game.clone()
    assert copy is not game and copy.to_json() == game.to_json()
    copy.hands[0].append(copy.stock.pop())
    copy.turn.pending_jokers += 1
    assert copy.to_json() != game.to_json()
    fields = set(GameState.__dataclass_fields__)
    assert set(game.to_json()) == fields
    assert Game.from_json(json.loads(json.dumps(game.to_json()))).to_json() == game.to_json()


@pytest.mark.parametrize(
    "rules", [Rules.classic(knock=True), Rules.three_rounds()], ids=["classic", "three"]
)
def test_determinise_rebuilds_the_game_from_a_view_and_its_hidden_cards(rules: Rules) -> None:
    for game in walk(rules, 4, seed=4, steps=200)[::7]:
        seat = game.current
        view = game.view_for(seat)
        hidden = HiddenCards(
            [list(h) for h in game.hands],
            list(game.stock),
            list(game.discard),
            seed=game.seed,
            round_seed=game.round_seed,
        )
        rebuilt = Game.determinise(view, hidden)
        assert rebuilt.view_for(seat) == view
        assert rebuilt.card_count() == Counter(shoe())
        original = game.to_json()
        # What a view cannot know is the first dealer (the view's dealer stands in).
        original["first_dealer"] = view.dealer
        assert rebuilt.to_json() == original
        for action in legal_actions(view):
            assert rebuilt.is_legal(action)


def test_determinise_refuses_what_the_view_contradicts() -> None:
    game = Game.start(Rules.classic(), seats=2, seed=SEED)
    view = game.view_for(0)

    def hidden(hands: list[list[Card]], stock: list[Card]) -> HiddenCards:
        return HiddenCards(hands, stock, list(game.discard), seed=SEED, round_seed=SEED)

    with pytest.raises(ValueError, match="sizes"):
        Game.determinise(view, hidden([game.hands[0], game.hands[1][:-1]], list(game.stock)))
    with pytest.raises(ValueError, match="own hand"):
        Game.determinise(view, hidden([game.hands[1], game.hands[0]], list(game.stock)))
    with pytest.raises(ValueError, match="stock"):
        Game.determinise(view, hidden([game.hands[0], game.hands[1]], game.stock[1:]))
    with pytest.raises(ValueError, match="seat's view"):
        Game.determinise(game.view_for(None), hidden(game.hands, game.stock))


# ------------------------------------------------------- codes and names


def test_docs_rules_list_every_error_code() -> None:
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    section = text.split("## Error codes", 1)[1].split("\n## ", 1)[0]
    listed = {w for w in re.findall(r"`([a-z_]+)`", section)}
    assert listed == set(ERROR_CODES)
    assert len(set(ERROR_CODES)) == len(ERROR_CODES)


def test_every_code_the_engine_raises_is_declared() -> None:
    raised = set()
    for path in (ROOT / "romme" / "engine").glob("*.py"):
        raised |= set(
            re.findall(
                r'(?:IllegalAction|EngineError)\([^()]*?"([a-z_]+)",?\s*\)', path.read_text()
            )
        )
        raised |= set(re.findall(r'^\s*code: ErrorCode = "([a-z_]+)"', path.read_text(), re.M))
    assert raised and raised <= set(ERROR_CODES)


def test_the_public_names_are_all_importable() -> None:
    for name in romme.engine.__all__:
        assert getattr(romme.engine, name) is not None
    assert sorted(romme.engine.__all__) == sorted(set(romme.engine.__all__))
