"""``romme serve --ws-deflate`` (the default): WebSocket messages compressed
(permessage-deflate) for the clients that offer it, over an 8 KiB window on the
server's side (romme/server/wsprotocol.py); ``--no-ws-deflate`` turns it off."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import nickname
from .helpers import Client, ServerProcess, create_table

pytestmark = pytest.mark.asyncio


@pytest.fixture(scope="module")
def plain_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    workdir: Path = tmp_path_factory.mktemp("plain")
    server = ServerProcess(
        f"sqlite+aiosqlite:///{workdir / 'romme.db'}", workdir, extra=["--no-ws-deflate"]
    ).start()
    yield server
    server.stop()


def extensions(client: Client) -> str:
    assert client.ws is not None and client.ws.response is not None
    return str(client.ws.response.headers.get("Sec-WebSocket-Extensions", ""))


async def test_by_default_a_game_is_played_over_compressed_messages(
    shared_server: ServerProcess,
) -> None:
    anna = await (await Client(shared_server, nickname("Anna")).guest()).connect()
    try:
        assert "permessage-deflate" in extensions(anna)
        # The server's window holds a whole update, so the next one is mostly a
        # reference to it (uvicorn's own window, 2**12, does not).
        assert "server_max_window_bits=13" in extensions(anna)
        table = await create_table(anna, seats=2, bots={"1": "casual"}, point_limit=1)
        await anna.request({"type": "start_game", "table": table})
        update = await anna.expect(
            "update", lambda m: bool(m.get("table") == table and m.get("view"))
        )
        assert len(update["view"]["hand"]) >= 13
    finally:
        await anna.close()


async def test_with_no_ws_deflate_nothing_is_compressed(plain_server: ServerProcess) -> None:
    bert = await (await Client(plain_server, nickname("Bert")).guest()).connect()
    try:
        assert "permessage-deflate" not in extensions(bert)
    finally:
        await bert.close()
