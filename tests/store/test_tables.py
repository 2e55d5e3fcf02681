"""Tables and their action logs: the log is the source of truth, so a restarted
server can rebuild every unfinished table from it."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from romme.engine.actions import Discard, Draw, NextRound, action_from_json
from romme.engine.game import Game
from romme.engine.rules import Rules
from romme.store import Store, TableRecord
from romme.store.action_log import AppendWriter
from romme.store.sqlite_appends import HOLD_AT_MOST, SqliteAppends

from .helpers import FAST_HASHER, FakeClock, refused, snapshot

SEED = bytes(range(32))
SETTINGS = {"preset": "classic", "access": "open", "seats": 2, "bots": {"1": "casual"}}
SEATS: list[dict[str, Any]] = [
    {"player": 1, "nickname": "Anna", "bot": None},
    {"player": None, "nickname": None, "bot": "casual"},
]


async def new_table(store: Store, host: str = "Anna") -> tuple[int, int]:
    player = await store.create_guest(host)
    table = await store.create_table(player.id, SETTINGS, Rules.classic().to_json(), SEATS, SEED)
    return player.id, table


@contextlib.asynccontextmanager
async def sqlite_store(path: Path, clock: FakeClock) -> AsyncIterator[Store]:
    """A new SQLite store at ``path`` (closed at the end)."""
    store = await Store.open(
        f"sqlite+aiosqlite:///{path}", password_hasher=FAST_HASHER, clock=clock
    )
    try:
        yield store
    finally:
        await store.close()


@contextlib.asynccontextmanager
async def sqlite_store_held(
    path: Path, clock: FakeClock
) -> AsyncIterator[tuple[Store, sqlite3.Connection]]:
    """A new SQLite store at ``path`` and another connection that holds SQLite's
    write lock (``BEGIN IMMEDIATE``; the test ends it with ``ROLLBACK``), so that a
    group's transaction waits in the writer's thread."""
    async with sqlite_store(path, clock) as store:
        blocker = sqlite3.connect(path, isolation_level=None)
        try:
            yield store, blocker
        finally:
            blocker.close()


async def finish(store: Store, table_id: int, host: int) -> None:
    """End ``table_id``'s game (the host against a casual computer player)."""
    bot = await store.bot_player("casual")
    await store.finish_game(
        table_id, winners=[0], totals=[0, 10], seat_players=[host, bot.id], results=[]
    )


def sqlite_appends(store: Store) -> SqliteAppends:
    """The store's appends, on SQLite (streamed to the writer thread)."""
    appends = store._appends
    assert isinstance(appends, SqliteAppends)
    return appends


def opening_actions() -> list[dict[str, object]]:
    """A real opening: the deal, a draw from the stock and the drawn card discarded."""
    game = Game(Rules.classic(), 2, SEED)
    actions: list[dict[str, object]] = []
    for action in (NextRound(), Draw(0, "stock")):
        game.apply(action)
        actions.append(action.to_json())
    discard = Discard(0, game.hands[0][-1])
    game.apply(discard)
    actions.append(discard.to_json())
    return actions


# ------------------------------------------------------------------ creating


@pytest.mark.asyncio
async def test_create_table(store: Store, clock: FakeClock) -> None:
    host, table_id = await new_table(store)
    record = await store.get_table(table_id)
    assert isinstance(record, TableRecord)
    assert (record.id, record.host_id, record.status) == (table_id, host, "waiting")
    assert record.settings == SETTINGS
    assert record.rules == Rules.classic().to_json()
    assert record.seats == SEATS
    assert record.match_seed == SEED and isinstance(record.match_seed, bytes)
    assert record.created_at.tzinfo is not None and record.created_at <= clock.now
    assert (record.actions, record.last_action_at, record.first_version) == ([], None, None)


