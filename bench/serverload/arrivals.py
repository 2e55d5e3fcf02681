"""When each message came off a load generator client's socket.

A move's latency ends when its update reaches the client: when the client's event
loop reads the message's last bytes off the socket, not when the client library
has decompressed it and the scripted player has parsed it. The four seats of a
table share one process (so that a move's send and receive times come from one
clock), and a move's four updates arrive together: timed after decoding, the last
seat's latency would include the decoding of the three updates before it, the
load generator's work rather than the server's, and more for a table's
compressed 2-5 KB updates than for the echo's short messages. So both are timed
at the socket, the same way: :class:`Arrivals` notes the time at the start of
each read of the socket (before the library parses and decompresses what it
read) and gives each complete message the time of the read that completed it,
in the order the messages are then received.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Any

from websockets.asyncio.client import ClientConnection
from websockets.frames import DATA_OPCODES, Frame

__all__ = ["Arrivals"]

UNTIMED = float("nan")
"""The time of a message that came before the hook."""


class Arrivals:
    """Hooks a connection's reads: the arrival time of each message (:meth:`pop`,
    once for every message the connection yields, in order), and ``on_read`` told
    the size of each read."""

    __slots__ = ("_read_at", "_times")

    def __init__(self, ws: ClientConnection, on_read: Callable[[int], None] | None = None) -> None:
        # Messages the library holds already (read with the handshake, say) come
        # first, untimed: without them every later message would get the time of
        # the one after it.
        held = sum(frame.fin for frame in ws.recv_messages.frames.queue)
        self._times: deque[float] = deque([UNTIMED] * held)
        self._read_at = 0.0
        data_received = ws.data_received
        process_event = ws.process_event

        def read(data: bytes) -> None:
            self._read_at = time.perf_counter()
            if on_read is not None:
                on_read(len(data))
            data_received(data)

        def event(frame: Any) -> None:
            if isinstance(frame, Frame) and frame.opcode in DATA_OPCODES and frame.fin:
                self._times.append(self._read_at)
            process_event(frame)

        ws.data_received = read  # type: ignore[method-assign]
        ws.process_event = event  # type: ignore[method-assign,assignment]

    def pop(self) -> float:
        """The arrival time of the next message the connection yields (now, for a
        message that came before the hook)."""
        arrived = self._times.popleft() if self._times else UNTIMED
        return time.perf_counter() if arrived is UNTIMED else arrived
