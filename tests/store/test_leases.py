"""Ownership leases: a node takes a table by raising its epoch (the fencing token),
and an append that carries a former owner's epoch is refused and stores nothing."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from types import SimpleNamespace

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from romme.server.ownership import Ownership
from romme.store import Store, leases

from .helpers import FAST_HASHER, FakeClock, refused, wipe
from .test_chips import POLICY, _open_house
from .test_tables import new_table, opening_actions


@pytest.mark.asyncio
async def test_stale_owner_cannot_append(store: Store, clock: FakeClock) -> None:
    _, table_id = await new_table(store)
    actions = opening_actions()
    first = await store.claim_table(table_id, "node-a", 10, epoch=0)
    assert first == 1
    await store.append_actions(table_id, 1, actions[:1], epoch=first)

    # node-a stalls; its lease runs out and node-b takes the table.
    assert await store.free_tables() == []
    clock.advance(seconds=11)
    [free] = await store.free_tables()
    assert (free.table_id, free.node, free.epoch) == (table_id, "node-a", first)
    second = await store.claim_table(table_id, "node-b", 10, epoch=free.epoch)
    assert second == 2
    # A second claim with the same seen epoch loses: only one node gets the table.
    assert await store.claim_table(table_id, "node-c", 10, epoch=free.epoch) is None

    # node-a wakes up: its next append is refused and nothing is written.
    error = await refused(
        store, "lease_lost", store.append_actions(table_id, 2, actions[1:2], epoch=first)
    )
    assert "another node" in error.message
    assert await store.renew_leases("node-a", {table_id: first}, 10) == [table_id]

    # The new owner goes on from the stored log.
    await store.append_actions(table_id, 2, actions[1:], epoch=second)
    record = await store.get_table(table_id)
    assert record is not None and record.actions == actions
    assert await store.renew_leases("node-b", {table_id: second}, 10) == []
    [lease] = await store.leases()
    assert (lease.node, lease.epoch) == ("node-b", second)


@pytest.mark.asyncio
async def test_racing_appends_and_claim(store: Store, clock: FakeClock) -> None:
    """A former owner's appends racing with a takeover: each either lands before
    the claim (and the new owner sees it in the log) or is refused."""
    _, table_id = await new_table(store)
    actions = opening_actions()
    old = await store.claim_table(table_id, "node-a", 10, epoch=0)
    assert old is not None
    outcomes = await asyncio.gather(
        store.append_actions(table_id, 1, actions[:1], epoch=old),
        store.claim_table(table_id, "node-b", 10, epoch=old),
        return_exceptions=True,
    )
    new = outcomes[1]
    assert new == old + 1
    record = await store.get_table(table_id)
    assert record is not None
    if outcomes[0] is None:
        assert record.actions == actions[:1]
    else:
        assert getattr(outcomes[0], "code", None) == "lease_lost"
        assert record.actions == []
    await store.append_actions(table_id, len(record.actions) + 1, actions[1:2], epoch=new)


@pytest.mark.asyncio
async def test_release_claim_all_and_free(store: Store, clock: FakeClock) -> None:
    player = await store.create_guest("Cleo")
    held = await store.create_table(player.id, {}, {}, [], bytes(16), "node-c", 10)
    [lease] = await store.leases()
    assert (lease.table_id, lease.node, lease.epoch) == (held, "node-c", 1)
    assert await store.free_tables() == await store.free_tables(live_nodes=["node-c"]) == []
    # A node without a heartbeat keeps its tables while it renews their leases.
    assert await store.free_tables(live_nodes=[], silent_for=5) == []
    clock.advance(seconds=6)
    assert [lease.table_id for lease in await store.free_tables(live_nodes=[], silent_for=5)] == [
        held
    ]
    assert await store.free_tables() == []
    await store.update_table(held, status="closed")  # no lease to take any more
    assert await store.leases() == []

    _, one = await new_table(store, "Anna")
    _, two = await new_table(store, "Bert")
    assert [lease.table_id for lease in await store.free_tables()] == [one, two]
    assert await store.claim_all_tables("solo", 10) == {one: 1, two: 1}
    assert await store.free_tables() == await store.free_tables(live_nodes=["solo"]) == []
    other = await store.free_tables(live_nodes=["other"], silent_for=10)
    assert [lease.table_id for lease in other] == [one, two]
    await store.release_tables("solo", [one])
    assert [lease.table_id for lease in await store.free_tables()] == [one]
    await store.release_tables("solo")
    assert [lease.epoch for lease in await store.free_tables()] == [1, 1]
    # Finished tables have no lease to take; an append without an epoch is not checked.
    await store.update_table(two, status="finished")
    assert [lease.table_id for lease in await store.leases()] == [one]
    await store.append_actions(one, 1, opening_actions()[:1])


@pytest.mark.asyncio
async def test_a_table_that_ended_is_not_lost(store: Store) -> None:
    """Between storing a game's end and its actor finishing, the lease cannot be
    renewed any more; that is no loss (which would send the players away)."""
    _, ended = await new_table(store)
    _, running = await new_table(store, host="Ben")
    epochs = {
        table_id: await store.claim_table(table_id, "node-a", 10, epoch=0)
        for table_id in (ended, running)
    }
    held = {table_id: epoch for table_id, epoch in epochs.items() if epoch is not None}
    assert len(held) == 2
    await store.update_table(ended, status="closed")
    assert await store.renew_leases("node-a", held, 10) == []
    # Another node takes the running one: that one is lost.
    taken = await store.claim_table(running, "node-b", 10, epoch=held[running])
    assert taken is not None
    assert await store.renew_leases("node-a", held, 10) == [running]


@pytest.mark.asyncio
async def test_a_renewal_extends_only_the_node_s_own_running_tables(
    store: Store, clock: FakeClock
) -> None:
    """The renewal moves the lease of each table the node holds to ``seconds``
    from now, and no other: not another node's, not a finished one's. The renewed
    leases keep the node from losing them when the old ones would have run out."""
    ids = [(await new_table(store, host=f"Host{n}"))[1] for n in range(4)]
    held = {t: await store.claim_table(t, "node-a", 10, epoch=0) for t in ids[:3]}
    assert await store.claim_table(ids[3], "node-b", 10, epoch=0) == 1
    before = {lease.table_id: lease.until for lease in await store.leases()}
    await store.update_table(ids[2], status="finished")
    clock.advance(seconds=8)
    epochs = {t: e for t, e in held.items() if e is not None}
    assert await store.renew_leases("node-a", epochs, 10) == []
    after = {lease.table_id: lease for lease in await store.leases()}
    assert set(after) == {ids[0], ids[1], ids[3]}
    for renewed in ids[:2]:
        until, old = after[renewed].until, before[renewed]
        assert until is not None and old is not None
        assert timedelta(seconds=7.9) < until - old < timedelta(seconds=8.1)
        assert after[renewed].node == "node-a" and after[renewed].epoch == 1
    assert after[ids[3]].until == before[ids[3]] and after[ids[3]].node == "node-b"
    # Past the old leases' end, but within the renewed ones: nothing is free.
    clock.advance(seconds=5)
    assert [lease.table_id for lease in await store.free_tables()] == [ids[3]]


@pytest.mark.asyncio
async def test_a_renewal_in_chunks_finds_every_lost_table(
    store: Store, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Renewed a few tables per transaction, the renewal still extends every held
    lease and reports the lost tables of every chunk, in the order of their ids."""
    monkeypatch.setattr(leases, "RENEW_CHUNK", 2)
    ids = [(await new_table(store, host=f"Host{n}"))[1] for n in range(5)]
    held = {t: 1 for t in ids}
    assert await store.claim_tables("node-a", 10, dict.fromkeys(ids, 0)) == held
    for taken in (ids[1], ids[4]):
        assert await store.claim_table(taken, "node-b", 10, epoch=1) == 2
    clock.advance(seconds=8)
    assert await store.renew_leases("node-a", held, 10) == [ids[1], ids[4]]
    clock.advance(seconds=5)
    assert [lease.table_id for lease in await store.free_tables()] == [ids[1], ids[4]]