@pytest.mark.asyncio
async def test_create_table_refusals(store: Store) -> None:
    host = await store.create_guest("Anna")
    rules = Rules.classic().to_json()
    await refused(store, "no_such_player", store.create_table(999, SETTINGS, rules, SEATS, SEED))
    await refused(store, "bad_message", store.create_table(host.id, SETTINGS, rules, SEATS, b"x"))
    await refused(store, "bad_message", store.create_table(host.id, SETTINGS, rules, SEATS, "seed"))  # type: ignore[arg-type]
    await refused(store, "bad_message", store.create_table(host.id, [], rules, SEATS, SEED))  # type: ignore[arg-type]
    await refused(
        store, "bad_message", store.create_table(host.id, {"x": float("nan")}, rules, SEATS, SEED)
    )
    await refused(
        store, "bad_message", store.create_table(host.id, {"x": object()}, rules, SEATS, SEED)
    )


@pytest.mark.asyncio
async def test_parallel_creates_stop_at_the_hosts_waiting_tables(store: Store) -> None:
    host = await store.create_guest("Anna")
    other = await store.create_guest("Ben")
    rules = Rules.classic().to_json()
    for round_no in range(10):
        results = await asyncio.gather(
            *(
                store.create_table(host.id, SETTINGS, rules, SEATS, SEED, max_waiting=3)
                for _ in range(10)
            ),
            return_exceptions=True,
        )
        made = [r for r in results if isinstance(r, int)]
        assert len(made) == 3, (round_no, results)
        assert {getattr(r, "code", None) for r in results if r not in made} == {"too_many_tables"}
        # Running and closed tables do not count; another host's are its own.
        await store.update_table(made[0], status="playing")
        for table in made[1:]:
            await store.update_table(table, status="closed")
    await store.create_table(other.id, SETTINGS, rules, SEATS, SEED, max_waiting=1)
    await refused(
        store,
        "too_many_tables",
        store.create_table(other.id, SETTINGS, rules, SEATS, SEED, max_waiting=1),
    )


@pytest.mark.asyncio
async def test_update_table(store: Store) -> None:
    _, table_id = await new_table(store)
    seats = [dict(SEATS[0]), {"player": 2, "nickname": "Bot casual", "bot": "casual"}]
    await store.update_table(table_id, seats=seats)
    record = await store.get_table(table_id)
    assert record is not None and record.seats == seats and record.status == "waiting"
    await store.update_table(table_id, status="playing")
    record = await store.get_table(table_id)
    assert record is not None and record.status == "playing" and record.seats == seats
    await store.update_table(table_id)  # nothing to change
    await store.update_table(table_id, status="closed")
    assert await store.unfinished_tables() == []


@pytest.mark.asyncio
async def test_update_table_refusals(store: Store) -> None:
    _, table_id = await new_table(store)
    await refused(store, "no_such_table", store.update_table(999, status="playing"))
    await refused(store, "bad_message", store.update_table(table_id, status="paused"))
    await refused(store, "bad_message", store.update_table(table_id, seats={"0": 1}))  # type: ignore[arg-type]
    await store.update_table(table_id, status="finished")
    await refused(store, "game_over", store.update_table(table_id, status="playing"))
    await store.update_table(table_id, status="finished")  # no change is no error


# ---------------------------------------------------------------- the log


@pytest.mark.asyncio
async def test_append_actions_in_version_order(store: Store, clock: FakeClock) -> None:
    _, table_id = await new_table(store)
    actions = opening_actions()
    await store.append_actions(table_id, 1, actions[:1])
    await store.append_actions(table_id, 2, actions[1:])
    record = await store.get_table(table_id)
    assert record is not None
    assert record.actions == actions
    assert record.first_version == 1
    assert record.last_action_at is not None and record.last_action_at <= clock.now


