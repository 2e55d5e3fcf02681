"""Friends and blocks in the store, on SQLite and PostgreSQL: requests, answers,
a request both ways, blocks that end friendships and hide requests, and the
refusals (each changes nothing)."""

from __future__ import annotations

import pytest

from romme.store import PlayerRecord, Store
from romme.store.friends import FRIENDS_MAX, SocialRecord

from .helpers import refused

pytestmark = pytest.mark.asyncio


async def _member(store: Store, nickname: str) -> PlayerRecord:
    return await store.register(nickname, "correct horse")


def _names(pairs: list[tuple[int, str]]) -> list[str]:
    return [name for _, name in pairs]


async def test_request_accept_remove_and_both_ways(store: Store) -> None:
    anna, ben, cleo = [await _member(store, n) for n in ("Anna", "Ben", "Cleo")]
    assert await store.request_friend(anna.id, ben.id) is False
    assert await store.request_friend(anna.id, ben.id) is False  # again: no error, one row
    assert _names((await store.social(ben.id)).incoming) == ["Anna"]
    assert _names((await store.social(anna.id)).outgoing) == ["Ben"]
    await store.answer_friend(ben.id, anna.id, True)
    assert _names((await store.social(anna.id)).friends) == ["Ben"]
    assert await store.friend_ids(ben.id) == [anna.id]
    # Cleo and Ben both ask: friends at once.
    await store.request_friend(cleo.id, ben.id)
    assert await store.request_friend(ben.id, cleo.id) is True
    ben_lists = await store.social(ben.id)
    assert _names(ben_lists.friends) == ["Anna", "Cleo"]
    assert ben_lists.incoming == ben_lists.outgoing == []
    await store.remove_friend(anna.id, ben.id)
    assert _names((await store.social(ben.id)).friends) == ["Cleo"]
    # A declined request is gone.
    await store.request_friend(anna.id, cleo.id)
    await store.answer_friend(cleo.id, anna.id, False)
    assert await store.social(anna.id) == SocialRecord()


async def test_refusals_change_nothing(store: Store) -> None:
    anna, ben = await _member(store, "Anna"), await _member(store, "Ben")
    guest = await store.create_guest("Gast")
    bot = await store.bot_player("casual")
    await refused(store, "account_required", store.request_friend(guest.id, anna.id))
    await refused(store, "cannot_befriend", store.request_friend(anna.id, guest.id))
    await refused(store, "cannot_befriend", store.request_friend(anna.id, anna.id))
    await refused(store, "cannot_befriend", store.request_friend(anna.id, bot.id))
    await refused(store, "no_such_player", store.request_friend(anna.id, 10**6))
    await refused(store, "no_friend_request", store.answer_friend(anna.id, ben.id, True))
    await refused(store, "cannot_block", store.block(anna.id, bot.id))
    await refused(store, "cannot_block", store.block(anna.id, anna.id))
    await refused(store, "no_such_player", store.block(anna.id, 10**6))


async def test_a_block_ends_friendship_and_hides_requests(store: Store) -> None:
    anna, max_ = await _member(store, "Anna"), await _member(store, "Max")
    await store.request_friend(anna.id, max_.id)
    await store.answer_friend(max_.id, anna.id, True)
    await store.block(anna.id, max_.id)
    await store.block(anna.id, max_.id)  # again: no error
    assert await store.blocks(anna.id, max_.id) and not await store.blocks(max_.id, anna.id)
    lists = await store.social(anna.id)
    assert lists.friends == [] and _names(lists.blocked) == ["Max"]
    await refused(store, "cannot_befriend", store.request_friend(anna.id, max_.id))
    # Max's request: his lists show it pending; Anna's never show it.
    await store.request_friend(max_.id, anna.id)
    assert _names((await store.social(max_.id)).outgoing) == ["Anna"]
    assert (await store.social(anna.id)).incoming == []
    await refused(store, "no_friend_request", store.answer_friend(anna.id, max_.id, True))
    await store.unblock(anna.id, max_.id)
    assert await store.social(anna.id) == SocialRecord()
    # A guest may block too.
    guest = await store.create_guest("Gast")
    await store.block(guest.id, max_.id)
    assert _names((await store.social(guest.id)).blocked) == ["Max"]
    # A released guest's nickname is free for others: a block of it names nobody.
    await store.block(anna.id, guest.id)
    assert _names((await store.social(anna.id)).blocked) == ["Gast"]
    assert await store.release_guest(guest.id)
    assert (await store.social(anna.id)).blocked == []


async def test_the_number_of_friends_and_requests_is_bounded(store: Store) -> None:
    anna = await _member(store, "Anna")
    others = [await store.register(f"Friend{n}", "correct horse") for n in range(FRIENDS_MAX)]
    for other in others:
        await store.request_friend(anna.id, other.id)
    extra = await _member(store, "Zora")
    await refused(store, "too_many_friends", store.request_friend(anna.id, extra.id))
    # Someone else may still ask Anna.
    await store.request_friend(extra.id, anna.id)
