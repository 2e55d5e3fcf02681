"""A client library for programs that play on a romme server: bots, tests, tools.

It speaks the documented protocol (docs/protocol.md) and nothing else, so a bot
built on it is a player like any other: the server needs no change to accept it.
The seat's view arrives as the engine's :class:`~romme.engine.view.SeatView`, the
same value :mod:`romme.bots` decides from, and moves go out as engine actions::

    import asyncio
    from romme.bots import make_bot
    from romme.client import Client, play_table

    async def main() -> None:
        async with Client("http://127.0.0.1:8000") as client:
            await client.login_guest("Robo")
            await client.connect()
            table = await client.create_table({"seats": 2, "bots": {"1": "casual"}})
            await client.start_game(table.id)
            end = await play_table(client, table.id, make_bot("strong", seed=1).decide)
            print("winners:", end.winners)

    asyncio.run(main())

docs/client.md describes the API, ``romme bot`` (computer players run from outside
the server) and how a restarted bot takes its seats back.
"""

from romme.client.connection import Client, Listener
from romme.client.errors import ClientError, ConnectionRefused, Disconnected, ServerError
from romme.client.http import HttpSession
from romme.client.models import (
    GameOver,
    KnockWindow,
    Lobby,
    NextRound,
    Player,
    SeatInfo,
    Settings,
    TableSummary,
    Timer,
)
from romme.client.play import Decide, TableClosed, play_table
from romme.client.table import TableState

__all__ = [
    "Client",
    "ClientError",
    "ConnectionRefused",
    "Decide",
    "Disconnected",
    "GameOver",
    "HttpSession",
    "KnockWindow",
    "Listener",
    "Lobby",
    "NextRound",
    "Player",
    "SeatInfo",
    "ServerError",
    "Settings",
    "TableClosed",
    "TableState",
    "TableSummary",
    "Timer",
    "play_table",
]
