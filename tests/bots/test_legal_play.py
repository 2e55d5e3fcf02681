"""Every level finishes many random-seeded matches with legal actions only, at
every seat count and with both presets (the engine refuses anything illegal,
so an illegal move fails the test with the engine's error)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from romme.bots import LEVELS, make_bot
from romme.bots.tournament import play_match
from romme.engine.actions import Action, Draw
from romme.engine.game import Game
from romme.engine.rules import Rules

RULES = {
    "classic-1": Rules.classic(point_limit=1),
    "classic-50": Rules.classic(point_limit=50),
    "classic-knock": Rules.classic(point_limit=50, knock=True),
    "three-rounds": Rules.three_rounds(),
}


def test_levels_are_the_four_strengths() -> None:
    assert LEVELS == ("beginner", "casual", "strong", "expert")
    for level in LEVELS:
        assert make_bot(level, 1).level == level
    with pytest.raises(ValueError, match="unknown level"):
        make_bot("grandmaster", 1)


# The knock needs 3 or 4 seats: a 2-seat table with the knock is the plain game.
TABLES = [
    (preset, seats)
    for preset in sorted(RULES)
    for seats in (2, 3, 4)
    if not (preset == "classic-knock" and seats == 2)
]


MATCHES_PER_TABLE = 90
"""11 tables x 90 = 990 matches: each fast level sits in about 650 of them (the
engine's dead-end walk, tests/engine/test_dead_ends.py, covers the rules' corners
with random play besides). More would hold the whole suite past its half hour on
two cores: these matches are its largest share of computing."""


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "seats"), TABLES)
def test_fast_levels_play_legal_matches(preset: str, seats: int) -> None:
    rules = RULES[preset]
    rng = random.Random(f"{preset}-{seats}")
    actions = 0
    played = dict.fromkeys(LEVELS[:3], 0)
    for _ in range(MATCHES_PER_TABLE):
        levels = [rng.choice(LEVELS[:3]) for _ in range(seats)]
        seed = rng.randbytes(32)
        record = play_match(rules, levels, seed, [rng.getrandbits(32) for _ in range(seats)])
        actions += record.actions
        assert sum(record.wins) == pytest.approx(1.0)
        assert record.rounds >= 1
        for level in set(levels):
            played[level] += 1
    assert actions > 20 * MATCHES_PER_TABLE
    assert min(played.values()) > MATCHES_PER_TABLE // 3, played


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["classic-1", "classic-knock", "three-rounds"])
def test_expert_plays_legal_matches(preset: str) -> None:
    rules = RULES[preset]
    seats = 2 if preset == "classic-1" else 3
    rng = random.Random(preset)
    levels = ["expert"] + [rng.choice(LEVELS) for _ in range(seats - 1)]
    # A smaller search budget than the default keeps the test quick; the moves
    # searched are the same kinds.
    options = {"expert": {"playouts": 24}}
    record = play_match(rules, levels, rng.randbytes(32), [1, 2, 3][:seats], options=options)
    assert sum(record.wins) == pytest.approx(1.0)


def recorder(into: list[Action]) -> Callable[[Game, Action], None]:
    """An ``on_action`` callback that keeps the actions in ``into``."""
    return lambda _game, action: into.append(action)


@pytest.mark.slow
def test_same_seed_same_match() -> None:
    rules = Rules.classic(point_limit=1)
    seed = bytes(range(32))
    runs: list[list[Action]] = [[], []]
    for applied in runs:
        play_match(
            rules,
            ["strong", "expert"],
            seed,
            [5, 6],
            on_action=recorder(applied),
            options={"expert": {"playouts": 24, "time_cap": None}},
        )
    assert runs[0] == runs[1]


@pytest.mark.slow
def test_strong_makes_every_kind_of_decision() -> None:
    """Draw from either pile, lay, lay off, exchange jokers, knock and discard:
    the bot answers every decision the engine asks of a seat."""
    rules = Rules.classic(point_limit=50, knock=True)
    rng = random.Random(11)
    kinds: set[str] = set()
    sources: set[str] = set()

    def note(game: object, action: Action) -> None:
        kinds.add(action.type)
        if isinstance(action, Draw):
            sources.add(action.source)

    for _ in range(12):
        play_match(
            rules, ["strong", "strong", "strong"], rng.randbytes(32), [1, 2, 3], on_action=note
        )
    assert {"draw", "lay", "lay_off", "exchange_joker", "knock", "discard"} <= kinds
    assert sources == {"stock", "discard"}
