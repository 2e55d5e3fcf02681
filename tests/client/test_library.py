"""romme.client against a real server: whole games played with romme.bots, every
view it decoded checked against the replayed game, refusals as exceptions, a lost
connection survived, a missed update asked for again."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from romme.bots import make_bot
from romme.client import Client, ConnectionRefused, ServerError, TableState, play_table
from romme.engine.actions import Discard, Draw
from romme.engine.game import Game
from romme.engine.view import SeatView
from tests.server.conftest import ServerFactory
from tests.server.helpers import ServerProcess
from tests.server.verify import Replay, check_log, check_messages

from .conftest import game_log, nickname

pytestmark = pytest.mark.asyncio


async def guest(server: ServerProcess, prefix: str = "lib") -> Client:
    client = Client(server.base)
    await client.login_guest(nickname(prefix))
    await client.connect()
    return client


def recorder(client: Client) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    client.add_listener(messages.append)
    return messages


async def test_a_bot_plays_whole_games_and_every_view_is_the_engines(
    shared_server: ServerProcess,
) -> None:
    client = await guest(shared_server)
    messages = recorder(client)
    views: list[tuple[int, SeatView]] = []
    bot = make_bot("casual", seed=3)

    def decide(view: SeatView) -> Any:
        views.append((view.version, view))
        return bot.decide(view)

    try:
        # Two minutes a turn (12 s at the shared server's time scale): the client's
        # moves come in time on a loaded machine, so the server never moves for it.
        settings: Any = {
            "seats": 3,
            "bots": {"1": "beginner", "2": "beginner"},
            "point_limit": 1,
            "turn_seconds": 120,
        }
        table = await client.create_table(settings)
        assert table.my_seat == 0 and table.status == "waiting"
        await client.start_game(table.id)
        end = await asyncio.wait_for(play_table(client, table.id, decide), 120)
    finally:
        await client.close()
    log = game_log(shared_server, table.id)
    assert check_log(log, list(end.winners)).totals == list(end.totals)
    assert check_messages(messages, table.id, log) > 0
    # Each view the bot decided on is the engine's own view of seat 0 at that version.
    replay = Replay(log)
    assert views
    for version, view in views:
        assert view == replay.at(version).view_for(0)
    # The seat was played by the client, never by the server's timer or a stand-in.
    mine = [a for a in log["actions"] if a.get("seat") == 0]
    assert mine and all("by" not in a for a in mine)
    assert table.game_over is end and table.status == "finished"


async def test_a_refused_move_is_a_server_error_with_the_protocol_code(
    shared_server: ServerProcess,
) -> None:
    client = await guest(shared_server)
    try:
        # The turn (12 s here) does not time out while the refusals are checked.
        table = await client.create_table(
            {"seats": 2, "bots": {"1": "beginner"}, "point_limit": 1, "turn_seconds": 120}
        )
        with pytest.raises(ServerError) as refused:
            await client.act(table.id, Draw(0, "stock"))
        assert refused.value.code == "not_started"
        await client.start_game(table.id)
        await client.wait_for(
            lambda: table.view is not None and table.view.my_turn and table.view.phase == "draw",
            timeout=20,
        )
        view = table.view
        assert view is not None
        timer = table.timer
        assert timer is not None and timer.seat == 0
        assert 0 < timer.seconds_left(client.server_now_ms()) <= timer.seconds
        # Discarding before drawing is the engine's refusal, with its code; nothing changes.
        before = table.version
        with pytest.raises(ServerError) as refused:
            await client.act(table.id, Discard(0, view.hand[0]))
        assert refused.value.code == "must_draw"
        await client.request({"type": "ping"})
        assert table.version == before and table.view is view
        with pytest.raises(ServerError) as refused:
            await client.request({"type": "no_such_message"})
        assert refused.value.code == "unknown_type"
        with pytest.raises(ServerError) as refused:
            await client.create_table({"seats": 9})
        assert refused.value.code == "bad_settings"
    finally:
        await client.close()


async def test_many_requests_wait_for_the_rate_limit_instead_of_being_refused(
    shared_server: ServerProcess,
) -> None:
    client = await guest(shared_server)
    try:
        replies = await asyncio.gather(*(client.request({"type": "ping"}) for _ in range(80)))
    finally:
        await client.close()
    assert [r["type"] for r in replies] == ["pong"] * 80


async def test_a_lost_connection_is_opened_again_and_the_game_goes_on(
    shared_server: ServerProcess,
) -> None:
    client = await guest(shared_server)
    bot = make_bot("casual", seed=5)
    drops = 0
    dropped_at = 1

    async def decide(view: SeatView) -> Any:
        nonlocal drops, dropped_at
        # On two of the client's turns in a row (a deal is random: a round may end
        # after a few of them, so not at fixed versions).
        if drops < 2 and view.version > dropped_at:
            # Cut the connection under the client's feet, as a network loss would.
            drops += 1
            dropped_at = view.version
            ws = client._ws
            assert ws is not None
            ws.transport.abort()
        return bot.decide(view)

    try:
        table = await client.create_table({"seats": 2, "bots": {"1": "beginner"}, "point_limit": 1})
        await client.start_game(table.id)
        end = await asyncio.wait_for(play_table(client, table.id, decide), 120)
    finally:
        await client.close()
    assert drops == 2
    log = game_log(shared_server, table.id)
    check_log(log, list(end.winners))


async def test_a_server_restart_is_waited_out_and_the_game_goes_on(
    make_server: ServerFactory,
) -> None:
    server = make_server(bot_delay=0.1)
    client = await guest(server, "restart")
    messages = recorder(client)
    try:
        table = await client.create_table({"seats": 2, "bots": {"1": "beginner"}, "point_limit": 1})
        await client.start_game(table.id)
        playing = asyncio.create_task(play_table(client, table.id, make_bot("casual").decide))
        await client.wait_for(lambda: (table.version or 0) >= 6, timeout=60)
        assert await asyncio.to_thread(server.stop) == 0
        await client.wait_for(lambda: not client.connected, timeout=10)
        await asyncio.to_thread(server.start)  # the same port, the same database
        end = await asyncio.wait_for(playing, 120)
    finally:
        await client.close()
    assert any(m["type"] == "shutdown" for m in messages)
    assert any(m["type"] == "welcome" for m in messages)  # the second one
    check_log(game_log(server, table.id), list(end.winners))


async def test_a_gap_in_the_versions_is_filled_by_resync(shared_server: ServerProcess) -> None:
    """The client forgets the newest update once, as if it had never come: the next
    one leaves a gap, which the client fills with ``resync`` from the real server."""
    client = await guest(shared_server, "gap")
    messages = recorder(client)
    forgot: list[int] = []

    def forget(message: dict[str, Any]) -> None:
        if message["type"] != "update" or forgot:
            return
        state = client.tables[message["table"]]
        if (state.version or 0) >= 5:
            forgot.append(message["version"])
            state.version = message["version"] - 1

    client.add_listener(forget)
    try:
        table = await client.create_table({"seats": 2, "bots": {"1": "beginner"}, "point_limit": 1})
        await client.start_game(table.id)
        end = await asyncio.wait_for(play_table(client, table.id, make_bot("casual").decide), 120)
    finally:
        await client.close()
    assert forgot
    # The server replayed the forgotten update (without a view, as replays come).
    replayed = [m for m in messages if m["type"] == "update" and m["version"] == forgot[0]]
    assert len(replayed) == 2 and replayed[1]["view"] is None
    log = game_log(shared_server, table.id)
    check_log(log, list(end.winners))
    # Every update, the first copy of the replayed ones included, is the engine's.
    newest, firsts = 0, []
    for message in messages:
        if message["type"] == "update":
            if message["version"] <= newest:
                continue
            newest = message["version"]
        firsts.append(message)
    assert check_messages(firsts, table.id, log) > 0


async def test_a_missed_update_is_asked_for_again(shared_server: ServerProcess) -> None:
    """Updates recorded from a real game, one left out: the state notices the gap
    and takes nothing after it until the missing ones come (as ``resync`` sends them)."""
    client = await guest(shared_server)
    messages = recorder(client)
    try:
        table = await client.create_table({"seats": 2, "bots": {"1": "beginner"}, "point_limit": 1})
        await client.start_game(table.id)
        await asyncio.wait_for(play_table(client, table.id, make_bot("casual").decide), 120)
    finally:
        await client.close()
    updates = [m for m in messages if m["type"] == "update" and m["table"] == table.id]
    start = next(m["table"] for m in messages if m["type"] == "table" and m["table"]["view"])
    assert len(updates) > 5
    state = TableState(table.id)
    state.apply_table(start)
    first = updates.index(next(u for u in updates if u["version"] == start["version"] + 1))
    updates = updates[first:]
    assert state.apply_update(updates[0])
    assert not state.apply_update(updates[2])  # updates[1] never came
    assert state.version == updates[0]["version"]
    for update in updates[1:]:  # what a resync replays
        assert state.apply_update(update)
    assert state.version == updates[-1]["version"]
    assert state.view == SeatView.from_json(updates[-1]["view"])
    assert state.apply_update(updates[1])  # a repeat is ignored, not a gap
    assert state.version == updates[-1]["version"]


async def test_seats_are_given_back_on_connect_and_a_session_can_be_kept(
    shared_server: ServerProcess,
) -> None:
    first = await guest(shared_server)
    table = await first.create_table({"seats": 2, "point_limit": 1})
    cookie = first.http.session_cookie
    player = first.player
    assert player is not None
    await first.close()
    again = Client(shared_server.base)
    again.http.session_cookie = cookie
    try:
        assert await again.http.me() == player
        await again.connect()
        assert again.player == player
        state = again.tables[table.id]
        assert state.my_seat == 0 and state.status == "waiting" and state.host == player.nickname
    finally:
        await again.close()


async def test_a_session_not_valid_is_refused_for_good(shared_server: ServerProcess) -> None:
    client = Client(shared_server.base)
    client.http.session_cookie = "not-a-session"
    try:
        with pytest.raises(ConnectionRefused) as refused:
            await client.connect()
        assert refused.value.code == 4401
    finally:
        await client.close()


async def test_the_engine_state_after_a_whole_game_is_the_servers(
    shared_server: ServerProcess,
) -> None:
    """Two clients of this library at one table, each with its own bot level."""
    host, other = await guest(shared_server, "host"), await guest(shared_server, "other")
    try:
        table = await host.create_table({"seats": 2, "point_limit": 1})
        joined = await other.join_table(table.id)
        assert joined.my_seat == 1
        await host.wait_for(lambda: table.free_seats == 0, timeout=10)
        await host.start_game(table.id)
        ends = await asyncio.wait_for(
            asyncio.gather(
                play_table(host, table.id, make_bot("strong", seed=1).decide),
                play_table(other, joined.id, make_bot("beginner", seed=2).decide),
            ),
            120,
        )
    finally:
        await host.close()
        await other.close()
    assert ends[0] == ends[1]
    log = game_log(shared_server, table.id)
    game: Game = check_log(log, list(ends[0].winners))
    assert tuple(game.totals) == ends[0].totals
    assert [seat["nickname"] for seat in log["seats"]] == [
        host.player.nickname if host.player else None,
        other.player.nickname if other.player else None,
    ]