@pytest.mark.asyncio
async def test_actions_are_stored_verbatim(store: Store) -> None:
    _, table_id = await new_table(store)
    odd = {
        "type": "discard",
        "seat": 1,
        "card": "KS",
        "by": "timeout",
        "nested": {"list": [1, 2.5, None, True, "ü🃏"]},
    }
    await store.append_actions(table_id, 1, [odd])
    record = await store.get_table(table_id)
    assert record is not None and record.actions == [odd]


@pytest.mark.asyncio
async def test_duplicate_version_is_a_conflict_and_stores_nothing(store: Store) -> None:
    _, table_id = await new_table(store)
    actions = opening_actions()
    await store.append_actions(table_id, 1, actions[:2])
    error = await refused(
        store, "version_conflict", store.append_actions(table_id, 2, [actions[2], actions[2]])
    )
    assert "version 2" in error.message
    await refused(store, "version_conflict", store.append_actions(table_id, 1, actions))
    record = await store.get_table(table_id)
    assert record is not None and record.actions == actions[:2]


@pytest.mark.asyncio
async def test_a_gap_in_versions_is_a_conflict(store: Store) -> None:
    _, table_id = await new_table(store)
    await store.append_actions(table_id, 1, [{"type": "next_round"}])
    await refused(
        store, "version_conflict", store.append_actions(table_id, 3, [{"type": "draw", "seat": 0}])
    )


@pytest.mark.asyncio
async def test_concurrent_appends_of_one_version(store: Store) -> None:
    _, table_id = await new_table(store)
    results = await asyncio.gather(
        *(store.append_actions(table_id, 1, [{"type": "next_round", "n": n}]) for n in range(5)),
        return_exceptions=True,
    )
    assert sum(r is None for r in results) == 1
    assert all(getattr(r, "code", None) == "version_conflict" for r in results if r is not None)
    record = await store.get_table(table_id)
    assert record is not None and len(record.actions) == 1


@pytest.mark.asyncio
async def test_concurrent_appends_to_many_tables(store: Store) -> None:
    host = await store.create_guest("Anna")
    rules = Rules.classic().to_json()
    tables = [await store.create_table(host.id, SETTINGS, rules, SEATS, SEED) for _ in range(8)]

    async def play(table_id: int) -> None:
        for version in range(1, 11):
            await store.append_actions(table_id, version, [{"type": "arrange", "v": version}])

    await asyncio.gather(*(play(t) for t in tables))
    for table_id in tables:
        record = await store.get_table(table_id)
        assert record is not None
        assert [a["v"] for a in record.actions] == list(range(1, 11))


@pytest.mark.asyncio
async def test_append_actions_refusals(store: Store) -> None:
    _, table_id = await new_table(store)
    action = {"type": "next_round"}
    await refused(store, "no_such_table", store.append_actions(999, 1, [action]))
    await refused(store, "bad_message", store.append_actions(table_id, -1, [action]))
    await refused(store, "bad_message", store.append_actions(table_id, True, [action]))
    await refused(store, "bad_message", store.append_actions(table_id, 1, ["draw"]))  # type: ignore[list-item]
    await refused(
        store, "bad_message", store.append_actions(table_id, 1, [action, {"bad": float("inf")}])
    )
    await refused(store, "bad_message", store.append_actions(table_id, 1, [{"text": "nul\x00"}]))


@pytest.mark.asyncio
async def test_no_actions_after_the_game_is_finished(store: Store) -> None:
    host, table_id = await new_table(store)
    await store.append_actions(table_id, 1, [{"type": "next_round"}])
    await finish(store, table_id, host)
    await refused(store, "game_over", store.append_actions(table_id, 2, [{"type": "knock"}]))


@pytest.mark.asyncio
async def test_appends_of_many_tables_share_a_commit(store: Store) -> None:
    host = await store.create_guest("Anna")
    rules = Rules.classic().to_json()
    tables = [await store.create_table(host.id, SETTINGS, rules, SEATS, SEED) for _ in range(20)]
    before = store._appends.groups_committed
    await asyncio.gather(*(store.append_actions(t, 1, [{"type": "next_round"}]) for t in tables))
    commits = store._appends.groups_committed - before
    # The first append commits alone; the 19 that queued meanwhile share one commit.
    assert 1 <= commits <= 3
    for table_id in tables:
        record = await store.get_table(table_id)
        assert record is not None and record.actions == [{"type": "next_round"}]


