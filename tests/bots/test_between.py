"""Levels between the named ones (``casual+40``) and the rating each player meets.

A mixed level plays each whole turn as one of its two levels, the level above
for about its share of the turns; Play now's choice of level from a rating is the
same in Python (``romme.bots.rating``) and in the browser (``lobby/strength.js``),
and the calibration it rests on is what the server's own rating function gives.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path

import pytest

from romme.bots import LEVELS, is_level, make_bot
from romme.bots.between import BetweenBot
from romme.bots.rating import LEVEL_RATINGS, level_for_rating, rating_of_level
from romme.engine.actions import Action
from romme.engine.game import Game
from romme.engine.reference import play_game
from romme.engine.rules import Rules
from romme.engine.view import SeatView

ROOT = Path(__file__).resolve().parents[2]
NODE = "/usr/bin/node"


@pytest.mark.parametrize(
    ("level", "valid"),
    [
        ("casual", True),
        ("beginner+1", True),
        ("casual+40", True),
        ("strong+99", True),
        ("casual+0", False),
        ("casual+100", False),
        ("casual+05", False),
        ("casual+", False),
        ("expert+10", False),  # nothing above the expert
        ("Casual+10", False),
        ("grandmaster+10", False),
        (" casual+10", False),
        (40, False),
        (None, False),
    ],
)
def test_which_levels_exist(level: object, valid: bool) -> None:
    assert is_level(level) is valid
    if valid:
        assert isinstance(level, str) and make_bot(level, 1).level == level
    else:
        with pytest.raises((ValueError, TypeError)):
            make_bot(level, 1)  # type: ignore[arg-type]


def test_a_mixed_level_plays_whole_turns_of_either_level() -> None:
    mixed = make_bot("casual+40", seed=5)
    assert isinstance(mixed, BetweenBot)
    casual, strong = make_bot("casual", 5), make_bot("strong", 5)
    turns: dict[tuple[str, int], set[bool]] = {}
    differ = 0

    def decide(view: SeatView) -> Action | None:
        nonlocal differ
        upper = mixed.plays_upper(view)
        expected = (strong if upper else casual).decide(view)
        other = (casual if upper else strong).decide(view)
        differ += expected != other
        action = mixed.decide(view)
        assert action == expected
        if view.current == view.seat and view.phase in ("draw", "play"):
            turn = sum(1 for e in view.history if e.seat == view.seat and e.move == "discard")
            turns.setdefault((view.commitment, turn), set()).add(upper)
        return action

    for deal in range(6):
        game = Game.start(Rules.classic(point_limit=1), 2, bytes([deal]) * 32)
        play_game(game, [decide, make_bot("casual", deal).decide], max_actions=5000)
    # Every decision of a turn was made by the same level, and the levels differ
    # often enough that this says something.
    assert all(len(levels) == 1 for levels in turns.values())
    assert differ > 20
    upper_share = sum(1 for levels in turns.values() if True in levels) / len(turns)
    assert 0.25 < upper_share < 0.55, upper_share


def test_the_share_of_turns_follows_the_percent() -> None:
    game = Game.start(Rules.classic(point_limit=1), 2, b"\x07" * 32)
    view = game.view_for(0)
    for percent in (10, 50, 90):
        bots = [make_bot(f"beginner+{percent}", seed) for seed in range(2000)]
        share = sum(bot.plays_upper(view) for bot in bots if isinstance(bot, BetweenBot)) / 2000
        assert abs(share - percent / 100) < 0.04, (percent, share)


def test_the_rating_picks_a_level_in_order() -> None:
    ratings = range(1500, 2200, 3)
    chosen = [level_for_rating(r) for r in ratings]
    assert chosen[0] == LEVELS[0] and chosen[-1] == LEVELS[-1]
    assert level_for_rating(LEVEL_RATINGS["strong"]) == "strong"
    assert {level_for_rating(LEVEL_RATINGS["casual"] + 45)} <= {"casual+40", "casual+50"}
    placed = [rating_of_level(level) for level in chosen]
    assert placed == sorted(placed)  # a stronger player never meets a weaker level
    assert all(is_level(level) for level in chosen)
    steps = {level.partition("+")[2] for level in chosen} - {""}
    assert steps == {str(p) for p in range(10, 100, 10)}
    for rating, level in zip(ratings, chosen, strict=True):
        if LEVEL_RATINGS["beginner"] < rating < LEVEL_RATINGS["expert"]:
            assert abs(rating_of_level(level) - rating) < 10, (rating, level)


def test_the_browser_picks_the_same_level() -> None:
    ratings = [1400, 1500, 1759, *range(1750, 2070, 1), 2059, 2400]
    script = (
        "import { levelForRating } from "
        f"{json.dumps((ROOT / 'romme/web/js/lobby/strength.js').as_uri())};\n"
        f"console.log(JSON.stringify({json.dumps(ratings)}.map(levelForRating)));\n"
    )
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", script],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(done.stdout) == [level_for_rating(r) for r in ratings]


def test_the_calibration_is_what_the_server_ratings_give() -> None:
    spec = importlib.util.spec_from_file_location("calibrate", ROOT / "bench/calibrate_levels.py")
    assert spec is not None and spec.loader is not None
    calibrate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(calibrate)
    settled = calibrate.settled_ratings(calibrate.LADDER, runs=4, games=2500, seed=7)
    for level, rating in LEVEL_RATINGS.items():
        assert abs(settled[level] - rating) < 20, (level, settled[level], rating)
    assert list(LEVEL_RATINGS) == list(LEVELS)
