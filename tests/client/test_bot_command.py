"""``romme bot`` as a real subprocess against a real server: it opens a table and
plays it to the end, two of them find each other, and one killed with SIGKILL in
the middle of a game and started again takes its seat back and finishes the game."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from romme.cli import main
from romme.client import Client
from romme.client.command import default_nickname
from tests.server.conftest import ServerFactory
from tests.server.helpers import ServerProcess
from tests.server.verify import check_log

from .conftest import game_log, nickname

GAME_OVER = re.compile(r"table (\d+): game over; winners ([\d ]+); totals")


class BotProcess:
    """``python -m romme bot ...``, its output in a file."""

    def __init__(
        self, server: ServerProcess, workdir: Path, *args: str, env: dict[str, str] | None = None
    ) -> None:
        self.log_path = workdir / f"bot-{time.monotonic_ns()}.log"
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "romme", "bot", "--server", server.base, *args],
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**os.environ, **(env or {})},
            )

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for(self, pattern: str, timeout: float = 60) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(pattern, self.output())
            if found is not None:
                return found
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"no {pattern!r} in the bot's output:\n{self.output()}")

    def finish(self, timeout: float = 120) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise AssertionError(f"the bot did not finish:\n{self.output()}") from None

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)


BotStarter = Callable[..., BotProcess]


@pytest.fixture
def start_bot(tmp_path: Path) -> Iterator[BotStarter]:
    """Start ``romme bot`` against a server; every one still running is killed at the end."""
    started: list[BotProcess] = []

    def start(server: ServerProcess, *args: str, env: dict[str, str] | None = None) -> BotProcess:
        bot = BotProcess(server, tmp_path, *args, env=env)
        started.append(bot)
        return bot

    yield start
    for bot in started:
        bot.kill()


def as_guest(tmp_path: Path, prefix: str) -> list[str]:
    """A new guest nickname and the file of its session."""
    name = nickname(prefix)
    return ["--nickname", name, "--session-file", str(tmp_path / f"{name}.session")]


def ended_games(bot: BotProcess, server: ServerProcess) -> list[int]:
    """The tables of the games the bot reported, each checked against the server's log."""
    tables = []
    for table, winners in GAME_OVER.findall(bot.output()):
        check_log(game_log(server, int(table)), [int(seat) for seat in winners.split()])
        tables.append(int(table))
    return tables


def test_a_killed_bot_started_again_resumes_its_seat(
    make_server: ServerFactory, tmp_path: Path, start_bot: BotStarter
) -> None:
    # Computer opponents that take their time, so that the game is still on when
    # the bot is killed; the turn time (30 s) is longer than the restart takes.
    server = make_server(bot_delay=0.3)
    guest = as_guest(tmp_path, "res")
    args = [*guest, "--level", "casual", "--limit", "1", "--fill", "beginner", "--wait", "0"]
    args += ["--no-join", "--games", "1"]

    async def watch_until_killed(first: BotProcess, table: int) -> int | None:
        """Kill the bot once the game is under way; the version then, or ``None`` if
        the deal ended the game first (a seat out at its first turn)."""
        async with Client(server.base) as spectator:
            await spectator.login_guest(nickname("spec"))
            await spectator.connect()
            state = await spectator.watch_table(table)
            await spectator.wait_for(
                lambda: (state.version or 0) >= 4 or state.game_over is not None, timeout=30
            )
            if state.game_over is not None:
                return None
            first.kill()
            await asyncio.sleep(0.5)
            assert state.game_over is None, "the game ended before the bot was killed"
            return state.version or 0

    for _attempt in range(3):
        first = start_bot(server, *args)
        table = int(first.wait_for(r"table (\d+): playing seat 0").group(1))
        killed_at = asyncio.run(watch_until_killed(first, table))
        if killed_at is not None:
            break
        assert first.finish() == 0, first.output()
    else:
        raise AssertionError("three deals in a row ended the game at once")
    assert first.proc.returncode == -signal.SIGKILL
    again = start_bot(server, *args)
    assert again.finish() == 0, again.output()
    output = again.output()
    assert f"table {table}: resumed at seat 0 (playing)" in output
    assert "opened" not in output
    assert ended_games(again, server) == [table]
    log = game_log(server, table)
    assert log["seats"][0]["nickname"] == guest[1]
    # After the restart the seat was played by the bot itself, not by the server.
    after = [a for a in log["actions"][killed_at:] if a.get("seat") == 0]
    assert any("by" not in action for action in after), after


