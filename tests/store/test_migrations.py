"""Migrations: ``Store.open`` creates or upgrades the schema on both backends, from
any working directory, and the migrated schema is exactly the models'."""

from __future__ import annotations

import asyncio
import doctest
import importlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, inspect, text

from romme.store import Store, StoreError
from romme.store.database import DEFAULT_URL, make_engine, normalise_url, writer
from romme.store.lookalikes import skeleton
from romme.store.migrate import MIGRATIONS, alembic_config
from romme.store.models import Base

from .helpers import FAST_HASHER, create_pg_database, drop_pg_database

TABLES = {
    "players",
    "game_tables",
    "table_actions",
    "game_results",
    "game_seats",
    "sessions",
    "chat_messages",
    "invitations",
    "rate_counters",
    "friendships",
    "blocks",
    "reports",
    "moderators",
    "sanctions",
    "moderation_log",
    "game_analyses",
    "player_statistics",
    "chip_accounts",
    "chip_movements",
    "sanction_links",
    "browser_marks",
}


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database with nothing in it, only for this test."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'empty.db'}"
        return
    url = create_pg_database("romme_store_migration")
    yield url
    drop_pg_database(url)


def _state(connection: Connection) -> dict[str, Any]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return {
        "revision": context.get_current_revision(),
        "tables": set(inspect(connection).get_table_names()),
        "diff": compare_metadata(context, Base.metadata),
    }


async def _inspect(store: Store) -> dict[str, Any]:
    async with store._engine.connect() as connection:
        return await connection.run_sync(_state)


def _head() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


@pytest.mark.asyncio
async def test_migrations_from_empty(empty_url: str) -> None:
    store = await Store.open(empty_url, password_hasher=FAST_HASHER)
    try:
        state = await _inspect(store)
        assert state["revision"] == _head() == "r0011"
        assert state["tables"] == TABLES | {"alembic_version"}
        assert state["diff"] == [], "the migrations and the models differ"
        assert await store.ping()
    finally:
        await store.close()
    again = await Store.open(empty_url)  # an up-to-date database is left alone
    try:
        assert (await _inspect(again))["revision"] == "r0011"
    finally:
        await again.close()


@pytest.mark.asyncio
async def test_downgrade_to_nothing_and_up_again(empty_url: str) -> None:
    store = await Store.open(empty_url, password_hasher=FAST_HASHER)
    try:

        def down(connection: Connection) -> None:
            command.downgrade(alembic_config(connection=connection), "base")

        async with store._engine.begin() as connection:
            await connection.run_sync(down)
        state = await _inspect(store)
        assert state["revision"] is None and state["tables"] == {"alembic_version"}
    finally:
        await store.close()
    store = await Store.open(empty_url, password_hasher=FAST_HASHER)
    try:
        assert (await _inspect(store))["diff"] == []
        await store.create_guest("Anna")
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_concurrent_opens_of_a_new_database(empty_url: str) -> None:
    stores = await asyncio.gather(*(Store.open(empty_url) for _ in range(3)))
    try:
        assert all([await s.ping() for s in stores])
    finally:
        for store in stores:
            await store.close()


@pytest.mark.asyncio
async def test_default_url_is_a_file_under_var(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    store = await Store.open()
    try:
        assert store.url == DEFAULT_URL
        assert (tmp_path / "var" / "romme.db").is_file()
        anna = await store.create_guest("Anna")
        assert await store.find_player("anna") == anna
        assert "romme.db" in repr(store)
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_sqlite_uses_wal_and_foreign_keys(tmp_path: Path) -> None:
    store = await Store.open(f"sqlite:///{tmp_path / 'a' / 'b' / 'romme.db'}")
    try:
        assert store.url.startswith("sqlite+aiosqlite:///")
        async with store._engine.connect() as connection:
            journal = (await connection.exec_driver_sql("PRAGMA journal_mode")).scalar()
            foreign = (await connection.exec_driver_sql("PRAGMA foreign_keys")).scalar()
            synchronous = (await connection.exec_driver_sql("PRAGMA synchronous")).scalar()
        assert (journal, foreign, synchronous) == ("wal", 1, 2)  # 2: FULL
        # The writer thread's own connection (the moves, the leases) is set up alike.
        assert await store._sqlite_writer.run(_pragmas) == ("wal", 1, 2)
    finally:
        await store.close()


def _pragmas(connection: sqlite3.Connection) -> tuple[Any, ...]:
    return tuple(
        connection.execute(f"PRAGMA {name}").fetchone()[0]
        for name in ("journal_mode", "foreign_keys", "synchronous")
    )


@pytest.mark.asyncio
@pytest.mark.parametrize("url", ["sqlite+aiosqlite://", "sqlite:///:memory:"])
async def test_sqlite_needs_a_file(url: str) -> None:
    with pytest.raises(ValueError, match="SQLite needs a file"):
        await Store.open(url)


@pytest.mark.asyncio
async def test_sqlite_commits_may_leave_the_disk_to_the_checkpoint(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'romme.db'}"
    store = await Store.open(url, sqlite_synchronous="normal")
    try:
        await store.create_guest("anna")
        async with store._engine.connect() as connection:
            synchronous = (await connection.exec_driver_sql("PRAGMA synchronous")).scalar()
        assert synchronous == 1  # NORMAL, on every connection of the store
        assert (await store._sqlite_writer.run(_pragmas))[2] == 1
    finally:
        await store.close()
    with pytest.raises(ValueError, match="full, normal"):
        await Store.open(url, sqlite_synchronous="off")


@pytest.mark.asyncio
async def test_ping_reports_a_dead_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'romme.db'}")
    try:
        assert await store.ping() is True

        class Broken:
            def connect(self) -> Any:
                raise OSError("the disk is gone")

        monkeypatch.setattr(store, "_engine", Broken())
        assert await store.ping() is False
    finally:
        monkeypatch.undo()
        await store.close()


