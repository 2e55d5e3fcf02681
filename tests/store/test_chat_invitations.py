"""Chat (plain text, stored as given) and invitations (open, answered, expired)."""

from __future__ import annotations

import pytest

from romme.store import Store
from romme.store.invitations import INVITATION_TTL_MS

from .helpers import FakeClock, refused

SEED = bytes(32)

# ----------------------------------------------------------------------- chat


@pytest.mark.asyncio
async def test_lobby_and_table_chat(store: Store, clock: FakeClock) -> None:
    anna = await store.create_guest("Anna")
    ben = await store.create_guest("Ben")
    table = await store.create_table(anna.id, {}, {}, [], SEED)
    hello = await store.add_chat(None, anna.id, "hello lobby")
    assert hello == {
        "id": hello["id"],
        "from": "Anna",
        "text": "hello lobby",
        "at": hello["at"],
        "player_id": anna.id,
    }
    assert hello["at"] <= clock.ms()
    await store.add_chat(table, ben.id, "gg")
    await store.add_chat(None, ben.id, "hi Anna")
    lobby = await store.recent_chat(None)
    assert [(m["from"], m["text"]) for m in lobby] == [("Anna", "hello lobby"), ("Ben", "hi Anna")]
    assert [(m["from"], m["text"]) for m in await store.recent_chat(table)] == [("Ben", "gg")]
    assert lobby[0] == hello


@pytest.mark.asyncio
async def test_recent_chat_is_the_newest_oldest_first(store: Store) -> None:
    anna = await store.create_guest("Anna")
    for n in range(60):
        await store.add_chat(None, anna.id, f"line {n}")
    default = await store.recent_chat(None)
    assert [m["text"] for m in default] == [f"line {n}" for n in range(10, 60)]
    assert [m["text"] for m in await store.recent_chat(None, limit=3)] == [
        "line 57",
        "line 58",
        "line 59",
    ]
    assert await store.recent_chat(None, limit=0) == []
    assert [m["id"] for m in default] == sorted(m["id"] for m in default)
    assert await store.recent_chat(404) == []
    assert await store.recent_chat("1") == []  # type: ignore[arg-type]
    await refused(store, "bad_message", store.recent_chat(None, limit=-1))


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "text",
    [
        "<script>alert('x')</script>",
        "<img src=x onerror=alert(1)> &amp; &lt;b&gt;",
        "'; DROP TABLE players; --",
        "line one\nline two",
        "👍🏽 emoji with a zero-width joiner: 👩\u200d💻",
        "x" * 500,
    ],
)
async def test_chat_text_is_stored_verbatim(store: Store, text: str) -> None:
    anna = await store.create_guest("Anna")
    message = await store.add_chat(None, anna.id, text)
    assert message["text"] == text
    assert (await store.recent_chat(None))[-1]["text"] == text


@pytest.mark.asyncio
async def test_chat_strips_control_characters_except_newline(store: Store) -> None:
    anna = await store.create_guest("Anna")
    message = await store.add_chat(None, anna.id, "a\x00b\x07c\r\nd\x1b[31me\x7f\u0085f\ud800")
    assert message["text"] == "abc\nd[31mef"
    assert (await store.recent_chat(None))[-1]["text"] == "abc\nd[31mef"


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "chat_empty"),
        ("   \n\t ", "chat_empty"),
        ("\x00\x01", "chat_empty"),
        ("x" * 501, "chat_too_long"),
        ("x" * 10_000, "chat_too_long"),
        (None, "chat_empty"),
    ],
)
async def test_chat_refusals(store: Store, text: str, code: str) -> None:
    anna = await store.create_guest("Anna")
    await refused(store, code, store.add_chat(None, anna.id, text))


@pytest.mark.asyncio
async def test_chat_needs_a_table_and_a_player(store: Store) -> None:
    anna = await store.create_guest("Anna")
    await refused(store, "no_such_table", store.add_chat(404, anna.id, "hi"))
    await refused(store, "no_such_player", store.add_chat(None, 404, "hi"))


# ---------------------------------------------------------------- invitations


async def setting(store: Store) -> tuple[int, int, int]:
    anna = await store.create_guest("Anna")
    ben = await store.create_guest("Ben")
    table = await store.create_table(anna.id, {"access": "invite"}, {}, [], SEED)
    return table, anna.id, ben.id


