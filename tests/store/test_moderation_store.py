"""The store's moderation on both backends: the report limits, a mute that ends
by itself, a ban that ends the sessions, and refusals that change nothing."""

from __future__ import annotations

import pytest

from romme.store import Store, StoreError
from romme.store.limits import LimitReached
from romme.store.reports import REPORTS_PER_HOUR

from .helpers import FakeClock, snapshot

pytestmark = pytest.mark.asyncio


async def test_reports_per_hour_are_limited(store: Store, clock: FakeClock) -> None:
    anna = await store.register("Anna", "correct horse battery")
    for n in range(REPORTS_PER_HOUR + 1):
        await store.create_guest(f"Guest{n}")
    for n in range(REPORTS_PER_HOUR):
        await store.add_report(anna.id, f"guest{n}", "other", "", None)
    with pytest.raises(LimitReached) as refused:
        await store.add_report(anna.id, f"Guest{REPORTS_PER_HOUR}", "other", "", None)
    assert refused.value.code == "too_many_reports" and 3590 <= refused.value.retry_after <= 3600
    clock.advance(hours=1)
    filed = await store.add_report(anna.id, f"Guest{REPORTS_PER_HOUR}", "other", "", None)
    assert filed["status"] == "open" and len(await store.reports(open_only=True)) == 11


async def test_chat_lines_attached_are_the_reported_players_recent_ones(
    store: Store, clock: FakeClock
) -> None:
    anna = await store.register("Anna", "correct horse battery")
    bert = await store.create_guest("Bert")
    await store.add_chat(None, bert.id, "long ago")
    clock.advance(hours=2)
    await store.add_chat(None, bert.id, "you *****")
    await store.add_chat(None, anna.id, "calm down")
    report = await store.add_report(anna.id, "Bert", "abusive_chat", "  rude  ", None)
    assert [line["text"] for line in report["chat"]] == ["you *****"]
    assert report["text"] == "rude" and report["table"] is None


async def test_a_mute_ends_by_itself_and_a_ban_ends_the_sessions(
    store: Store, clock: FakeClock
) -> None:
    bert = await store.register("Bert", "correct horse battery")
    token = await store.create_session(bert.id, "127.0.0.1", "test")
    muted = await store.sanction("bert", "mute", 10, "Mona", "language")
    assert muted["until"] is not None
    assert (await store.sanctioned_until(bert.id, "mute"))[0] is True
    clock.advance(minutes=10)
    assert await store.sanctioned_until(bert.id, "mute") == (False, None)
    assert await store.session_player(bert.id, token) is not None

    await store.sanction("Bert", "ban", None, "Mona")
    assert await store.sanctioned_until(bert.id, "ban") == (True, None)
    assert await store.session_player(bert.id, token) is None
    assert [s["kind"] for s in await store.sanctions()] == ["ban"]
    assert await store.lift_sanction("Bert", "ban", "Mona") is True
    assert await store.lift_sanction("Bert", "ban", "Mona") is False
    actions = [(e["actor"], e["action"]) for e in await store.moderation_log()]
    assert actions == [("Mona", "unban"), ("Mona", "ban"), ("Mona", "mute")]


async def test_refusals_change_nothing(store: Store) -> None:
    anna = await store.register("Anna", "correct horse battery")
    await store.register("Mona", "correct horse battery")
    await store.set_moderator("Mona", True)
    before = await snapshot(store)
    for call, code in (
        (store.add_report(anna.id, "Anna", "other", "", None), "cannot_report"),
        (store.add_report(anna.id, "Nobody", "other", "", None), "no_such_player"),
        (store.add_report(anna.id, "Mona", "spite", "", None), "bad_message"),
        (store.add_report(anna.id, "Mona", "other", "x" * 501, None), "bad_message"),
        (store.sanction("Mona", "ban", None, "shell"), "cannot_sanction"),
        (store.sanction("Anna", "mute", None, "shell"), "bad_message"),
        (store.sanction("Anna", "mute", 0, "shell"), "bad_message"),
        (store.sanction("Anna", "exile", 5, "shell"), "bad_message"),
        (store.resolve_report(12345, "shell"), "no_such_report"),
        (store.resolve_report(-1, "shell"), "no_such_report"),
    ):
        with pytest.raises(StoreError) as refused:
            await call
        assert refused.value.code == code
    assert await snapshot(store) == before