@pytest.mark.asyncio
async def test_a_refused_append_does_not_hold_back_its_group(store: Store) -> None:
    host, good = await new_table(store)
    _, stale = await new_table(store, "Bert")
    _, done = await new_table(store, "Cleo")
    await store.append_actions(stale, 1, [{"type": "next_round"}])
    await finish(store, done, host)
    results = await asyncio.gather(
        store.append_actions(stale, 1, [{"type": "knock", "n": 1}]),
        store.append_actions(good, 1, [{"type": "next_round"}]),
        store.append_actions(999, 1, [{"type": "next_round"}]),
        store.append_actions(done, 1, [{"type": "next_round"}]),
        store.append_actions(good, 2, [{"type": "draw", "seat": 0}]),
        store.append_actions(good, 2, [{"type": "draw", "seat": 1}]),
        return_exceptions=True,
    )
    codes = [getattr(r, "code", r) for r in results]
    assert codes == [
        "version_conflict",
        None,
        "no_such_table",
        "game_over",
        None,
        "version_conflict",
    ]
    record = await store.get_table(good)
    assert record is not None
    assert record.actions == [{"type": "next_round"}, {"type": "draw", "seat": 0}]
    record = await store.get_table(stale)
    assert record is not None and record.actions == [{"type": "next_round"}]


