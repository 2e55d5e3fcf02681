"""Accounts: nickname and password rules, guests, registration, login, bots."""

from __future__ import annotations

import asyncio
import unicodedata
from typing import Any

import pytest
from argon2 import PasswordHasher

from romme.store import PlayerRecord, Store, StoreError, validate_nickname
from romme.store import accounts as accounts_module

from .helpers import refused, snapshot

# ----------------------------------------------------------- nickname rules


@pytest.mark.parametrize(
    "nickname",
    [
        "Anna",
        "ben",
        "a_b",
        "x.y-z",
        "007",
        "Jürgen",
        "Ωμέγα",
        "Влад",
        "山田太郎",
        "हिन्दी",
        "a" * 20,
        "Anna.",
    ],
)
def test_valid_nicknames(nickname: str) -> None:
    assert validate_nickname(nickname) == unicodedata.normalize("NFC", nickname)


@pytest.mark.parametrize(
    ("nickname", "code"),
    [
        ("", "nickname_length"),
        ("ab", "nickname_length"),
        ("a" * 21, "nickname_length"),
        ("_anna", "nickname_characters"),
        (".anna", "nickname_characters"),
        ("-anna", "nickname_characters"),
        ("an na", "nickname_characters"),
        ("anna!", "nickname_characters"),
        ("<script>", "nickname_characters"),
        ("anna\u200b", "nickname_characters"),  # zero-width space
        ("anna\x00", "nickname_characters"),
        ("\u0301anna", "nickname_characters"),  # a combining mark cannot start one
        ("🃏🃏🃏", "nickname_characters"),
    ],
)
def test_invalid_nicknames(nickname: str, code: str) -> None:
    with pytest.raises(StoreError) as info:
        validate_nickname(nickname)
    assert info.value.code == code


def test_nickname_is_nfc_normalised() -> None:
    decomposed = "Jo\u0065\u0301l"  # e + combining acute
    assert validate_nickname(decomposed) == "Jo\u00e9l"


def test_ten_thousand_characters_are_refused_before_any_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    original = unicodedata.normalize

    def normalize(form: Any, text: str) -> str:
        if len(text) > 1000:
            raise AssertionError("a huge nickname must not be normalised")
        return original(form, text)

    monkeypatch.setattr(accounts_module.unicodedata, "normalize", normalize)
    with pytest.raises(StoreError) as info:
        validate_nickname("a" * 10_000)
    assert info.value.code == "nickname_length"


def test_nickname_keys_ignore_case() -> None:
    key = accounts_module.nickname_key
    assert key("Anna") == key("ANNA") == key("anna")
    assert key("Jürgen") == key("JÜRGEN")
    assert key("Strauß") == key("STRAUSS")


# ------------------------------------------------------------------- guests


@pytest.mark.asyncio
async def test_create_guest(store: Store) -> None:
    anna = await store.create_guest("Anna")
    assert isinstance(anna, PlayerRecord)
    assert (anna.nickname, anna.guest, anna.is_bot) == ("Anna", True, False)
    assert (anna.games_played, anna.games_won, anna.rating) == (0, 0, 0.0)
    assert anna.to_json() == {
        "id": anna.id,
        "nickname": "Anna",
        "guest": True,
        "rating": 1500,
        "level": 1,
    }
    assert await store.get_player(anna.id) == anna
    assert await store.find_player("aNNA") == anna


@pytest.mark.asyncio
async def test_guest_nickname_is_stored_normalised(store: Store) -> None:
    joel = await store.create_guest("Jo\u0065\u0301l")
    assert joel.nickname == "Jo\u00e9l"
    assert await store.find_player("JO\u0045\u0301L") == joel


@pytest.mark.asyncio
async def test_nickname_taken_without_regard_to_case(store: Store) -> None:
    await store.create_guest("Anna")
    error = await refused(store, "nickname_taken", store.create_guest("ANNA"))
    assert "ANNA" in error.message
    await refused(store, "nickname_taken", store.register("anna", "password1"))


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("nickname", "code"),
    [
        ("ab", "nickname_length"),
        ("a" * 10_000, "nickname_length"),
        ("<b>x</b>", "nickname_characters"),
        (None, "nickname_characters"),
    ],
)
async def test_create_guest_refuses_bad_nicknames(store: Store, nickname: str, code: str) -> None:
    await refused(store, code, store.create_guest(nickname))