def test_two_bots_meet_at_one_table(
    shared_server: ServerProcess, tmp_path: Path, start_bot: BotStarter
) -> None:
    server = shared_server
    guest = as_guest(tmp_path, "host")
    account = nickname("acct")
    first = start_bot(server, *guest, "--level", "beginner", "--limit", "1", "--games", "1")
    opened = int(first.wait_for(r"table (\d+): opened, waiting for players").group(1))
    # The second one has an account, made on the way (the password from the environment).
    second = start_bot(
        server,
        *("--nickname", account, "--register", "--level", "strong", "--games", "1"),
        env={"ROMME_BOT_PASSWORD": "a-password-for-tests"},
    )
    assert second.finish() == 0, second.output()
    assert first.finish() == 0, first.output()
    assert f"table {opened}: joined at seat 1" in second.output()
    assert "(account)" in second.output() and "(guest)" in first.output()
    assert ended_games(first, server) == ended_games(second, server) == [opened]
    log = game_log(server, opened)
    assert [seat["nickname"] for seat in log["seats"]] == [guest[1], account]

    # A wrong password is refused with the server's reason, and nothing is played.
    (tmp_path / "wrong").write_text("not-the-password\n")
    wrong = start_bot(
        server,
        "--nickname",
        account,
        "--password-file",
        str(tmp_path / "wrong"),
        "--level",
        "casual",
    )
    assert wrong.finish() == 1
    assert "bad_credentials" in wrong.output() and "Traceback" not in wrong.output()


def test_several_tables_at_once(
    shared_server: ServerProcess, tmp_path: Path, start_bot: BotStarter
) -> None:
    both = start_bot(
        shared_server,
        *as_guest(tmp_path, "two"),
        *("--level", "casual+40", "--limit", "1", "--tables", "2", "--games", "2"),
        *("--no-join", "--fill", "beginner+50", "--wait", "0"),
    )
    both.wait_for(r"table (\d+): playing seat 0[\s\S]*table (\d+): playing seat 0")
    assert both.finish() == 0, both.output()
    tables = ended_games(both, shared_server)
    assert len(set(tables)) == len(tables) == 2, both.output()
    # Levels between the named ones are taken, for the bot itself and for --fill.
    for table in tables:
        assert [seat["bot"] for seat in game_log(shared_server, table)["seats"]] == [
            None,
            "beginner+50",
        ]


def test_a_level_between_the_named_ones_is_taken_and_named(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert default_nickname("strong") == "StrongBot"
    assert default_nickname("casual+40") == "Casual40Bot"
    with pytest.raises(SystemExit):
        main(["bot", "--server", "http://127.0.0.1:9", "--level", "expert+10"])
    assert "unknown level 'expert+10'" in capsys.readouterr().err


def test_sigterm_stops_a_bot_quietly(
    shared_server: ServerProcess, tmp_path: Path, start_bot: BotStarter
) -> None:
    waiting = start_bot(
        shared_server, *as_guest(tmp_path, "term"), "--level", "casual", "--no-join"
    )
    waiting.wait_for(r"table \d+: opened, waiting for players")
    waiting.proc.send_signal(signal.SIGTERM)
    assert waiting.finish(timeout=15) == 0, waiting.output()
    assert "Traceback" not in waiting.output()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--tables", "0"], "--tables must be at least 1"),
        (["--games", "0"], "--games must be at least 1"),
        (["--wait", "-1"], "--wait cannot be negative"),
        (["--password-file", "/nonexistent/file"], "cannot read --password-file"),
    ],
)
def test_options_that_cannot_work_are_refused(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["bot", "--server", "http://127.0.0.1:9", "--level", "casual", *argv])
    assert status == 2
    assert message in capsys.readouterr().err


def test_a_server_url_that_is_no_url_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bot", "--server", "ftp://example.org", "--level", "casual"]) == 2
    assert "not a server URL" in capsys.readouterr().err
