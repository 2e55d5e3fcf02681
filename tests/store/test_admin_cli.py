"""``romme admin`` against a real database (SQLite and PostgreSQL): grant and take
the moderator role, list the open reports, resolve one, and the log of it."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from romme.store import Store

from .helpers import FAST_HASHER


# The command line on SQLite; the moderation store it calls runs on both databases
# in tests/store/test_moderation_store.py.
@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'romme.db'}"


def admin(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "romme", "admin", "--db", url, *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


async def _players_and_a_report(url: str) -> int:
    store = await Store.open(url, password_hasher=FAST_HASHER)
    try:
        await store.register("Mona", "correct horse battery")
        anna = await store.register("Anna", "correct horse battery")
        bert = await store.create_guest("Bert")
        await store.add_chat(None, bert.id, "you ***** cheat")
        report = await store.add_report(anna.id, "bert", "cheating", "he saw my cards", None)
        return int(report["id"])
    finally:
        await store.close()


@pytest.mark.slow  # about ten `romme admin` processes
def test_grant_list_resolve_and_log(db_url: str) -> None:
    report_id = asyncio.run(_players_and_a_report(db_url))
    granted = admin(db_url, "grant-moderator", "mona")
    assert granted.returncode == 0 and "now a moderator" in granted.stdout
    assert "already a moderator" in admin(db_url, "grant-moderator", "Mona").stdout
    assert admin(db_url, "moderators").stdout.split() == ["Mona"]

    listed = admin(db_url, "reports", "--open")
    assert listed.returncode == 0
    assert f"#{report_id} open" in listed.stdout and "Anna reported Bert: cheating" in listed.stdout
    assert "chat: you ***** cheat" in listed.stdout and "note: he saw my cards" in listed.stdout

    resolved = admin(db_url, "resolve", str(report_id), "--note", "warned him")
    assert resolved.returncode == 0 and f"report #{report_id} resolved" in resolved.stdout
    assert admin(db_url, "reports", "--open").stdout == ""
    closed = [json.loads(line) for line in admin(db_url, "reports", "--json").stdout.splitlines()]
    assert [(r["id"], r["status"], r["resolved_by"], r["note"]) for r in closed] == [
        (report_id, "resolved", "shell", "warned him")
    ]
    again = admin(db_url, "resolve", str(report_id))
    assert again.returncode == 2 and "already resolved" in again.stderr

    assert admin(db_url, "revoke-moderator", "Mona").returncode == 0
    assert admin(db_url, "moderators").stdout == ""
    log = [json.loads(line) for line in admin(db_url, "log", "--json").stdout.splitlines()]
    assert [(e["actor"], e["action"], e["target"]) for e in log] == [
        ("shell", "revoke_moderator", "Mona"),
        ("shell", "resolve", "Bert"),
        ("shell", "grant_moderator", "Mona"),
    ]


def test_refusals_are_clear_and_change_nothing(db_url: str) -> None:
    asyncio.run(_players_and_a_report(db_url))
    for args, says in (
        (("grant-moderator", "nobody"), "no player"),
        (("grant-moderator", "Bert"), "only a registered player"),
        (("resolve", "999"), "no such report"),
    ):
        result = admin(db_url, *args)
        assert result.returncode == 2 and says in result.stderr, result.stderr
        assert "Traceback" not in result.stderr
    assert admin(db_url, "log").stdout == ""
