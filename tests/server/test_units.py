"""Unit tests of the server's pure parts: settings, messages, limits, the view
encoder, the clocks, sessions."""

from __future__ import annotations

import gc
import hashlib
import json
import weakref

import pytest

from romme.engine.actions import Action
from romme.engine.game import Game
from romme.engine.reference import play_game
from romme.engine.rules import Rules
from romme.server import messages
from romme.server.auth import Sessions, load_secret
from romme.server.encode import ViewEncoder
from romme.server.gcpolicy import GcPolicy
from romme.server.loopwatch import SECONDS, LoopWatch
from romme.server.protocol import (
    ActionMsg,
    ProtocolError,
    RateLimiter,
    SetSeat,
    parse_message,
    table_action,
)
from romme.server.settings import parse_settings
from romme.server.timers import ManualClock


def test_settings_defaults_and_rules() -> None:
    settings = parse_settings({})
    assert settings.to_json() == {
        "preset": "classic",
        "access": "open",
        "seats": 2,
        "bots": {},
        "point_limit": 100,
        "hand_rummy": True,
        "knock": False,
        "turn_seconds": 30,
        "stake": 0,
    }
    rules = parse_settings(
        {"seats": 3, "knock": True, "point_limit": 1, "hand_rummy": False, "turn_seconds": 15}
    ).rules()
    assert rules.knock and rules.point_limit == 1 and not rules.hand_rummy
    assert rules.turn_seconds == 15
    three = parse_settings({"preset": "three-rounds"})
    assert three.seats == 4 and three.rules().scoring == "rounds"
    between = parse_settings({"seats": 3, "bots": {"1": "casual+40", "2": "strong"}})
    assert between.bots == {1: "casual+40", 2: "strong"}


@pytest.mark.parametrize(
    ("settings", "reason"),
    [
        ({"seats": 1}, "seats"),
        ({"seats": 5}, "seats"),
        ({"turn_seconds": 14}, "turn_seconds"),
        ({"turn_seconds": 121}, "turn_seconds"),
        ({"point_limit": 0}, "point_limit"),
        ({"knock": True}, "knock"),
        ({"bots": {"0": "casual"}}, "seat 0 is the host"),
        ({"bots": {"1": "grandmaster"}}, "level"),
        ({"bots": {"1": "expert+10"}}, "level"),
        ({"bots": {"1": "casual+0"}}, "level"),
        ({"preset": "three-rounds", "knock": True, "seats": 4}, "knock"),
        ({"preset": "three-rounds", "point_limit": 50}, "point limit"),
        ({"preset": "poker"}, "preset"),
        ({"color": "red"}, "unknown setting"),
        ({"hand_rummy": "yes"}, "hand_rummy"),
        ({"stake": -10}, "stake"),
        ({"stake": 2.5}, "stake"),
        ({"stake": "100"}, "stake"),
        ({"stake": 1_000_001}, "stake"),
    ],
)
def test_bad_settings_say_why(settings: dict[str, object], reason: str) -> None:
    with pytest.raises(ProtocolError) as info:
        parse_settings(settings)
    assert info.value.code == "bad_settings" and reason in info.value.message


def test_messages_parse_with_their_ids() -> None:
    message, msg_id = parse_message(
        '{"type": "action", "table": 3, "id": "x1", "action": {"type": "discard", "card": "7h"}}',
        16384,
    )
    assert isinstance(message, ActionMsg) and msg_id == "x1"
    seat, _ = parse_message(
        '{"type": "set_seat", "table": 1, "seat": 2, "bot": "beginner+70"}', 999
    )
    assert isinstance(seat, SetSeat) and seat.bot == "beginner+70"
    action = table_action(message.action, seat=2)
    assert action.to_json() == {"type": "discard", "seat": 2, "card": "7H"}
    for text, code in [
        ("nope", "bad_json"),
        ("[]", "bad_json"),
        ('{"type": 5}', "unknown_type"),
        ('{"type": "join_table"}', "bad_message"),
        ('{"type": "join_table", "table": true}', "bad_message"),
        ('{"type": "answer_invitation", "invitation": 1}', "bad_message"),
        ('{"type": "lobby_chat", "text": "' + "é" * 9000 + '"}', "too_large"),
        ('{"type": "set_seat", "table": 1, "seat": 1, "bot": "strong+100"}', "bad_message"),
        ('{"type": "start_game", "table": 1, "fill": "expert+1"}', "bad_message"),
    ]:
        with pytest.raises(ProtocolError) as info:
            parse_message(text, 16384)
        assert info.value.code == code
    with pytest.raises(ProtocolError) as info:
        table_action({"type": "next_round"}, 0)
    assert info.value.code == "bad_message"


def test_rate_limiter_allows_bursts_then_the_sustained_rate() -> None:
    now = 1000.0
    limiter = RateLimiter(rate=20, burst=40, now=now)
    assert all(limiter.allow(now) for _ in range(40))
    assert not limiter.allow(now)
    assert limiter.allow(now + 0.06)
    assert not limiter.allow(now + 0.06)
    assert sum(limiter.allow(now + 1 + i / 100) for i in range(100)) <= 41