@pytest.mark.asyncio
async def test_concurrent_guests_with_one_nickname(store: Store) -> None:
    results = await asyncio.gather(
        *(store.create_guest(name) for name in ["Zoe", "ZOE", "zoe", "zOe"]),
        return_exceptions=True,
    )
    created = [r for r in results if isinstance(r, PlayerRecord)]
    refusals = [r for r in results if isinstance(r, StoreError)]
    assert len(created) == 1
    assert len(refusals) == 3 and all(r.code == "nickname_taken" for r in refusals)


# ------------------------------------------------------------- registration


@pytest.mark.asyncio
async def test_register_and_login(store: Store) -> None:
    anna = await store.register("Anna", "correct horse")
    assert (anna.guest, anna.is_bot) == (False, False)
    assert await store.login("anna", "correct horse") == anna
    await refused(store, "bad_credentials", store.login("Anna", "wrong horse"))
    await refused(store, "bad_credentials", store.login("Nobody", "correct horse"))


@pytest.mark.asyncio
async def test_password_is_stored_as_an_argon2_hash(store: Store) -> None:
    await store.register("Anna", "correct horse")
    rows = await snapshot(store)
    (row,) = rows["players"]
    assert "correct horse" not in row
    assert "$argon2id$" in row


@pytest.mark.asyncio
@pytest.mark.parametrize("password", ["", "short", "x" * 7, "x" * 129, "x" * 10_000, None])
async def test_register_refuses_bad_passwords(store: Store, password: str) -> None:
    await refused(store, "password_length", store.register("Anna", password))


@pytest.mark.asyncio
async def test_password_limits_are_inclusive(store: Store) -> None:
    await store.register("Anna", "x" * 8)
    await store.register("Ben", "y" * 128)
    assert (await store.login("ben", "y" * 128)).nickname == "Ben"


@pytest.mark.asyncio
async def test_register_refuses_bad_nicknames_first(store: Store) -> None:
    await refused(store, "nickname_length", store.register("a" * 10_000, "x" * 10_000))
    await refused(store, "nickname_characters", store.register("a b", "password1"))


@pytest.mark.asyncio
async def test_taken_nickname_is_refused_before_hashing(store: Store) -> None:
    class CountingHasher(PasswordHasher):
        calls = 0

        def hash(self, password: str | bytes, *, salt: bytes | None = None) -> str:
            CountingHasher.calls += 1
            return super().hash(password, salt=salt)

    cheap = CountingHasher(time_cost=1, memory_cost=8, parallelism=1)
    counting = await Store.open(store.url, password_hasher=cheap)
    try:
        await counting.register("Anna", "password1")
        assert CountingHasher.calls == 1
        await refused(counting, "nickname_taken", counting.register("ANNA", "password2"))
        assert CountingHasher.calls == 1
    finally:
        await counting.close()


@pytest.mark.asyncio
async def test_login_refuses_cheaply(store: Store) -> None:
    await store.register("Anna", "password1")
    attempts: list[tuple[Any, Any]] = [
        ("a" * 10_000, "password1"),
        ("Anna", "x" * 10_000),
        ("Anna", ""),
        (None, None),
    ]
    for nickname, password in attempts:
        await refused(store, "bad_credentials", store.login(nickname, password))


@pytest.mark.asyncio
async def test_guest_cannot_log_in(store: Store) -> None:
    await store.create_guest("Anna")
    await refused(store, "bad_credentials", store.login("Anna", "password1"))


