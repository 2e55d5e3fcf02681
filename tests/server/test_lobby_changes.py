"""The lobby's changes, in process: the deltas a subscribed connection gets add up
to the lists a plain one gets, a node's shared lobby survives a lost delta (the
node's whole lists are read again), and a round of updates to many connections
gives the event loop turns between its batches."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace
from typing import Any

import pytest

from romme.server.config import ServerOptions
from romme.server.connection import Connection
from romme.server.lobby import UPDATE_BATCH, Lobby
from romme.server.lobby_feed import LobbyFeed, LobbyView, Subscription
from romme.server.lobby_share import LobbyShare, NodeLobby
from romme.server.registry import Registry
from romme.server.table import FINISHED, PLAYING, WAITING
from romme.server.timers import ManualClock
from romme.store.records import PlayerRecord

from .test_lobby_deltas import Lists


def _table(table_id: int, free: int = 1, status: str = "waiting") -> dict[str, Any]:
    return {"id": table_id, "host": f"h{table_id}", "status": status, "free_seats": free}


def _player(name: str, level: int = 1) -> dict[str, Any]:
    return {"nickname": name, "level": level}


def _connection(player_id: int = 1, nickname: str = "Anna") -> Connection:
    player = PlayerRecord(
        id=player_id,
        nickname=nickname,
        guest=True,
        is_bot=False,
        rating=0,
        mu=25,
        sigma=8,
        games_played=0,
        games_won=0,
    )
    conn = Connection(None, player)
    conn.lobby_feed = Subscription()
    conn.has_lobby = True  # as once it connected: welcome, then the whole lobby
    return conn


def test_deltas_add_up_to_the_whole_lists() -> None:
    feed = LobbyFeed()
    conn = _connection()
    rounds: list[tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]] = [
        ([_table(1), _table(2)], [_player("Anna"), _player("Ben")], []),
        ([_table(1, 0), _table(2)], [_player("Anna"), _player("Ben")], [_table(9)]),
        ([_table(1, 0)], [_player("Anna"), _player("Ben", 2)], [_table(9, 0)]),
        ([_table(1, 0)], [_player("Anna"), _player("Ben", 2)], [_table(9, 0)]),  # no change
        ([_table(1, 0, "playing"), _table(9, 0)], [_player("Anna")], []),  # 9 became public
        ([_table(3)], [_player("Anna"), _player("Cleo")], [_table(9, 0)]),  # ... and own again
    ]
    seen = Lists()
    seen.whole(feed.whole(conn, {"tables": [], "players": [], "playing": 0, "online": 0}))
    for public, players, own in rounds:
        feed.advance(LobbyView.of(public, players, 0, len(players)))
        feed.send(conn, own)
        while not conn.queue.empty():
            text = conn.queue.get_nowait()
            assert text is not None
            assert seen.apply(json.loads(text))
        expected = LobbyView.of(public, players, 0, len(players)).with_tables(
            {t["id"]: t for t in own}
        )
        assert (seen.tables, seen.players) == (expected.tables, expected.players)
    # The unchanged round sent nothing: five rounds with changes, five deltas.
    assert seen.deltas == 5


def test_a_node_lobby_is_rebuilt_after_a_lost_delta() -> None:
    lists = {"version": 3, "tables": [_table(1)], "private": [], "players": [], "online": [1]}
    old = NodeLobby.from_json({**lists, "playing": 0})
    new = NodeLobby.from_json(
        {
            "version": 3,
            "tables": [_table(2)],
            "private": [{"table": _table(5), "for": [7]}],
            "players": [_player("Ben")],
            "online": [1, 7],
            "playing": 1,
        }
    )
    assert old.delta_to(old) is None
    delta = old.delta_to(new)
    assert delta is not None
    lobby = Lobby(Registry(), None, ManualClock(), ServerOptions())  # type: ignore[arg-type]
    share = LobbyShare(None, "node-a", lobby)  # type: ignore[arg-type]
    share._others["node-b"] = NodeLobby.from_json({**lists, "playing": 0})
    # A delta after one that was lost: not applied, the node's lists are read again.
    share.received({"lobby": "node-b", "version": 5, **delta})
    assert "node-b" in share._stale and [t["id"] for t in lobby.others.tables] == []
    share._stale.clear()
    share.received({"lobby": "node-b", "version": 4, **delta})
    assert [t["id"] for t in lobby.others.tables] == [2]
    assert lobby.others.playing == 1
    assert lobby.tables_for(7)[-1]["id"] == 5 and all(t["id"] != 5 for t in lobby.tables_for(8))
    assert lobby.registry.online_anywhere(7) and not lobby.registry.online_anywhere(8)
    # Its own deltas come back over romme:all: ignored.
    share.received({"lobby": "node-a", "version": 1, **delta})
    assert set(share._others) == {"node-b"}


@pytest.mark.asyncio
async def test_a_round_of_updates_gives_the_loop_turns_between_batches() -> None:
    registry = Registry()
    lobby = Lobby(registry, None, ManualClock(), ServerOptions())  # type: ignore[arg-type]
    count = 2 * UPDATE_BATCH + UPDATE_BATCH // 2
    conns = []
    for player_id in range(1, count + 1):
        conn = _connection(player_id, f"p{player_id}")
        conn.lobby_feed = None  # takes whole lists
        registry.add(conn)
        lobby.player_online(conn.player)
        conns.append(conn)
    updated: list[int] = []
    """How many connections had their update each time another task got a turn."""

    async def other_task() -> None:
        while not updated or updated[-1] < count:
            updated.append(sum(conn.lobby_slot is not None for conn in conns))
            await asyncio.sleep(0)

    await asyncio.gather(lobby._send_update(), other_task())
    assert updated == [UPDATE_BATCH, 2 * UPDATE_BATCH, count]
    update = json.loads(conns[0].lobby_slot or "")
    assert update["type"] == "lobby_update" and update["online"] == count


def test_the_lobby_round_skips_the_followers_of_running_games() -> None:
    """``in_lobby_now`` gathers the running games' followers from the tables and
    answers as ``in_lobby`` does for every connection."""
    registry = Registry()
    playing, waiting, free, gone = (_connection(i, f"p{i}") for i in range(1, 5))
    for conn in (playing, waiting, free, gone):
        registry.add(conn)
    gone.closed = True
    tables = {
        1: SimpleNamespace(id=1, host_id=1, status=PLAYING, subscribers={playing: 0}),
        2: SimpleNamespace(id=2, host_id=2, status=WAITING, subscribers={waiting: 0}),
    }
    for table_id, table in tables.items():
        registry.tables[table_id] = table  # type: ignore[assignment]
        for conn in table.subscribers:
            conn.tables.add(table_id)

    def agrees() -> set[Connection]:
        now = registry.in_lobby_now()
        assert set(now) == {
            c for c in registry.connections if not c.closed and registry.in_lobby(c)
        }
        return set(now)

    assert agrees() == {waiting, free}
    tables[1].status = FINISHED
    tables[2].status = PLAYING
    assert agrees() == {playing, free}
    # A connection registered but not yet sent its whole lobby gets no update
    # before it (docs/protocol.md "On connect": welcome, then lobby).
    new = _connection(5, "p5")
    new.has_lobby = False
    registry.add(new)
    assert new not in agrees()
    new.has_lobby = True
    assert new in agrees()