@pytest.mark.asyncio
async def test_stored_is_called_once_committed_before_the_wait_ends(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """An append's ``stored`` (where a table sends its move's update) is called
    after its commit and before the append's wait ends;
    never for an append that was refused. What it raises is logged and changes
    nothing of the append's outcome."""
    _, table_id = await new_table(store)
    seen: list[str] = []
    ended: list[str] = []

    def stored(name: str) -> Any:
        def called() -> None:
            assert name not in ended
            seen.append(name)

        return called

    async def append(name: str, table: int, version: int) -> None:
        try:
            await store.append_actions(
                table, version, [{"type": "next_round"}], stored=stored(name)
            )
        finally:
            ended.append(name)

    results = await asyncio.gather(
        append("first", table_id, 1),
        append("again", table_id, 1),  # the same version: refused
        append("nowhere", 999, 1),  # no such table: refused
        append("second", table_id, 2),
        return_exceptions=True,
    )
    assert [getattr(r, "code", r) for r in results] == [
        None,
        "version_conflict",
        "no_such_table",
        None,
    ]
    assert seen == ["first", "second"]
    assert sorted(ended) == ["again", "first", "nowhere", "second"]

    def broken() -> None:
        raise RuntimeError("a table's update could not be built")

    with caplog.at_level("ERROR", logger="romme.store"):
        await store.append_actions(table_id, 3, [{"type": "next_round"}], stored=broken)
    assert "append_stored_failed" in caplog.text
    record = await store.get_table(table_id)
    assert record is not None and len(record.actions) == 3


async def traced_writes(store: Store) -> list[str]:
    """The statements the group commit of moves runs from now on: on SQLite, those of
    the writer thread's connection; on PostgreSQL, those of the connection the
    appends keep for themselves (``BEGIN;`` and ``COMMIT;`` among them)."""
    statements: list[str] = []
    if isinstance(store._appends, SqliteAppends):
        await store._sqlite_writer.run(
            lambda connection: connection.set_trace_callback(statements.append)
        )
    else:
        assert isinstance(store._appends, AppendWriter)
        driver = await store._appends._groups._kept.driver()
        driver.add_query_logger(lambda record: statements.append(record.query))
    return statements


def _begins(statement: str) -> str:
    """A statement's first word, in capitals and without a semicolon."""
    return statement.split()[0].rstrip(";").upper()


@pytest.mark.asyncio
async def test_a_group_in_order_is_one_statement(store: Store) -> None:
    host = await store.create_guest("Anna")
    rules = Rules.classic().to_json()
    tables = [await store.create_table(host.id, SETTINGS, rules, SEATS, SEED) for _ in range(8)]
    await store.append_actions(tables[0], 1, [{"type": "next_round"}])
    await store._appends.drain()  # the writer counts that group after telling it
    statements = await traced_writes(store)
    before = store._appends.groups_committed
    await asyncio.gather(
        store.append_actions(tables[0], 2, [{"type": "draw", "seat": 0}]),
        store.append_actions(tables[0], 3, [{"type": "discard", "n": 1}, {"type": "knock"}]),
        *(store.append_actions(t, 1, [{"type": "next_round"}]) for t in tables[1:]),
    )
    inserts = [s for s in statements if s.startswith("INSERT INTO table_actions")]
    # Every group was one INSERT in autocommit: no BEGIN, no read, no COMMIT.
    assert len(inserts) == store._appends.groups_committed - before >= 1
    assert not [s for s in statements if _begins(s) in ("BEGIN", "SELECT", "COMMIT")]
    record = await store.get_table(tables[0])
    assert record is not None
    assert [a["type"] for a in record.actions] == ["next_round", "draw", "discard", "knock"]
    for table_id in tables[1:]:
        record = await store.get_table(table_id)
        assert record is not None and record.actions == [{"type": "next_round"}]


@pytest.mark.asyncio
async def test_what_the_one_statement_refuses_is_judged(store: Store) -> None:
    host, good = await new_table(store)
    _, stored = await new_table(store, "Bert")
    _, done = await new_table(store, "Cleo")
    _, leased = await new_table(store, "Dora")
    await store.append_actions(stored, 1, [{"type": "next_round"}])
    await finish(store, done, host)
    epoch = await store.claim_table(leased, "node-a", 10, epoch=0)
    assert epoch is not None
    statements = await traced_writes(store)
    # Each refused append (table, first version, epoch) in a group with a good one.
    refusals = [
        ("version_conflict", stored, 1, None),  # stored already
        ("version_conflict", stored, 3, None),  # a gap
        ("game_over", done, 1, None),
        ("no_such_table", 999, 1, None),
        ("lease_lost", leased, 1, epoch + 1),
    ]
    for code, table_id, version, its_epoch in refusals:
        del statements[:]
        next_version = len(await actions_of(store, good)) + 1
        outcomes = await asyncio.gather(
            store.append_actions(good, next_version, [{}]),
            store.append_actions(table_id, version, [{"type": "knock"}], epoch=its_epoch),
            return_exceptions=True,
        )
        assert outcomes[0] is None
        assert getattr(outcomes[1], "code", outcomes[1]) == code
        # The one statement was tried, refused whole, and the group judged in a
        # transaction.
        assert any(s.startswith("INSERT INTO table_actions") for s in statements)
        assert "BEGIN" in [_begins(s) for s in statements]
    assert len(await actions_of(store, good)) == len(refusals)
    assert await actions_of(store, stored) == [{"type": "next_round"}]
    assert await actions_of(store, done) == []
    assert await actions_of(store, leased) == []


async def actions_of(store: Store, table_id: int) -> list[dict[str, Any]]:
    record = await store.get_table(table_id)
    assert record is not None
    return record.actions


_POISON = {
    "sqlite": [
        "CREATE TRIGGER poison BEFORE INSERT ON table_actions "
        "WHEN NEW.action LIKE '%poison%' BEGIN SELECT RAISE(ABORT, 'poisoned'); END"
    ],
    "postgresql": [
        "CREATE FUNCTION poison() RETURNS trigger AS $$ BEGIN "
        "IF NEW.action::text LIKE '%poison%' THEN RAISE EXCEPTION 'poisoned'; END IF; "
        "RETURN NEW; END $$ LANGUAGE plpgsql",
        "CREATE TRIGGER poison BEFORE INSERT ON table_actions "
        "FOR EACH ROW EXECUTE FUNCTION poison()",
    ],
}
"""A trigger that makes the database refuse the insert of a "poison" action."""
_CURE = {
    "sqlite": ["DROP TRIGGER poison"],
    "postgresql": ["DROP TRIGGER poison ON table_actions", "DROP FUNCTION poison()"],
}


async def _run_ddl(store: Store, statements: list[str]) -> None:
    async with store._engine.begin() as connection:
        for statement in statements:
            await connection.exec_driver_sql(statement)


@pytest.mark.asyncio
async def test_a_group_that_fails_is_retried_one_append_at_a_time(store: Store) -> None:
    host = await store.create_guest("Anna")
    rules = Rules.classic().to_json()
    tables = [await store.create_table(host.id, SETTINGS, rules, SEATS, SEED) for _ in range(5)]
    await store.append_actions(tables[0], 1, [{"type": "next_round"}])
    backend = store._engine.dialect.name
    await _run_ddl(store, _POISON[backend])
    try:
        results = await asyncio.gather(
            *(
                store.append_actions(t, 1 if t != tables[0] else 2, [{"type": "knock"}])
                for t in tables[:4]
            ),
            store.append_actions(tables[1], 7, [{"type": "knock"}]),
            # The database refuses this one: its group fails as a whole, and each
            # of its appends is tried again alone.
            store.append_actions(tables[4], 1, [{"type": "poison"}]),
            return_exceptions=True,
        )
    finally:
        await _run_ddl(store, _CURE[backend])
    codes = [getattr(r, "code", r) for r in results]
    assert codes[:4] == [None, None, None, None]
    assert codes[4] == "version_conflict"
    assert isinstance(results[5], Exception)
    for table_id in tables[:4]:
        record = await store.get_table(table_id)
        assert record is not None and record.actions[-1] == {"type": "knock"}
    record = await store.get_table(tables[4])
    assert record is not None and record.actions == []


@pytest.mark.asyncio
async def test_appends_left_by_a_stopped_writer_are_refused_not_lost(store: Store) -> None:
    host = await store.create_guest("Anna")
    rules = Rules.classic().to_json()
    tables = [await store.create_table(host.id, SETTINGS, rules, SEATS, SEED) for _ in range(3)]
    waiting = [
        asyncio.create_task(store.append_actions(t, 1, [{"type": "next_round"}])) for t in tables
    ]
    await asyncio.sleep(0)  # the appends are queued; their writer has not begun
    writer = store._appends.task
    assert writer is not None
    writer.cancel()
    results = await asyncio.wait_for(asyncio.gather(*waiting, return_exceptions=True), 10)
    assert [getattr(r, "code", r) for r in results] == ["server_busy"] * 3
    for table_id in tables:
        record = await store.get_table(table_id)
        assert record is not None and record.actions == []
    # The next append starts a new writer.
    await store.append_actions(tables[0], 1, [{"type": "next_round"}])
    record = await store.get_table(tables[0])
    assert record is not None and record.actions == [{"type": "next_round"}]


@pytest.mark.asyncio
async def test_a_commit_under_way_when_its_writer_is_cancelled_is_told_as_stored(
    tmp_path: Path, clock: FakeClock
) -> None:
    async with sqlite_store_held(tmp_path / "romme.db", clock) as (store, blocker):
        _, table_id = await new_table(store)
        # The blocker holds SQLite's write lock, so the group's transaction waits in
        # the writer's thread at BEGIN IMMEDIATE.
        blocker.execute("BEGIN IMMEDIATE")
        append = asyncio.create_task(store.append_actions(table_id, 1, [{"type": "next_round"}]))
        while not sqlite_appends(store).handed:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)  # the group is in the writer's thread
        writer = store._appends.task
        assert writer is not None
        writer.cancel()
        await asyncio.wait([writer])
        assert not append.done()  # not told "not stored" while the commit may land
        blocker.execute("ROLLBACK")
        await asyncio.wait_for(append, 30)  # stored, and told so
        record = await store.get_table(table_id)
        assert record is not None and record.actions == [{"type": "next_round"}]