@pytest.mark.asyncio
async def test_claim_many_tables_at_once(store: Store) -> None:
    """One statement takes many tables, each only if its epoch is still the one
    seen: a table another node took meanwhile is left out."""
    ids = [(await new_table(store, host=f"Host{n}"))[1] for n in range(3)]
    assert await store.claim_table(ids[1], "node-b", 10, epoch=0) == 1
    taken = await store.claim_tables("node-a", 10, dict.fromkeys(ids, 0))
    assert taken == {ids[0]: 1, ids[2]: 1}
    assert await store.claim_tables("node-c", 10, {}) == {}
    assert [(lease.node, lease.epoch) for lease in await store.leases()] == [
        ("node-a", 1),
        ("node-b", 1),
        ("node-a", 1),
    ]


@pytest.mark.asyncio
async def test_a_stale_owner_writes_nothing_at_all(store: Store) -> None:
    """Not only appends: the start of a staked game, seats and status, table chat
    and the result with its settlement, given the former owner's epoch, are
    refused with ``lease_lost`` and change nothing; the new owner's go through."""
    store.chip_policy = POLICY
    await _open_house(store)
    anna, ben = [(await store.register(name, "password1")).id for name in ("Anna", "Ben")]
    seats: list[dict[str, object]] = [
        {"player": anna, "nickname": "Anna", "bot": None},
        {"player": ben, "nickname": "Ben", "bot": None},
    ]
    table_id = await store.create_table(anna, {}, {}, seats, bytes(16), "node-a", 10)
    old = 1
    new = await store.claim_table(table_id, "node-b", 10, epoch=old)
    assert new == 2

    await refused(store, "lease_lost", store.start_staked_game(table_id, seats, 100, 5, epoch=old))
    await store.start_staked_game(table_id, seats, 100, 5, epoch=new)
    await store.append_actions(table_id, 1, opening_actions()[:1], epoch=new)
    writes = {
        "seats": lambda epoch: store.update_table(table_id, seats=seats[::-1], epoch=epoch),
        "status": lambda epoch: store.update_table(table_id, status="closed", epoch=epoch),
        "chat": lambda epoch: store.add_chat(table_id, ben, "gg", epoch=epoch),
        "result": lambda epoch: store.finish_game(
            table_id,
            winners=[0],
            totals=[0, 40],
            seat_players=[anna, ben],
            results=[],
            epoch=epoch,
        ),
    }
    for name, write in writes.items():
        error = await refused(store, "lease_lost", write(old))
        assert "another node" in error.message, name
    await store.update_table(table_id, seats=seats, epoch=new)
    await store.add_chat(table_id, ben, "gg", epoch=new)
    changes = await store.finish_game(
        table_id, winners=[0], totals=[0, 40], seat_players=[anna, ben], results=[], epoch=new
    )
    assert set(changes) == {"0", "1"}
    assert await store.chips(anna) == POLICY.grant - 100 + 190
    # Without an epoch (a table nobody leases) nothing is checked; a bad epoch is
    # bad input.
    await refused(store, "bad_message", store.add_chat(table_id, ben, "x", epoch="2"))  # type: ignore[arg-type]


