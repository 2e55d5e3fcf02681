"""The server benchmark's baseline clients: groups of four on ``/bench/echo``.

The endpoint sends every message to every member of its group. Each group stands
for a table: one of its members at a time (in turn) sends a "move" of the size of
a real action after the same jittered think time as a scripted player, and each
member records the time from sending it to receiving it back.
"""

from __future__ import annotations

import asyncio
import json
import random
import time

import orjson
from websockets.asyncio.client import ClientConnection, connect

from bench.serverload.arrivals import Arrivals
from bench.serverload.seats import Stats

PAYLOAD = json.dumps({"type": "action", "table": 1, "action": {"type": "discard", "card": "7H"}})
"""A real discard, the commonest action; each message adds its sequence number."""


class EchoTables:
    """One group of four echo sockets per table, named by the table's number."""

    def __init__(self, stats: Stats, think: float) -> None:
        self.stats = stats
        self.think = think
        self.sockets: dict[int, list[ClientConnection]] = {}
        self.sent: dict[tuple[int, int], float] = {}
        self.tasks: list[asyncio.Task[None]] = []

    async def connect(self, url: str, tables: range, parallel: int) -> None:
        """Four sockets for each of ``tables``, ``parallel`` of them opening at once."""
        pending = asyncio.Semaphore(parallel)

        async def one(table: int) -> ClientConnection:
            async with pending:
                return await connect(f"{url}?group={table}", ping_interval=None)

        for table in tables:
            self.sockets[table] = []
        opened = await asyncio.gather(*(one(t) for t in tables for _ in range(4)))
        for index, ws in enumerate(opened):
            self.sockets[tables[index // 4]].append(ws)

    def start(self) -> None:
        """Every member reading, every group moving."""
        for table, members in self.sockets.items():
            self.tasks += [asyncio.create_task(self.read(ws, table)) for ws in members]
            self.tasks.append(asyncio.create_task(self.move(table, members)))

    async def read(self, ws: ClientConnection, table: int) -> None:
        arrivals = Arrivals(ws)
        async for text in ws:
            now = arrivals.pop()
            started = self.sent.get((table, int(orjson.loads(text)["seq"])))
            if started is not None and self.stats.measuring:
                self.stats.latencies.append(now - started)

    async def move(self, table: int, members: list[ClientConnection]) -> None:
        seq = 0
        while True:
            await self.stats.think(self.think * random.uniform(0.5, 1.5))
            seq += 1
            self.sent[(table, seq)] = time.perf_counter()
            if self.stats.measuring:
                self.stats.moves += 1
            await members[seq % 4].send(PAYLOAD[:-1] + f',"seq":{seq}}}')

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        every = [ws for members in self.sockets.values() for ws in members]
        await asyncio.gather(*(ws.close() for ws in every), return_exceptions=True)
        await asyncio.gather(*self.tasks, return_exceptions=True)
