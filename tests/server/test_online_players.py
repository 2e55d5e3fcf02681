"""The players online on a node, kept in the lobby's order as they come and go."""

from __future__ import annotations

import random

from romme.server.online import OnlinePlayers
from romme.store import PlayerRecord


def _player(player_id: int, nickname: str, xp: int = 0) -> PlayerRecord:
    return PlayerRecord(
        id=player_id, nickname=nickname, guest=False, is_bot=False, rating=0.0,
        mu=25.0, sigma=8.3, games_played=0, games_won=0, xp=xp,
    )  # fmt: skip


def test_players_come_and_go_and_stay_in_nickname_order_ignoring_case() -> None:
    rng = random.Random(5)
    names = [
        f"{rng.choice(['a', 'B', 'c', 'D', 'é'])}{i:04d}{rng.choice('xYz')}" for i in range(400)
    ]
    online = OnlinePlayers()
    here: dict[int, PlayerRecord] = {}
    for step in range(3000):
        player_id = rng.randrange(len(names))
        if player_id in here and rng.random() < 0.5:
            online.remove(player_id)
            del here[player_id]
        else:
            player = _player(player_id, names[player_id], xp=step)
            online.add(player)
            here.setdefault(player_id, player)  # a second connection changes nothing
        if step % 100 == 0:
            expected = sorted(here.values(), key=lambda p: p.nickname.casefold())
            assert online.first(50) == [p.to_json() for p in expected[:50]]
            assert len(online) == len(here)
            assert all(player_id in online for player_id in here)


def test_removing_a_player_not_online_changes_nothing() -> None:
    online = OnlinePlayers()
    online.add(_player(1, "Anna"))
    online.remove(2)
    assert online.first(10) == [_player(1, "Anna").to_json()] and len(online) == 1