@pytest.mark.asyncio
async def test_guest_registers_its_own_nickname_and_keeps_its_history(store: Store) -> None:
    guest = await store.create_guest("Anna")
    bot = await store.bot_player("casual")
    table = await store.create_table(guest.id, {}, {}, [], bytes(32))
    await store.finish_game(
        table, winners=[0], totals=[0, 40], seat_players=[guest.id, bot.id], results=[]
    )
    registered = await store.register("anna", "password1", guest_id=guest.id)
    assert registered.id == guest.id
    assert (registered.nickname, registered.guest) == ("anna", False)
    assert (registered.games_played, registered.games_won) == (1, 1)
    assert registered.rating == 0.0  # a guest's rating was never kept
    assert await store.login("ANNA", "password1") == registered
    info = await store.player_info("anna")
    assert info is not None and [r["game"] for r in info["recent"]] == [table]


@pytest.mark.asyncio
async def test_guest_may_register_under_another_free_nickname(store: Store) -> None:
    guest = await store.create_guest("Anna")
    registered = await store.register("Annabelle", "password1", guest_id=guest.id)
    assert (registered.id, registered.nickname, registered.guest) == (guest.id, "Annabelle", False)
    assert await store.find_player("Anna") is None
    assert await store.create_guest("Anna") != registered


@pytest.mark.asyncio
async def test_guest_cannot_register_someone_elses_nickname(store: Store) -> None:
    guest = await store.create_guest("Anna")
    await store.create_guest("Ben")
    await refused(store, "nickname_taken", store.register("ben", "password1", guest_id=guest.id))


@pytest.mark.asyncio
async def test_register_with_a_guest_id_that_is_no_guest(store: Store) -> None:
    anna = await store.register("Anna", "password1")
    bot = await store.bot_player("strong")
    await refused(store, "no_such_player", store.register("Anna", "password2", guest_id=anna.id))
    await refused(store, "no_such_player", store.register("Ben", "password2", guest_id=bot.id))
    await refused(store, "no_such_player", store.register("Ben", "password2", guest_id=999_999))


@pytest.mark.asyncio
async def test_login_rehashes_old_parameters(store: Store) -> None:
    await store.register("Anna", "password1")
    stronger = PasswordHasher(time_cost=2, memory_cost=1024, parallelism=1)
    other = await Store.open(store.url, password_hasher=stronger)
    try:
        await other.login("Anna", "password1")
        rows = await snapshot(other)
        assert "m=1024,t=2,p=1" in rows["players"][0]
        assert (await other.login("Anna", "password1")).nickname == "Anna"
    finally:
        await other.close()


@pytest.mark.asyncio
async def test_default_hasher_is_argon2id(db_url: str) -> None:
    store = await Store.open(db_url)
    try:
        name = "Default" + str(id(store) % 10_000)
        await store.register(name, "password1")
        rows = await snapshot(store)
        (row,) = [r for r in rows["players"] if name in r]
        assert "$argon2id$v=19$m=65536,t=3,p=4$" in row
        assert (await store.login(name, "password1")).nickname == name
    finally:
        await store.close()


# ------------------------------------------------------------------ lookups


@pytest.mark.asyncio
async def test_lookups_of_unknown_players(store: Store) -> None:
    assert await store.get_player(12345) is None
    assert await store.get_player("1") is None  # type: ignore[arg-type]
    assert await store.find_player("Nobody") is None
    assert await store.find_player("x" * 10_000) is None
    assert await store.player_info("Nobody") is None


# --------------------------------------------------------------------- bots


@pytest.mark.asyncio
async def test_bot_player_is_one_persistent_account_per_level(store: Store) -> None:
    casual = await store.bot_player("casual")
    assert (casual.nickname, casual.is_bot, casual.guest) == ("Bot casual", True, False)
    assert await store.bot_player("casual") == casual
    assert (await store.bot_player("expert")).id != casual.id
    assert await store.find_player("bot CASUAL") == casual
    both = await asyncio.gather(store.bot_player("beginner"), store.bot_player("beginner"))
    assert both[0] == both[1]


@pytest.mark.asyncio
@pytest.mark.parametrize("level", ["", "Casual", "x" * 10_000, "a b", None])
async def test_bot_player_refuses_bad_levels(store: Store, level: str) -> None:
    await refused(store, "bad_settings", store.bot_player(level))


@pytest.mark.asyncio
async def test_nobody_can_take_a_bots_nickname(store: Store) -> None:
    await store.bot_player("casual")
    await refused(store, "nickname_characters", store.create_guest("Bot casual"))
