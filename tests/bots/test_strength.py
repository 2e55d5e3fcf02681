"""A small fixed-seed tournament shows the order of strength.

The full ladder (2,000 games per pair) is a benchmark (``bench/bench_bots.py``);
here a few hundred seat-rotated single rounds must already put each level
clearly above the one below, by a margin these game counts can detect.
"""

from __future__ import annotations

import pytest

from romme.bots import make_bot
from romme.bots.tournament import run_tournament, wilson_interval
from romme.engine.rules import Rules

SINGLE_ROUND = Rules.classic(point_limit=1)


@pytest.mark.parametrize(("upper", "lower"), [("casual", "beginner"), ("strong", "casual")])
def test_each_level_beats_the_one_below(upper: str, lower: str) -> None:
    result = run_tournament(SINGLE_ROUND, [upper, lower], games=300, seed=2024)
    stats = result.stats[upper]
    low, _ = stats.interval()
    assert stats.seat_games == 300
    assert low > 0.5, result.report()


def test_expert_beats_casual() -> None:
    # A small search budget keeps the test quick; no wall-clock cap keeps it exact.
    options = {"expert": {"playouts": 16, "time_cap": None}}
    result = run_tournament(SINGLE_ROUND, ["expert", "casual"], games=40, seed=7, options=options)
    stats = result.stats["expert"]
    assert stats.win_rate > 0.55, result.report()


def test_wilson_interval() -> None:
    low, high = wilson_interval(60, 100)
    assert low == pytest.approx(0.502, abs=0.001) and high == pytest.approx(0.691, abs=0.001)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_make_bot_seeds_are_independent() -> None:
    assert make_bot("beginner", 1).seed == 1
