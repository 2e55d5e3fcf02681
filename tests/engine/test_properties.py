"""Properties over random legal matches of 2, 3 and 4 seats and both presets.

* the 110 cards are always all there exactly once;
* no view holds a foreign card (a view does not change when hidden cards do);
* replay from (rules, seed, actions) reproduces the state;
* an illegal action changes nothing;
* every listed legal action is accepted.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from romme.engine.actions import (
    Action,
    Arrange,
    Discard,
    Draw,
    ExchangeJoker,
    Knock,
    Lay,
    LayOff,
    NextRound,
)
from romme.engine.cards import shoe
from romme.engine.errors import IllegalAction, InvalidMeld
from romme.engine.game import Game, Phase
from romme.engine.reference import reference_action
from romme.engine.rules import Rules

SHOE = Counter(shoe())
ALL_CARDS = sorted(set(shoe()))

RULES = {
    "classic": Rules.classic(point_limit=60),
    "classic-knock": Rules.classic(point_limit=60, knock=True, max_restocks=1),
    "three-rounds": Rules.three_rounds(rounds=2),
}


def random_action(game: Game, rng: random.Random) -> Action:
    """A random action, most often illegal, sometimes not."""
    seat = rng.randrange(-1, game.seats + 1)
    card = rng.choice(ALL_CARDS)
    hand = game.hands[seat] if 0 <= seat < game.seats and game.hands[seat] else [card]
    if rng.random() < 0.5:
        card = rng.choice(hand)
    meld = rng.randrange(-1, len(game.melds) + 2)
    choice = rng.randrange(8)
    if choice == 0:
        return Draw(seat, rng.choice(["stock", "discard"]))
    if choice == 1:
        size = rng.randrange(1, 5)
        return Lay(seat, (tuple(rng.choice(hand) for _ in range(size)),))
    if choice == 2:
        return LayOff(seat, card, meld, rng.choice([None, "low", "high"]))
    if choice == 3:
        return ExchangeJoker(seat, card, meld, rng.choice([None, 0, 1, 2]))
    if choice == 4:
        return Discard(seat, card)
    if choice == 5:
        return Knock(seat)
    if choice == 6:
        return Arrange(
            seat, tuple(rng.sample(hand, len(hand))) + ((card,) if rng.random() < 0.5 else ())
        )
    return NextRound()


def assert_illegal_changes_nothing(game: Game, action: Action) -> None:
    before = json.dumps(game.to_json())
    trial = game.clone()
    try:
        trial.apply(action)
    except (IllegalAction, InvalidMeld) as error:
        assert error.code and error.message
        assert json.dumps(trial.to_json()) == before, f"{action} changed the state"
        assert json.dumps(game.to_json()) == before


def assert_views_hide_foreign_cards(game: Game, rng: random.Random) -> None:
    for seat in [*range(game.seats), None]:
        view = game.view_for(seat)
        if seat is not None:
            assert list(view.hand) == game.hands[seat]
        else:
            assert view.hand == ()
        # Shuffle every card this seat cannot see among the places it cannot see.
        other = game.clone()
        hidden_places = [s for s in range(game.seats) if s != seat]
        pool = [c for s in hidden_places for c in other.hands[s]] + other.stock
        rng.shuffle(pool)
        for s in hidden_places:
            size = len(other.hands[s])
            other.hands[s], pool = pool[:size], pool[size:]
        other.stock = pool
        assert other.view_for(seat) == view


def play_random_match(
    rules: Rules, seats: int, seed: bytes, rng: random.Random, greed: float, max_steps: int = 1500
) -> tuple[Game, list[Action]]:
    game = Game(rules, seats, seed)
    actions: list[Action] = []
    for step in range(max_steps):
        if game.is_over:
            break
        assert_illegal_changes_nothing(game, random_action(game, rng))
        if game.phase in (Phase.NOT_STARTED, Phase.ROUND_OVER):
            action: Action | None = NextRound()
        else:
            movers = [*game.knock_seats(), game.current]
            seat = rng.choice(movers)
            legal = game.legal_actions(seat)
            # Every listed action is accepted.
            probe = rng.choice(legal) if legal else None
            if probe is not None:
                game.clone().apply(probe)
            if seat != game.current and rng.random() < 0.7:
                seat = game.current
                legal = game.legal_actions(seat)
            if rng.random() < greed:
                action = reference_action(game.view_for(seat))
            else:
                action = rng.choice(legal) if legal else None
            if action is None:
                action = reference_action(game.view_for(game.current))
        assert action is not None
        game.apply(action)
        actions.append(action)
        if game.round_no:
            assert game.card_count() == SHOE
        if step % 7 == 0:
            assert_views_hide_foreign_cards(game, rng)
    return game, actions


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seats=st.sampled_from([2, 3, 4]),
    preset=st.sampled_from(sorted(RULES)),
    seed=st.binary(min_size=32, max_size=32),
    choices=st.integers(0, 2**32),
    greed=st.sampled_from([0.6, 0.9]),
)
def test_random_legal_matches_keep_every_invariant(
    seats: int, preset: str, seed: bytes, choices: int, greed: float
) -> None:
    rules = RULES[preset]
    game, actions = play_random_match(rules, seats, seed, random.Random(choices), greed)
    replayed = Game.replay(rules, seats, seed, actions)
    assert replayed.to_json() == game.to_json()
    from_json = Game.from_json(json.loads(json.dumps(game.to_json())))
    assert from_json.to_json() == game.to_json()


@settings(max_examples=10, deadline=None)
@given(
    seats=st.sampled_from([2, 3, 4]),
    preset=st.sampled_from(sorted(RULES)),
    seed=st.binary(min_size=32, max_size=32),
)
def test_reference_players_finish_games(seats: int, preset: str, seed: bytes) -> None:
    from romme.engine.reference import play_game

    rules = RULES[preset]
    game = Game(rules, seats, seed)
    actions = play_game(game)
    assert game.is_over and game.winners
    assert all(game.active[w] for w in game.winners) or rules.scoring == "rounds"
    assert Game.replay(rules, seats, seed, actions).to_json() == game.to_json()
    for result in game.results:
        assert sum(result.penalties) >= 0
        if result.winner is not None:
            assert result.penalties[result.winner] == 0
