"""How far a sanction follows its person, in the store on both databases: a
browser mark links for the sanction's whole time, an address for a day after it
was seen; only accounts newer than the sanction take it; a lifted sanction takes
its followers along; a moderator never takes one."""

from __future__ import annotations

import pytest

from romme.store import Store

from .helpers import FakeClock

pytestmark = pytest.mark.asyncio

HOME, AWAY = "203.0.113.7", "198.51.100.9"
MARK = "m" * 32


async def test_a_browser_links_for_the_whole_sanction_an_address_for_a_day(
    store: Store, clock: FakeClock
) -> None:
    bert = await store.create_guest("Bert")
    await store.create_session(bert.id, HOME, "browser")
    await store.follow_sanctions(bert.id, HOME, MARK)
    older = await store.create_guest("Olga")  # an account older than the mute
    await store.sanction("Bert", "mute", 3 * 24 * 60, "Mona")

    # Within the day, from the same address but another browser: followed.
    same_address = await store.create_guest("Bert2")
    followed = await store.follow_sanctions(same_address.id, HOME, "x" * 32)
    assert [f["kind"] for f in followed] == ["mute"]
    assert (await store.sanctioned_until(same_address.id, "mute"))[0] is True
    # The older account from the same address and browser keeps its standing.
    assert await store.follow_sanctions(older.id, HOME, MARK) == []
    assert (await store.sanctioned_until(older.id, "mute"))[0] is False

    # Two days on: the address no longer links, the browser still does.
    clock.advance(days=2)
    by_address = await store.create_guest("Bert3")
    assert await store.follow_sanctions(by_address.id, HOME, None) == []
    by_browser = await store.create_guest("Bert4")
    followed = await store.follow_sanctions(by_browser.id, AWAY, MARK)
    assert [f["kind"] for f in followed] == ["mute"]
    ends = await store.sanctioned_until(bert.id, "mute")
    assert await store.sanctioned_until(by_browser.id, "mute") == ends

    log = await store.moderation_log()
    follows = [e for e in log if e["action"] == "follow_mute"]
    assert {e["target_id"] for e in follows} == {same_address.id, by_browser.id}
    assert all(e["actor"] == "server" and e["actor_id"] is None for e in follows)

    # Lifting Bert's mute lifts those that followed it.
    assert await store.lift_sanction(bert.id, "mute", "Mona") is True
    for player in (bert, same_address, by_browser):
        assert (await store.sanctioned_until(player.id, "mute"))[0] is False
    assert await store.sanctions() == []


async def test_a_sanctioned_player_carries_its_sanction_to_new_addresses(
    store: Store, clock: FakeClock
) -> None:
    eve = await store.register("Eve", "correct horse battery")
    await store.sanction("Eve", "ban", None, "Mona")
    # Eve turns up elsewhere (the store is asked before the login is refused).
    await store.follow_sanctions(eve.id, AWAY, None)
    clock.advance(hours=2)
    newcomer = await store.create_guest("Evelyn")
    followed = await store.follow_sanctions(newcomer.id, AWAY, None)
    assert [(f["kind"], f["until"]) for f in followed] == [("ban", None)]
    sanctions = {s["player_id"]: s for s in await store.sanctions()}
    assert sanctions[newcomer.id]["source"] == sanctions[eve.id]["id"]
    assert sanctions[eve.id]["nickname_then"] == "Eve"
    # A moderator, even one newer than the ban, takes nothing.
    mona = await store.register("Mona", "correct horse battery")
    await store.set_moderator("Mona", True)
    assert await store.follow_sanctions(mona.id, AWAY, None) == []