def test_normalise_url() -> None:
    assert normalise_url("postgres://u:p@h/db") == "postgresql+asyncpg://u:p@h/db"
    assert normalise_url("postgresql://u:p@h:5/db") == "postgresql+asyncpg://u:p@h:5/db"
    assert normalise_url("postgresql+asyncpg://u:p@h/db") == "postgresql+asyncpg://u:p@h/db"
    assert normalise_url("sqlite:///x.db") == "sqlite+aiosqlite:///x.db"
    with pytest.raises(ValueError, match="SQLite or PostgreSQL"):
        normalise_url("mysql://u:p@h/db")


def test_migrations_ship_inside_the_package() -> None:
    package = importlib.import_module("romme.store").__file__
    assert package is not None and MIGRATIONS.parent == Path(package).parent
    assert (MIGRATIONS / "env.py").is_file()
    assert (MIGRATIONS / "script.py.mako").is_file()
    assert sorted(p.name for p in (MIGRATIONS / "versions").glob("r*.py")) == [
        "r0001_initial.py",
        "r0002_sessions_limits_skeletons.py",
        "r0003_friends_blocks.py",
        "r0004_moderation.py",
        "r0005_analysis.py",
        "r0006_stats.py",
        "r0007_chips.py",
        "r0008_cluster.py",
        "r0009_sanction_identity.py",
        "r0010_economy.py",
        "r0011_soft_play.py",
    ]


@pytest.mark.parametrize(
    "name",
    [
        "romme.store.accounts",
        "romme.store.ratings",
        "romme.store.records",
        "romme.store.errors",
        "romme.store.levels",
        "romme.store.outcome",
    ],
)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
    assert result.attempted > 0


def test_alembic_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    from romme.store.migrations.__main__ import main

    monkeypatch.setenv("ROMME_DB_URL", f"sqlite:///{tmp_path / 'new' / 'romme.db'}")
    main(["upgrade", "head"])
    main(["current"])
    assert "r0011 (head)" in capfd.readouterr().out


@pytest.mark.asyncio
async def test_the_migration_gives_existing_players_their_skeletons(empty_url: str) -> None:
    engine = make_engine(empty_url)

    def to_r0001(connection: Connection) -> None:
        command.upgrade(alembic_config(connection=connection), "r0001")
        connection.execute(
            text(
                "INSERT INTO players (nickname, nickname_key, guest, is_bot, mu, sigma, rating,"
                " games_played, games_won, created_at) VALUES"
                " ('ＡＮＮＡ', 'ａｎｎａ', true, false, 25, 8, 0, 0, 0, CURRENT_TIMESTAMP)"
            )
        )

    try:
        async with writer(engine).begin() as connection:
            await connection.run_sync(to_r0001)
    finally:
        await engine.dispose()
    store = await Store.open(empty_url, password_hasher=FAST_HASHER)
    try:
        async with store._engine.connect() as connection:
            stored = (
                await connection.execute(text("SELECT nickname_skeleton FROM players"))
            ).scalar_one()
        assert stored == skeleton("anna")
        with pytest.raises(StoreError) as info:
            await store.create_guest("Anna")
        assert info.value.code == "nickname_confusable"
    finally:
        await store.close()
