"""Checks on everything a client received in a whole match: each view and each
event is exactly what the engine shows that seat at that version (so no card the
seat may not see ever reached it), and the finished game's log replays and
verifies."""

from __future__ import annotations

from typing import Any

from romme.engine.actions import action_from_json
from romme.engine.cards import Card
from romme.engine.events import Event, HandDealt, RoundStarted
from romme.engine.fairness import verify_deal
from romme.engine.game import Game
from romme.engine.rules import Rules


class Replay:
    """The game of a finished table's log, stepped version by version."""

    def __init__(self, log: dict[str, Any]) -> None:
        self.rules = Rules.from_json(log["rules"])
        self.seats = len(log["seats"])
        self.seed = bytes.fromhex(log["match_seed"])
        self.actions = [action_from_json(a) for a in log["actions"]]
        self.game = Game(self.rules, self.seats, self.seed)
        self.events: dict[int, list[Event]] = {}

    def at(self, version: int) -> Game:
        if version < self.game.version:
            raise AssertionError(f"versions went backwards: {version} < {self.game.version}")
        while self.game.version < version:
            version_after = self.game.version + 1
            events = self.game.apply(self.actions[self.game.version])
            self.events[version_after] = events
        return self.game


def check_messages(messages: list[dict[str, Any]], table: int, log: dict[str, Any]) -> int:
    """Compare every table message one client got with the replayed game; return
    how many views were checked."""
    replay = Replay(log)
    seat: int | None = None
    checked = 0
    for message in messages:
        kind = message.get("type")
        if kind == "table" and message["table"]["id"] == table:
            data = message["table"]
            seat = data["my_seat"]
            if data["view"] is not None:
                game = replay.at(data["version"])
                assert data["view"] == game.view_for(seat).to_json()
                checked += 1
        elif kind == "update" and message["table"] == table:
            game = replay.at(message["version"])
            expected = [e.for_seat(seat) for e in replay.events[message["version"]]]
            assert message["events"] == [e.to_json() for e in expected if e is not None]
            if message["view"] is not None:
                assert message["view"] == game.view_for(seat).to_json()
                if seat is None:
                    assert message["view"]["hand"] == []
                checked += 1
            for event in replay.events[message["version"]]:
                if isinstance(event, HandDealt) and event.seat != seat:
                    dealt = [str(c) for c in event.cards]
                    assert all(e.get("cards") != dealt for e in message["events"])
    return checked


def check_log(log: dict[str, Any], winners: list[int]) -> Game:
    """The log replays to the same winners, and every deal verifies against its
    revealed seed and commitment."""
    replay = Replay(log)
    game = replay.at(len(replay.actions))
    assert game.is_over
    assert list(game.winners) == winners == log["winners"]
    assert len(log["rounds"]) == len(game.results)
    for info, result in zip(log["rounds"], game.results, strict=True):
        assert info["seed"] == result.seed and info["commitment"] == result.commitment
    # Verify each deal: replay to the start of each round and compare with the seed.
    check = Game(replay.rules, replay.seats, replay.seed)
    for action in replay.actions:
        events = check.apply(action)
        started = [e for e in events if isinstance(e, RoundStarted)]
        if started:
            round_info = log["rounds"][started[0].round_no - 1]
            order: list[int] = []
            seat = check.dealer
            for _ in range(len(check.active_seats())):
                seat = check.next_active(seat)
                order.append(seat)
            hands: list[tuple[Card, ...]] = [
                next(e.cards for e in events if isinstance(e, HandDealt) and e.seat == s)
                for s in order
            ]
            assert verify_deal(
                round_info["seed"],
                round_info["commitment"],
                hands,
                started[0].upcard,
                replay.rules.hand_size,
            )
    return game