@pytest.mark.asyncio
async def test_empty_append_stores_nothing(store: Store) -> None:
    _, table_id = await new_table(store)
    before = await snapshot(store)
    await store.append_actions(table_id, 1, [])
    assert await snapshot(store) == before


# ---------------------------------------------------------------- recovery


@pytest.mark.asyncio
async def test_unfinished_tables_rebuild_the_game(store: Store, clock: FakeClock) -> None:
    host, playing = await new_table(store)
    waiting = await store.create_table(host, SETTINGS, Rules.classic().to_json(), SEATS, SEED)
    closed = await store.create_table(host, SETTINGS, Rules.classic().to_json(), SEATS, SEED)
    await store.update_table(closed, status="closed")
    actions = opening_actions()
    await store.update_table(playing, status="playing")
    await store.append_actions(playing, 1, actions[:2])
    clock.advance(seconds=30)
    await store.append_actions(playing, 3, actions[2:])
    last_write = clock.now

    records = await store.unfinished_tables()
    assert [r.id for r in records] == [playing, waiting]
    record = records[0]
    assert record.status == "playing"
    assert record.actions == actions
    assert record.last_action_at == last_write
    assert records[1].actions == [] and records[1].last_action_at is None

    rebuilt = Game.replay(
        Rules.from_json(record.rules),
        2,
        record.match_seed,
        [action_from_json(a) for a in record.actions],
    )
    original = Game.replay(Rules.classic(), 2, SEED, [action_from_json(a) for a in actions])
    assert rebuilt.to_json() == original.to_json()


