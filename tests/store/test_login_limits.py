"""The store's side of the account defences, on a clock the test moves: the login
limits' growing delay, its cap and its end, the owner's known addresses, sessions,
the housekeeping of both."""

from __future__ import annotations

import pytest

from romme.store import Store, StoreError
from romme.store.limits import ACCOUNT_LOGINS, ADDRESS_LOGINS, LimitReached

from .helpers import FakeClock

pytestmark = pytest.mark.asyncio

PASSWORD = "correct horse"
HOME, AWAY = "192.0.2.1", "203.0.113.9"


async def _fail(store: Store, nickname: str, address: str) -> str:
    """The code of a failed login."""
    with pytest.raises(StoreError) as info:
        await store.login(nickname, "wrong horse", address=address)
    return info.value.code


async def test_the_delay_doubles_up_to_its_cap_and_ends(store: Store, clock: FakeClock) -> None:
    await store.register("Anna", PASSWORD)
    for _ in range(ACCOUNT_LOGINS.free):
        assert await _fail(store, "Anna", AWAY) == "bad_credentials"
    waits = []
    for _ in range(12):
        with pytest.raises(LimitReached) as info:
            await store.login("Anna", PASSWORD, address=AWAY)
        assert info.value.code == "too_many_attempts"
        waits.append(info.value.retry_after)
        clock.advance(seconds=info.value.retry_after)
        assert await _fail(store, "Anna", AWAY) == "bad_credentials"
    assert waits[:4] == [2, 4, 8, 16] and max(waits) == waits[-1] == ACCOUNT_LOGINS.cap
    clock.advance(seconds=ACCOUNT_LOGINS.cap)
    assert (await store.login("Anna", PASSWORD, address=AWAY)).nickname == "Anna"
    # A success forgets the account's failures (not the address's: another one here).
    for _ in range(ACCOUNT_LOGINS.free):
        assert await _fail(store, "Anna", "198.51.100.1") == "bad_credentials"


async def test_failures_are_forgotten_a_day_after_the_last(store: Store, clock: FakeClock) -> None:
    await store.register("Ben", PASSWORD)
    for _ in range(ACCOUNT_LOGINS.free):
        await _fail(store, "Ben", AWAY)
    clock.advance(seconds=ACCOUNT_LOGINS.forget + 1)
    for _ in range(ACCOUNT_LOGINS.free - 1):
        assert await _fail(store, "Ben", AWAY) == "bad_credentials"
    assert (await store.login("Ben", PASSWORD, address=AWAY)).nickname == "Ben"


async def test_the_owner_is_not_locked_out_at_home(store: Store, clock: FakeClock) -> None:
    ben = await store.register("Ben", PASSWORD)
    await store.create_session(ben.id, HOME, "home browser")
    for _ in range(ACCOUNT_LOGINS.free + 3):
        await _fail(store, "Ben", AWAY)
    with pytest.raises(LimitReached):
        await store.login("Ben", PASSWORD, address=AWAY)
    assert (await store.login("Ben", PASSWORD, address=HOME)).id == ben.id
    # At home only the address's own limit applies.
    for _ in range(ADDRESS_LOGINS.free):
        assert await _fail(store, "Ben", HOME) == "bad_credentials"
    with pytest.raises(LimitReached):
        await store.login("Ben", PASSWORD, address=HOME)


async def test_unknown_nicknames_are_limited_like_accounts(store: Store) -> None:
    for _ in range(ACCOUNT_LOGINS.free):
        assert await _fail(store, "Nobody", AWAY) == "bad_credentials"
    with pytest.raises(LimitReached):
        await store.login("Nobody", "wrong horse", address=AWAY)


async def test_sessions_live_until_revoked_or_expired(store: Store, clock: FakeClock) -> None:
    cleo = await store.register("Cleo", PASSWORD)
    first = await store.create_session(cleo.id, HOME, "a\x00b")
    second = await store.create_session(cleo.id, AWAY, "phone", replacing=first)
    assert await store.session_player(cleo.id, first) is None
    assert (await store.session_player(cleo.id, second)) == cleo
    assert await store.session_player(cleo.id + 1, second) is None
    listed = await store.sessions(cleo.id, second)
    assert [(s["address"], s["current"]) for s in listed] == [(AWAY, True)]
    clock.advance(days=31)
    assert await store.session_player(cleo.id, second) is None
    counts = await store.prune(
        guests_before=clock.now,
        chat_before=clock.now,
        invitations_before_ms=clock.ms(),
        closed_before=clock.now,
    )
    assert counts["sessions"] == 2


async def test_idle_counters_are_pruned(store: Store, clock: FakeClock) -> None:
    await _fail(store, "Dora", AWAY)
    clock.advance(days=2)
    counts = await store.prune(
        guests_before=clock.now,
        chat_before=clock.now,
        invitations_before_ms=clock.ms(),
        closed_before=clock.now,
    )
    assert counts["rate_counters"] == 2  # the account's and the address's


async def test_new_accounts_per_address(store: Store, clock: FakeClock) -> None:
    store.accounts_per_hour = 2
    await store.create_guest("Gus1", address=AWAY)
    await store.register("Gus2", PASSWORD, address=AWAY)
    with pytest.raises(LimitReached) as info:
        await store.create_guest("Gus3", address=AWAY)
    assert info.value.code == "too_many_accounts" and 3590 < info.value.retry_after <= 3600
    guest = await store.create_guest("Gus4", address=HOME)
    await store.create_guest("Gus5", address=HOME)
    # A guest who registers is no new account.
    assert (await store.register("Gus4", PASSWORD, guest_id=guest.id, address=HOME)).id == guest.id
    clock.advance(hours=1)
    await store.create_guest("Gus3", address=AWAY)
