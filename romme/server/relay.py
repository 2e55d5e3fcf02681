"""Every node serves every client: table messages travel over Redis between the
node a player is connected to and the node that runs the table.

A player on node X sends a message about table T, which node Y runs. X does not
carry it out: it publishes the message's text on Y's channel ``romme:to:Y``. Y
keeps a :class:`RemoteConnection` for each connection of another node that talks
to its tables: a :class:`~romme.server.connection.Connection` whose messages go
back over Redis (``romme:to:X``) instead of down a socket. Y runs the message
exactly as for a local connection (``dispatch.handle``), in the order it came, and
the table sends its answer and every later update to the remote connection, which
X hands to the client's socket.

The lobby is shared as :mod:`romme.server.lobby_share` says. When a client
connects, its node says ``hello`` on ``romme:all`` and each node
that runs a table where the player sits subscribes it there (the ``table`` comes
back as after any reconnect); ``gone`` when it disconnects. A node that takes
tables over says ``taken``, and the others say ``hello`` again for their
connections, so the players follow their table to its new node. When a player's
sessions end (a logout, a revoked session, a new password, a ban, a deletion),
``disconnect`` tells every node to close the connections of those sessions.

Redis pub/sub delivers at most once: a message lost between nodes is a version
the client did not get, and the client's ``resync`` (docs/protocol.md) fetches it
from the table. Nothing here is stored: the table and its log are in the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import TYPE_CHECKING, Any

from redis.asyncio import Redis

from romme.server import dispatch, protocol
from romme.server.connection import Connection
from romme.server.errors import ProtocolError
from romme.server.lobby_share import LobbyShare
from romme.server.protocol import ClientMessage, parse_message

if TYPE_CHECKING:
    from romme.server.hub import Hub
    from romme.store import PlayerRecord

__all__ = ["TABLE_MESSAGES", "Relay", "RemoteConnection"]

log = logging.getLogger("romme.server.cluster")

TABLE_MESSAGES = (
    protocol.ActionMsg,
    protocol.Invite,
    protocol.Back,
    protocol.Hint,
    protocol.JoinTable,
    protocol.LeaveTable,
    protocol.NextRoundMsg,
    protocol.Rematch,
    protocol.Resync,
    protocol.SetSeat,
    protocol.StartGame,
    protocol.TableChat,
    protocol.WatchTable,
)
"""The client messages about one table: carried out by the node that runs it."""

ALL = "romme:all"
NODE_GONE = 10.0
"""Seconds without a heartbeat after which a node's connections are forgotten."""


_WHOLE_LOBBY = '{"type":"lobby",'
"""How a whole ``lobby`` another node sends to a client here begins."""

_TABLE_CLOSED = '{"type":"table_closed",'
"""How a ``table_closed`` begins: the client no longer watches that table (it
closed, or the client's invitation to it ended)."""


def inbox(node: str) -> str:
    return f"romme:to:{node}"


class RemoteConnection(Connection):
    """A connection of another node, as the tables here see it."""

    def __init__(self, relay: Relay, node: str, conn_id: int, player: PlayerRecord) -> None:
        super().__init__(None, player)
        self.relay = relay
        self.node = node
        self.remote_id = conn_id
        self.inbox: asyncio.Queue[str] = asyncio.Queue()
        self.task = asyncio.create_task(self._run())

    def __repr__(self) -> str:
        return f"<RemoteConnection {self.node}/{self.remote_id} {self.nickname}>"

    def send(self, text: str) -> None:
        if not self.closed:
            self.relay.publish(inbox(self.node), f"send {self.remote_id}\n{text}")

    def send_from(self, sender_id: int, text: str) -> None:
        """The client's node filters the line again by the blocks it holds: a block
        made there a moment ago holds before this node has heard of it."""
        if not self.closed and sender_id not in self.hidden_ids:
            self.relay.publish(inbox(self.node), f"send {self.remote_id} {sender_id}\n{text}")

    def send_lobby(self, text: str) -> None:
        """The lobby comes from the client's own node."""

    def close(self, code: int = 1000) -> None:
        if not self.closed:
            self.relay.publish(inbox(self.node), f"close {self.remote_id}\n{code}")
        super().close(code)

    async def _run(self) -> None:
        """Carry out the client's messages one after the other, as its socket would."""
        hub = self.relay.hub
        while True:
            text = await self.inbox.get()
            try:
                parsed, msg_id = parse_message(text, hub.options.max_message_bytes)
            except ProtocolError as exc:
                self.error(exc, getattr(exc, "msg_id", None))
                continue
            await dispatch.handle(hub, self, parsed, msg_id)