@pytest.mark.asyncio
async def test_tables_to_rebuild_in_bulk(store: Store, clock: FakeClock) -> None:
    """Many tables read back at once: each with its own log, its host's name and
    its own last chat lines, in three queries however many tables."""
    host, first = await new_table(store, "Anna")
    second = await store.create_table(host, SETTINGS, Rules.classic().to_json(), SEATS, SEED)
    guest = await store.create_guest("Bert")
    third = await store.create_table(guest.id, SETTINGS, Rules.classic().to_json(), SEATS, SEED)
    actions = opening_actions()
    for table_id in (first, third):
        await store.update_table(table_id, status="playing")
    await store.append_actions(first, 1, actions)
    await store.append_actions(third, 1, actions[:1])
    clock.advance(seconds=5)
    await store.append_actions(third, 2, actions[1:2])
    last_write = clock.now
    for n in range(4):
        await store.add_chat(first, host, f"line {n}")
    await store.add_chat(third, guest.id, "hi")
    await store.add_chat(None, host, "in the lobby")

    queries: list[str] = []
    listen = store._engine.sync_engine
    record_query = lambda *args: queries.append(args[2])  # noqa: E731
    event.listen(listen, "before_cursor_execute", record_query)
    try:
        rebuilt = await store.tables_to_rebuild([first, second, third], chat_lines=3)
    finally:
        event.remove(listen, "before_cursor_execute", record_query)
    assert len([q for q in queries if q.lstrip().upper().startswith("SELECT")]) == 3
    assert [t.record.id for t in rebuilt] == [first, second, third]
    assert [t.host_name for t in rebuilt] == ["Anna", "Anna", "Bert"]
    assert [[line["text"] for line in t.chat] for t in rebuilt] == [
        ["line 1", "line 2", "line 3"],
        [],
        ["hi"],
    ]
    assert rebuilt[0].chat[0]["from"] == "Anna"
    assert rebuilt[0].record == (await store.unfinished_tables([first]))[0]
    assert rebuilt[2].record.actions == actions[:2]
    assert rebuilt[2].record.first_version == 1
    assert rebuilt[2].record.last_action_at == last_write
    assert rebuilt[1].record.actions == [] and rebuilt[1].record.last_action_at is None
    assert [t.record.id for t in await store.tables_to_rebuild([second])] == [second]