def test_view_encoder_matches_the_engine_over_whole_matches() -> None:
    for preset, seats in (("classic", 4), ("three-rounds", 4), ("classic", 2)):
        rules = Rules.preset(preset, knock=True) if preset == "classic" else Rules.three_rounds()
        game = Game(rules, seats, hashlib.sha256(f"enc-{preset}-{seats}".encode()).digest())
        encoder = ViewEncoder()

        def checked(game: Game, _action: Action, encoder: ViewEncoder = encoder) -> None:
            for seat in (*range(game.seats), None):
                view = game.view_for(seat)
                assert encoder.view(view) == view.to_json()
                # The seats' views built from one shared part are each seat's own:
                # nothing of another seat's hand, nothing missing.
                assert encoder.seat_view(game, seat) == view.to_json()

        play_game(game, on_action=checked)


def test_manual_clock_runs_timers_in_order() -> None:
    clock = ManualClock(start_ms=0, scale=10)
    fired: list[str] = []
    clock.call_later(30, lambda: fired.append("turn"))  # 3 s real
    knock = clock.call_later(3, lambda: fired.append("knock"))
    clock.call_later(1, lambda: fired.append("first"))
    knock.cancel()
    assert clock.deadline_ms(30) == 3000
    assert clock.advance(200) == 1 and fired == ["first"]
    clock.advance(5000)
    assert fired == ["first", "turn"] and clock.now_ms() == 5200


def test_sessions_sign_and_refuse_forgeries(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pathlib import Path

    monkeypatch.delenv("ROMME_SECRET", raising=False)
    path = Path(str(tmp_path)) / "var" / "secret"
    secret = load_secret(None, path)
    assert load_secret(None, path) == secret and path.stat().st_mode & 0o777 == 0o600
    sessions = Sessions(secret)
    cookie = sessions.cookie(42, "token")
    assert sessions.read(cookie) == (42, "token")
    assert sessions.read(cookie[:-2] + "xx") is None
    assert Sessions("another secret").read(cookie) is None
    assert sessions.read(None) is None


class _Node:
    """A container that can take part in a reference cycle."""

    def __init__(self) -> None:
        self.other: object = None


def test_gc_policy_freezes_and_now_and_then_collects_everything() -> None:
    policy = GcPolicy(freeze_every=10, full_every=100)
    try:
        policy.start(now=0)
        assert gc.get_freeze_count() > 0
        assert policy.tick(now=5) is None
        # A cycle that was alive at a freeze, then dropped: the collector does not
        # scan frozen objects, so an ordinary collection leaves it...
        a, b = _Node(), _Node()
        a.other, b.other = b, a
        probe = weakref.ref(a)
        assert policy.tick(now=10) == "freeze"
        del a, b
        gc.collect()
        assert probe() is not None
        assert policy.tick(now=50) == "freeze"
        # ... until the full collection, which unfreezes, collects and freezes again.
        assert policy.tick(now=100) == "full"
        assert probe() is None
        assert gc.get_freeze_count() > 0
        assert policy.tick(now=105) is None
    finally:
        policy.stop()
    assert gc.get_freeze_count() == 0


def test_loop_watch_keeps_the_worst_lateness_of_each_second() -> None:
    watch = LoopWatch()
    watch.record(100.2, 0.003)
    watch.record(100.7, 0.040)
    watch.record(100.9, 0.001)
    watch.record(102.5, 0.120)
    lag = watch.lag_ms(now=102.6)
    assert len(lag) == SECONDS
    assert lag[-3:] == [40, 0, 120]
    assert lag[:-3] == [0] * (SECONDS - 3)
    # Seconds older than a minute are forgotten.
    assert watch.lag_ms(now=102.6 + SECONDS) == [0] * SECONDS


@pytest.mark.parametrize("msg_id", [None, 7, 'a"b', {"n": [1, 2]}, 1.5])
def test_an_id_added_to_encoded_text_is_the_same_as_encoding_with_the_id(msg_id: object) -> None:
    data = {"type": "update", "table": 3, "version": 9, "events": [{"type": "drew"}]}
    assert messages.with_id_text(messages.dumps(data), msg_id) == messages.dumps(
        messages.with_id(data, msg_id)
    )


@pytest.mark.parametrize(
    "data",
    [
        {"type": "update", "seats": [{"nickname": "Ännä ♥", "cards": 13}], "ok": True, "x": None},
        {"scores": {1: 10, 2: 0}},  # integer keys: orjson refuses them without an option
        {"chips": 2**70},  # beyond 64 bits: orjson refuses it
        {"ratio": 0.1, "nested": [[1, [2, {"a": "\u2028"}]]]},
    ],
)
def test_server_messages_are_the_standard_librarys_compact_json(data: object) -> None:
    assert messages.dumps(data) == json.dumps(data, separators=(",", ":"), ensure_ascii=False)
