"""Housekeeping: guests' nicknames are freed when they cannot come back, and old
lobby chat, old invitations and tables closed without a game are deleted."""

from __future__ import annotations

from datetime import timedelta

import pytest

from romme.store import Store

from .helpers import FakeClock, refused, snapshot

SEED = bytes(32)


@pytest.mark.asyncio
async def test_a_released_guest_frees_its_nickname_and_keeps_its_past(store: Store) -> None:
    anna = await store.create_guest("Anna")
    table = await store.create_table(anna.id, {}, {}, [], SEED)
    await store.add_chat(table, anna.id, "hello")
    assert await store.release_guest(anna.id) is True
    released = await store.get_player(anna.id)
    assert released is not None and released.released and released.nickname == "Anna"
    assert await store.find_player("anna") is None
    assert await store.player_info("Anna") is None
    # The name is free for someone else; the old chat still says who wrote it.
    again = await store.create_guest("ANNA")
    assert again.id != anna.id and not again.released
    assert [m["from"] for m in await store.recent_chat(table)] == ["Anna"]
    found = await store.find_player("Anna")
    assert found is not None and found.id == again.id
    # Once is enough; registered players and bots are never released.
    assert await store.release_guest(anna.id) is False
    ben = await store.register("Ben", "correct horse")
    bot = await store.bot_player("casual")
    before = await snapshot(store)
    for player_id in (ben.id, bot.id, 99_999, "1"):
        assert await store.release_guest(player_id) is False  # type: ignore[arg-type]
    assert await snapshot(store) == before


@pytest.mark.asyncio
async def test_prune(store: Store, clock: FakeClock) -> None:
    old_guest = await store.create_guest("Oldie")
    member = await store.register("Member", "correct horse")
    host = await store.create_guest("Host")
    closed = await store.create_table(host.id, {}, {}, [], SEED)
    await store.update_table(closed, status="closed")
    await store.add_chat(closed, host.id, "anyone?")
    await store.add_chat(None, host.id, "old lobby line")
    kept_table = await store.create_table(host.id, {}, {}, [], SEED)
    await store.append_actions(kept_table, 1, [{"type": "next_round"}])
    await store.add_chat(kept_table, host.id, "table chat stays")
    expired = await store.create_invitation(kept_table, host.id, member.id, clock.ms() + 1000)
    answered = await store.create_invitation(kept_table, host.id, old_guest.id, clock.ms() + 10**9)
    await store.answer_invitation(answered["id"], old_guest.id, False, clock.ms())

    clock.advance(days=2)
    cut = clock.now - timedelta(days=1)
    young = await store.create_guest("Young")
    await store.add_chat(None, young.id, "new lobby line")
    still_open = await store.create_invitation(kept_table, host.id, young.id, clock.ms() + 60_000)

    counts = await store.prune(
        guests_before=cut,
        chat_before=cut,
        invitations_before_ms=int(cut.timestamp() * 1000),
        closed_before=cut,
    )
    assert counts == {
        "guests": 2,
        "lobby_chat": 1,
        "invitations": 2,
        "closed_tables": 1,
        "sessions": 0,
        "rate_counters": 0,
        "browser_marks": 0,
    }
    assert await store.find_player("Oldie") is None and await store.find_player("Host") is None
    assert await store.find_player("Young") is not None
    assert await store.find_player("Member") is not None
    assert [m["text"] for m in await store.recent_chat(None)] == ["new lobby line"]
    assert await store.get_table(closed) is None
    kept = await store.get_table(kept_table)
    assert kept is not None and kept.actions == [{"type": "next_round"}]
    assert [m["text"] for m in await store.recent_chat(kept_table)] == ["table chat stays"]
    assert [i["id"] for i in await store.open_invitations(young.id, clock.ms())] == [
        still_open["id"]
    ]
    assert expired["id"] != still_open["id"]
    # A second run finds nothing more to do.
    again = await store.prune(
        guests_before=cut,
        chat_before=cut,
        invitations_before_ms=int(cut.timestamp() * 1000),
        closed_before=cut,
    )
    assert again == {
        "guests": 0,
        "lobby_chat": 0,
        "invitations": 0,
        "closed_tables": 0,
        "sessions": 0,
        "rate_counters": 0,
        "browser_marks": 0,
    }


@pytest.mark.asyncio
async def test_prune_refuses_naive_times(store: Store, clock: FakeClock) -> None:
    naive = clock.now.replace(tzinfo=None)
    await refused(
        store,
        "bad_message",
        store.prune(
            guests_before=naive,
            chat_before=clock.now,
            invitations_before_ms=0,
            closed_before=clock.now,
        ),
    )
    await refused(
        store,
        "bad_message",
        store.prune(
            guests_before=clock.now,
            chat_before=clock.now,
            invitations_before_ms="0",  # type: ignore[arg-type]
            closed_before=clock.now,
        ),
    )