class Relay:
    """This node's end of the messages between nodes."""

    def __init__(self, hub: Hub, url: str, node: str) -> None:
        self.hub = hub
        self.node = node
        self.redis: Redis = Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        self._listening: Redis = Redis.from_url(url, socket_connect_timeout=2)
        self.share = LobbyShare(self.redis, node, hub.lobby)
        self._outgoing: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._local: dict[int, Connection] = {}
        """This node's connections by id (those that talk to other nodes' tables)."""
        self._remote: dict[tuple[str, int], RemoteConnection] = {}
        self._owners: dict[int, str] = {}
        """Which node runs each table this node forwarded to (forgotten on ``taken``)."""
        self._tasks: list[asyncio.Task[None]] = []
        self._watching: dict[int, set[int]] = {}
        """The tables of other nodes that each connection here watches."""
        self._seen: dict[str, float] = {}
        """When each node's heartbeat was last seen (monotonic seconds)."""

    async def start(self) -> None:
        share = self.share
        self.hub.lobby.on_said = self._said
        self.hub.registry.elsewhere = self._to_player
        self.hub.registry.disconnect_elsewhere = self._disconnect_player
        self.hub.registry.blocks_elsewhere = self._blocks_changed
        self._tasks = [
            asyncio.create_task(self._send_loop()),
            asyncio.create_task(self._listen_loop()),
            asyncio.create_task(share.run()),
        ]

    def _said(self, chat: dict[str, Any]) -> None:
        self.publish(ALL, json.dumps({"chat": chat, "node": self.node}))

    def _to_player(self, player_id: int, text: str, skip: Connection | None = None) -> None:
        """A message to a player (an invitation, a friend's news): also to its
        connections on the other nodes (but ``skip``, a connection of another node)."""
        data: dict[str, Any] = {"player": player_id, "text": text, "node": self.node}
        if isinstance(skip, RemoteConnection):
            data["skip"] = [skip.node, skip.remote_id]
        self.publish(ALL, json.dumps(data))

    def _disconnect_player(self, player_id: int, ending: dict[str, Any]) -> None:
        """A player's sessions ended: the other nodes close its connections there
        (``Registry.disconnect_here``)."""
        self.publish(ALL, json.dumps({"disconnect": player_id, **ending, "node": self.node}))

    def _blocks_changed(self, player_id: int) -> None:
        """A player's blocks changed here: the other nodes read them again for the
        remote connections of that player they keep."""
        self.publish(ALL, json.dumps({"blocks": player_id, "node": self.node}))

    def account_deleted(self, player_id: int, placeholder: str, chat_ids: list[int]) -> None:
        self.publish(
            ALL,
            json.dumps(
                {
                    "deleted": player_id,
                    "placeholder": placeholder,
                    "chat": chat_ids,
                    "node": self.node,
                }
            ),
        )

    async def _blocked_ids(self, player_id: int) -> set[int]:
        record = await self.hub.social.load(player_id)
        return {blocked_id for blocked_id, _ in record.blocked}

    async def close(self) -> None:
        for task in [*self._tasks, *(r.task for r in self._remote.values())]:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for client in (self.redis, self._listening):
            with contextlib.suppress(Exception):
                await client.aclose()

    # --------------------------------------------------------- this node's clients

    def is_remote(self, message: ClientMessage) -> bool:
        """Whether the message is about a table another node runs (or may run), or
        creates a table that another, less loaded node is to run."""
        if isinstance(message, protocol.CreateTable):
            return self.hub.ownership.least_loaded() != self.node
        if isinstance(message, protocol.AnswerInvitation):
            return True  # the node of the invitation's table answers it
        return isinstance(message, TABLE_MESSAGES) and message.table not in self.hub.tables

    async def forward(self, conn: Connection, message: ClientMessage, text: str) -> bool:
        """Send a client's table message to the node that runs the table (a new
        table's to the least loaded node); False if it is this node's after all."""
        if isinstance(message, protocol.CreateTable):
            node = self.hub.ownership.least_loaded()
            self.hub.ownership.placed(node)
            self._send_message(node, conn, text)
            return True
        if isinstance(message, protocol.AnswerInvitation):
            holder = await self.hub.store.invitation_owner(message.invitation)
            if holder is None or holder == self.node:
                return False
            self._send_message(holder, conn, text)
            return True
        assert isinstance(message, TABLE_MESSAGES)
        table_id = message.table
        if isinstance(message, protocol.WatchTable):
            self._watching.setdefault(conn.id, set()).add(table_id)
        elif isinstance(message, protocol.LeaveTable):
            self._watching.get(conn.id, set()).discard(table_id)
        owner = self._owners.get(table_id)
        loads = self.hub.ownership.loads
        if owner is not None and loads and owner not in loads:
            owner = None  # that node is gone: ask the database who took the table
        if owner is None:
            owner = await self.hub.store.table_owner(table_id)
            if owner is None or owner == self.node:
                raise ProtocolError("no_such_table", f"there is no table {table_id}")
            self._owners[table_id] = owner
        self._send_message(owner, conn, text)
        return True

    def _send_message(self, node: str, conn: Connection, text: str) -> None:
        self._local[conn.id] = conn
        self.publish(inbox(node), f"msg {self.node} {conn.id} {conn.player_id}\n{text}")

    def connected(self, conn: Connection) -> None:
        """A client connected here: the nodes that run its tables subscribe it."""
        self._local[conn.id] = conn
        self._hello([conn])

    def disconnected(self, conn: Connection) -> None:
        self._watching.pop(conn.id, None)
        if self._local.pop(conn.id, None) is not None:
            self.publish(ALL, json.dumps({"gone": self.node, "conn": conn.id}))

    def taken(self, table_ids: list[int]) -> None:
        """This node took these tables: the players and spectators connected
        elsewhere follow, and the spectators here watch them here now."""
        self.publish(ALL, json.dumps({"taken": self.node, "tables": table_ids}))
        for conn_id, watched in self._watching.items():
            conn = self._local.get(conn_id)
            for table_id in watched & set(table_ids):
                table = self.hub.tables.get(table_id)
                if conn is not None and table is not None:
                    table.post(table.watch, conn, None)

    def _hello(self, conns: list[Connection], tables: list[int] | None = None) -> None:
        if conns:
            hello = [[c.id, c.player_id, sorted(self._watching.get(c.id, ()))] for c in conns]
            self.publish(ALL, json.dumps({"hello": self.node, "conns": hello, "tables": tables}))

    # ------------------------------------------------------------- Redis

    def publish(self, channel: str, data: str) -> None:
        """Queue a message; one task publishes them in order, in pipelined batches."""
        self._outgoing.put_nowait((channel, data))

    async def _send_loop(self) -> None:
        while True:
            batch = [await self._outgoing.get()]
            while not self._outgoing.empty():
                batch.append(self._outgoing.get_nowait())
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for channel, data in batch:
                        pipe.publish(channel, data)
                    await pipe.execute()
            except Exception as exc:
                log.warning("relay_send_failed", extra={"error": repr(exc), "lost": len(batch)})
                self._refuse(batch)

    def _refuse(self, batch: list[tuple[str, str]]) -> None:
        """Redis is away: the clients whose requests could not be forwarded are told."""
        for _, data in batch:
            if not data.startswith("msg "):
                continue
            head, _, text = data.partition("\n")
            conn = self._local.get(int(head.split()[2]))
            if conn is not None:
                msg_id = json.loads(text).get("id") if text.startswith("{") else None
                conn.error(
                    ProtocolError(
                        "server_busy",
                        "the server that runs this table cannot be reached: try again shortly",
                    ),
                    msg_id,
                )

    async def _listen_loop(self) -> None:
        while True:
            try:
                async with self._listening.pubsub() as pubsub:
                    await pubsub.subscribe(inbox(self.node), ALL)
                    async for message in pubsub.listen():
                        if message.get("type") == "message":
                            await self._received(message["data"].decode())
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("relay_listen_failed", extra={"error": repr(exc)})
                await asyncio.sleep(1)

    async def _received(self, data: str) -> None:
        head, _, body = data.partition("\n")
        kind, *args = head.split(" ")
        if kind == "send":
            conn = self._local.get(int(args[0]))
            if conn is None:
                pass
            elif len(args) > 1:
                conn.send_from(int(args[1]), body)  # a chat line of that player
            elif body.startswith(_WHOLE_LOBBY):
                # The lobby comes from the client's own node (the base of its deltas).
                self.hub.spawn(self.hub.lobby.send_to(conn))
            else:
                if body.startswith(_TABLE_CLOSED):
                    # Not watched again when the table moves to another node.
                    self._watching.get(conn.id, set()).discard(json.loads(body)["table"])
                conn.send(body)
        elif kind == "close":
            conn = self._local.get(int(args[0]))
            if conn is not None:
                conn.close(int(body))
        elif kind == "msg":
            node, conn_id, player_id = args[0], int(args[1]), int(args[2])
            if (node, conn_id) not in self._remote:
                # A client this node did not know (its hello was lost): it gets its
                # tables here first, as after a hello.
                await self._subscribe(node, [[conn_id, player_id, []]], None)
            remote = await self._remote_connection(node, conn_id, player_id)
            if remote is not None:
                remote.inbox.put_nowait(body)
        elif kind.startswith("{"):
            await self._broadcast(json.loads(data))

    async def _broadcast(self, data: dict[str, Any]) -> None:
        if data.get("node") == self.node:
            return
        if "player" in data:
            node, conn_id = data.get("skip") or ("", 0)
            skip = self._local.get(int(conn_id)) if node == self.node else None
            self.hub.registry.send_here(data["player"], data["text"], skip)
        elif "disconnect" in data:
            self.hub.registry.disconnect_here(
                data["disconnect"], data["code"], data["only"], data["keep"], data["notice"]
            )
        elif "deleted" in data:
            self.hub.spawn(
                self.hub.account_deleted(
                    data["deleted"], data["placeholder"], data["chat"], here_only=True
                )
            )
        elif "blocks" in data:
            theirs = [r for r in self._remote.values() if r.player_id == data["blocks"]]
            if theirs:
                blocked = await self._blocked_ids(data["blocks"])
                for connection in theirs:
                    connection.hidden_ids = blocked
        elif "lobby" in data:
            self.share.received(data)
        elif "chat" in data:
            self.hub.lobby.heard(data["chat"])
        elif "hello" in data and data["hello"] != self.node:
            await self._subscribe(data["hello"], data["conns"], data.get("tables"))
        elif "gone" in data:
            remote = self._remote.pop((data["gone"], data["conn"]), None)
            if remote is not None:
                self._drop(remote)
        elif "taken" in data and data["taken"] != self.node:
            for table_id in data["tables"]:
                self._owners[table_id] = data["taken"]
            self._hello(list(self._local.values()), data["tables"])

    async def _subscribe(self, node: str, conns: list[list[Any]], tables: list[int] | None) -> None:
        """A client of ``node`` connected (or its table moved here): subscribe it to
        the tables here where its player sits, and to those it watched (of
        ``tables``, if given)."""
        for conn_id, player_id, *more in conns:
            watched = set(more[0]) if more else set()
            for table in list(self.hub.tables.values()):
                if tables is not None and table.id not in tables:
                    continue
                seat = table.seat_of(player_id)
                seated = seat is not None and not table.seats[seat].left
                if not seated and table.id not in watched:
                    continue
                remote = await self._remote_connection(node, conn_id, player_id)
                if remote is None:
                    continue
                if seated:
                    table.post(table.subscribe, remote)
                else:
                    table.post(table.watch, remote, None)

    async def _remote_connection(
        self, node: str, conn_id: int, player_id: int
    ) -> RemoteConnection | None:
        remote = self._remote.get((node, conn_id))
        if remote is None:
            player = await self.hub.store.get_player(player_id)
            if player is None:
                return None
            blocked = await self._blocked_ids(player_id)
            remote = self._remote.get((node, conn_id))
            if remote is None:
                remote = self._remote[node, conn_id] = RemoteConnection(self, node, conn_id, player)
                remote.hidden_ids = blocked
        return remote

    def _drop(self, remote: RemoteConnection) -> None:
        remote.closed = True
        remote.task.cancel()
        for table_id in list(remote.tables):
            table = self.hub.tables.get(table_id)
            if table is not None:
                table.post(table.unsubscribe, remote)

    def nodes_gone(self, live: set[str]) -> None:
        """Forget the connections of nodes without a heartbeat for
        :data:`NODE_GONE` seconds (not at once: a restarted Redis has lost every
        heartbeat for a moment)."""
        now = time.monotonic()
        for node in live:
            self._seen[node] = now
        for key, remote in list(self._remote.items()):
            if now - self._seen.setdefault(key[0], now) > NODE_GONE:
                del self._remote[key]
                self._drop(remote)
