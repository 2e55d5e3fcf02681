"""The seams between the hub and the cluster parts: what :mod:`romme.server.ownership`
needs from the hub (:class:`OwnershipHost`), and what the hub asks of the
messages between nodes (:class:`NodeLink`, implemented by :mod:`romme.server.relay`).
Protocols, so that neither side imports the other."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Mapping
from typing import Any, Protocol

from romme.server.connection import Connection
from romme.server.protocol import ClientMessage
from romme.server.table import TableActor
from romme.store import Store

__all__ = ["NodeLink", "OwnershipHost"]


class NodeLink(Protocol):
    """This node's end of the messages between nodes."""

    async def start(self) -> None: ...

    async def close(self) -> None: ...

    def is_remote(self, message: ClientMessage) -> bool:
        """Whether the message may be about a table another node runs."""
        ...

    async def forward(self, conn: Connection, message: ClientMessage, text: str) -> bool:
        """Send a client's table message (``text``) to the node that runs the table;
        False if this node is to carry it out after all."""
        ...

    def connected(self, conn: Connection) -> None: ...

    def disconnected(self, conn: Connection) -> None: ...

    def account_deleted(self, player_id: int, placeholder: str, chat_ids: list[int]) -> None:
        """An account was deleted here: the other nodes' memory follows
        (:func:`romme.server.deleted_account.forget_deleted_account`)."""
        ...

    def taken(self, table_ids: list[int]) -> None:
        """This node took these tables over."""
        ...

    def nodes_gone(self, live: set[str]) -> None:
        """Only the nodes ``live`` are alive."""
        ...


class OwnershipHost(Protocol):
    """The hub, as the ownership of tables sees it."""

    @property
    def tables(self) -> Mapping[int, TableActor]: ...

    relay: NodeLink | None

    @property
    def store(self) -> Store: ...

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]: ...

    async def take_over(self, epochs: dict[int, int], claimed_at: float | None = None) -> None:
        """Rebuild and run the tables just taken (table id -> epoch)."""
        ...

    def lease_lost(self, table_id: int) -> None: ...