@pytest.mark.asyncio
async def test_times_are_utc(db_url: str) -> None:
    """With the real clock: timestamps come back aware, in UTC, on both backends."""
    store = await Store.open(db_url)
    try:
        host = await store.create_guest("Utc" + str(id(store) % 100_000))
        before = datetime.now(UTC)
        table_id = await store.create_table(host.id, {}, {}, [], SEED)
        await store.append_actions(table_id, 1, [{"type": "next_round"}])
        record = await store.get_table(table_id)
        assert record is not None and record.last_action_at is not None
        for moment in (record.created_at, record.last_action_at):
            assert moment.utcoffset() == timedelta(0)
            assert abs((moment - before).total_seconds()) < 60
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_get_table_of_unknown_table(store: Store) -> None:
    assert await store.get_table(404) is None
    assert await store.get_table("1") is None  # type: ignore[arg-type]


@pytest.mark.asyncio
async def test_appends_that_come_while_a_group_is_written_are_the_next_group(
    tmp_path: Path, clock: FakeClock
) -> None:
    async with sqlite_store_held(tmp_path / "romme.db", clock) as (store, blocker):
        host = await store.create_guest("Anna")
        rules = Rules.classic().to_json()
        tables = [
            await store.create_table(host.id, SETTINGS, rules, SEATS, SEED) for _ in range(11)
        ]
        before = store._appends.groups_committed
        # The first group waits in the writer's thread at BEGIN IMMEDIATE while the
        # other ten come, one at a time: the thread takes them as one group.
        blocker.execute("BEGIN IMMEDIATE")
        first = asyncio.create_task(store.append_actions(tables[0], 1, [{"type": "next_round"}]))
        while not sqlite_appends(store).handed:
            await asyncio.sleep(0.01)
        rest = []
        for table_id in tables[1:]:
            rest.append(
                asyncio.create_task(store.append_actions(table_id, 1, [{"type": "next_round"}]))
            )
            await asyncio.sleep(0.001)
        blocker.execute("ROLLBACK")
        await asyncio.wait_for(asyncio.gather(first, *rest), 30)
        assert store._appends.groups_committed - before == 2
        for table_id in tables:
            record = await store.get_table(table_id)
            assert record is not None and record.actions == [{"type": "next_round"}]


@pytest.mark.asyncio
async def test_moves_give_the_other_writes_their_turn(tmp_path: Path, clock: FakeClock) -> None:
    async with sqlite_store_held(tmp_path / "romme.db", clock) as (store, blocker):
        _, early = await new_table(store)
        _, late = await new_table(store, "Bert")
        finished: list[str] = []

        async def note(name: str, work: Any) -> None:
            await work
            finished.append(name)

        blocker.execute("BEGIN IMMEDIATE")
        moves = [asyncio.create_task(note("early move", store.append_actions(early, 1, [{}])))]
        while not sqlite_appends(store).handed:
            await asyncio.sleep(0.01)
        # Another write waits for the store's write lock, which the moves hold ...
        other = asyncio.create_task(note("other write", store.create_guest("Cleo")))
        await asyncio.sleep(HOLD_AT_MOST * 2)
        # ... and a move that comes after the moves held it that long waits its turn.
        moves.append(asyncio.create_task(note("late move", store.append_actions(late, 1, [{}]))))
        await asyncio.sleep(0.05)
        assert finished == []
        blocker.execute("ROLLBACK")
        await asyncio.wait_for(asyncio.gather(other, *moves), 30)
        assert finished == ["early move", "other write", "late move"]
