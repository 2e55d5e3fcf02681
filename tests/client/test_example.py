"""examples/table_bot.py, run as a program, plays whole games against the server's
own computer opponents over the protocol, and each result it reports is the one
the server stored and the replayed game gives."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.server.helpers import ROOT, ServerProcess
from tests.server.verify import check_log

from .conftest import game_log, nickname

REPORT = re.compile(r"^table (\d+): winners ([\d ]+); totals ([\d ]+)$", re.MULTILINE)


@pytest.mark.parametrize("level", ["casual", "plain"])
def test_the_example_bot_plays_whole_games(shared_server: ServerProcess, level: str) -> None:
    name = nickname("ex")
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples" / "table_bot.py"),
            "--server",
            shared_server.base,
            "--nickname",
            name,
            "--level",
            level,
            "--games",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    reports = REPORT.findall(done.stdout)
    assert len(reports) == 2, done.stdout
    for table, winners, totals in reports:
        log = game_log(shared_server, int(table))
        game = check_log(log, [int(seat) for seat in winners.split()])
        assert game.totals == [int(total) for total in totals.split()]
        assert log["seats"][0]["nickname"] == name
        assert [seat["bot"] for seat in log["seats"]] == [None, "beginner"]
        # The example played its own seat: no move of seat 0 came from the server.
        mine = [action for action in log["actions"] if action.get("seat") == 0]
        assert mine and all("by" not in action for action in mine)


def test_the_example_bot_says_when_the_server_is_not_there() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "table_bot.py"), "--server", "http://127.0.0.1:9"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "unreachable" in done.stderr and "Traceback" not in done.stderr