@pytest.mark.asyncio
async def test_invite_and_accept(store: Store, clock: FakeClock) -> None:
    table, anna, ben = await setting(store)
    now = clock.ms()
    invitation = await store.create_invitation(table, anna, ben, now + INVITATION_TTL_MS)
    assert invitation == {
        "id": invitation["id"],
        "table": table,
        "from": "Anna",
        "to": "Ben",
        "status": "open",
        "expires_at": now + INVITATION_TTL_MS,
    }
    assert await store.open_invitations(ben, now) == [invitation]
    assert await store.open_invitations(anna, now) == [invitation]
    accepted = await store.answer_invitation(invitation["id"], ben, True, now + 1000)
    assert accepted == {**invitation, "status": "accepted"}
    assert await store.open_invitations(ben, now + 1000) == []
    assert await store.open_invitations(anna, now + 1000) == []


@pytest.mark.asyncio
async def test_invite_and_decline(store: Store, clock: FakeClock) -> None:
    table, anna, ben = await setting(store)
    invitation = await store.create_invitation(table, anna, ben, clock.ms() + 5000)
    declined = await store.answer_invitation(invitation["id"], ben, False, clock.ms())
    assert declined["status"] == "declined"
    await refused(
        store,
        "no_such_invitation",
        store.answer_invitation(invitation["id"], ben, True, clock.ms()),
    )


@pytest.mark.asyncio
async def test_invitations_expire_after_two_minutes_by_default(
    store: Store,
    clock: FakeClock,
) -> None:
    table, anna, ben = await setting(store)
    invitation = await store.create_invitation(table, anna, ben)
    created = clock.ms()
    assert created < invitation["expires_at"] <= created + INVITATION_TTL_MS
    assert INVITATION_TTL_MS == 120_000
    expires = invitation["expires_at"]
    assert len(await store.open_invitations(ben, expires - 1)) == 1
    assert await store.open_invitations(ben, expires) == []
    await refused(
        store, "invitation_expired", store.answer_invitation(invitation["id"], ben, True, expires)
    )
    await refused(
        store,
        "invitation_expired",
        store.answer_invitation(invitation["id"], ben, False, expires + 60_000),
    )


@pytest.mark.asyncio
async def test_answer_invitation_refusals(store: Store, clock: FakeClock) -> None:
    table, anna, ben = await setting(store)
    cleo = (await store.create_guest("Cleo")).id
    invitation = await store.create_invitation(table, anna, ben, clock.ms() + 60_000)
    now = clock.ms()
    await refused(store, "no_such_invitation", store.answer_invitation(404, ben, True, now))
    await refused(
        store, "no_such_invitation", store.answer_invitation(invitation["id"], cleo, True, now)
    )
    await refused(
        store, "no_such_invitation", store.answer_invitation(invitation["id"], anna, True, now)
    )
    await refused(store, "no_such_invitation", store.answer_invitation("1", ben, True, now))  # type: ignore[arg-type]
    await refused(store, "bad_message", store.answer_invitation(invitation["id"], ben, True, "now"))  # type: ignore[arg-type]
    await refused(store, "bad_message", store.open_invitations(ben, None))  # type: ignore[arg-type]


@pytest.mark.asyncio
async def test_create_invitation_refusals(store: Store, clock: FakeClock) -> None:
    table, anna, ben = await setting(store)
    bot = (await store.bot_player("casual")).id
    later = clock.ms() + 60_000
    await refused(store, "no_such_table", store.create_invitation(404, anna, ben, later))
    await refused(store, "no_such_player", store.create_invitation(table, 404, ben, later))
    await refused(store, "no_such_player", store.create_invitation(table, anna, 404, later))
    await refused(store, "cannot_invite", store.create_invitation(table, anna, anna, later))
    await refused(store, "cannot_invite", store.create_invitation(table, anna, bot, later))
    await refused(store, "bad_message", store.create_invitation(table, anna, ben, -5))


@pytest.mark.asyncio
async def test_open_invitations_lists_both_directions_oldest_first(
    store: Store,
    clock: FakeClock,
) -> None:
    table, anna, ben = await setting(store)
    cleo = (await store.create_guest("Cleo")).id
    later = clock.ms() + 60_000
    first = await store.create_invitation(table, anna, ben, later)
    second = await store.create_invitation(table, cleo, anna, later)
    third = await store.create_invitation(table, ben, cleo, later)
    now = clock.ms()
    assert await store.open_invitations(anna, now) == [first, second]
    assert await store.open_invitations(ben, now) == [first, third]
    assert await store.open_invitations(404, now) == []
