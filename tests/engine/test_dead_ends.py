"""Every state of a turn can go on: over random legal games of both presets, the
player to move always has a legal action, and the move the server plays when the
turn time runs out is accepted (see :mod:`tests.engine.dead_ends`; the benchmark
``bench/bench_dead_ends.py`` runs the same walk over many more games).

Each preset plays 300 seeded games, in three batches of 100 (separate tests, so
that each stays well within the suite's time limit and they may run in parallel).
"""

from __future__ import annotations

import hashlib
import random

import pytest

from romme.engine.rules import PRESETS

from .dead_ends import table_for, walk_game

GAMES = 300
BATCH = 100


@pytest.mark.slow
@pytest.mark.parametrize("first", range(0, GAMES, BATCH), ids=lambda n: f"games{n}+")
@pytest.mark.parametrize("preset", PRESETS)
def test_every_state_of_a_turn_has_a_legal_action_and_an_accepted_timeout_move(
    preset: str, first: int
) -> None:
    rng = random.Random(f"dead-ends:{preset}:{first}")
    states = exchanges = pending = 0
    for n in range(first, first + BATCH):
        rules, seats = table_for(preset, rng)
        seed = hashlib.sha256(f"dead-ends:{preset}:{n}".encode()).digest()
        walk = walk_game(rules, seats, seed, rng)  # raises DeadEnd with a replay
        states += walk.states
        exchanges += walk.exchanges
        pending += walk.pending_joker_states
    # The walk went where dead ends hide: long games with many joker exchanges, and
    # in three-rounds many states with an exchanged joker still to be played.
    assert states > 50 * BATCH
    assert exchanges > BATCH
    if preset == "three-rounds":
        assert pending > BATCH