@pytest.mark.asyncio
async def test_a_renewal_and_an_append_lock_the_tables_in_the_same_order(
    pg_url: str, clock: FakeClock
) -> None:
    """PostgreSQL: a group of appends locks its tables' rows in the order of their
    ids; so does a renewal of a node's leases, wherever the rows lie. Before, the
    renewal updated them in the order it found them, and the two could each
    hold a row the other waited for (a deadlock, found after a second)."""
    store = await Store.open(pg_url, password_hasher=FAST_HASHER, clock=clock)
    engine = create_async_engine(pg_url)
    try:
        await wipe(store)
        ids = sorted([(await new_table(store, host=f"Host{n}"))[1] for n in range(30)])
        held = await store.claim_tables("node-a", 10, dict.fromkeys(ids, 0))
        async with engine.begin() as connection:
            # A new version of each row, the highest id first: the rows now lie in
            # the reverse order of their ids, the order a scan finds them in.
            for table_id in reversed(ids):
                await connection.execute(
                    text("UPDATE game_tables SET lease_until = lease_until WHERE id = :id"),
                    {"id": table_id},
                )
        async with engine.connect() as appender:
            await appender.begin()
            lock = "SELECT id FROM game_tables WHERE id = :id FOR SHARE"
            await appender.execute(text(lock), {"id": ids[0]})
            renewal = asyncio.create_task(store.renew_leases("node-a", held, 10))
            await asyncio.sleep(0.3)  # the renewal waits for the lowest id
            await appender.execute(text("SET LOCAL lock_timeout = '3s'"))
            await appender.execute(text(lock), {"id": ids[-1]})  # not held by the renewal
            await appender.commit()
        assert await asyncio.wait_for(renewal, 10) == []
    finally:
        await engine.dispose()
        await store.close()


class _DrainingHost:
    """What :class:`Ownership` asks of the hub, over a real store: the leases it
    holds, and which tables it was told it lost."""

    relay = None

    def __init__(self, store: Store, epochs: dict[int, int]) -> None:
        self.store = store
        self.tables = {
            table_id: SimpleNamespace(id=table_id, status="playing", epoch=epoch)
            for table_id, epoch in epochs.items()
        }
        self.lost: list[int] = []

    def lease_lost(self, table_id: int) -> None:
        self.lost.append(table_id)


@pytest.mark.asyncio
async def test_a_renewal_meeting_the_nodes_own_drain_loses_nothing(store: Store) -> None:
    """The leases are renewed a chunk at a time; when the node drains meanwhile, the
    chunks after its release find the tables free. The node gave them up itself:
    no table is reported lost (at 1,000 tables a server stopping logged a hundred
    ``lease_lost`` warnings, one chunk)."""
    for number in range(leases.RENEW_CHUNK + 20):
        await new_table(store, f"Host{number}")
    epochs = await store.claim_all_tables("node-a", 10)
    assert len(epochs) == leases.RENEW_CHUNK + 20
    host = _DrainingHost(store, epochs)
    ownership = Ownership(host, "node-a", None)  # type: ignore[arg-type]

    renewal = asyncio.create_task(ownership.renew())
    await asyncio.sleep(0)  # the renewal's first chunk is on its way
    await ownership.drain()
    await renewal
    assert {lease.node for lease in await store.leases()} == {None}  # released
    assert host.lost == []
