"""``romme serve`` refuses an option value it does not know, with exit status 2
and the option named (argparse), never a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--sqlite-synchronous", "off"], "--sqlite-synchronous"),
        (["--sqlite-synchronous"], "--sqlite-synchronous"),
        (["--db", "sqlite+aiosqlite://"], "SQLite needs a file"),
        (["--db", "sqlite:///:memory:"], "SQLite needs a file"),
    ],
)
def test_a_bad_value_is_refused_with_the_option_named(args: list[str], named: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "romme", "serve", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and named in result.stderr
    assert "Traceback" not in result.stderr
