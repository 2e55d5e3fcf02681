"""Who is connected and which tables are in memory: the indexes the hub, the
lobby, the invitations and the guests' nicknames all read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from romme.server.connection import Connection
from romme.server.errors import ProtocolError
from romme.server.table import CLOSED, PLAYING, TableActor
from romme.store.sessions import token_hash

__all__ = ["Registry", "Tables"]


class Tables(dict[int, TableActor]):
    """The tables in memory by id, also indexed by their host (a table's host
    never changes): when a player's last connection closes, the hub looks at the
    tables that player hosts without going through every table (thousands of
    players leaving at once made that quadratic)."""

    def __init__(self) -> None:
        super().__init__()
        self._by_host: dict[int, set[int]] = {}

    def __setitem__(self, table_id: int, table: TableActor) -> None:
        old = self.get(table_id)
        if old is not None:
            self._forget(old)
        super().__setitem__(table_id, table)
        self._by_host.setdefault(table.host_id, set()).add(table_id)

    def __delitem__(self, table_id: int) -> None:
        self._forget(self[table_id])
        super().__delitem__(table_id)

    def pop(self, table_id: int, *default: Any) -> Any:
        if table_id in self:
            table = self[table_id]
            del self[table_id]
            return table
        if default:
            return default[0]
        raise KeyError(table_id)

    def hosted_by(self, player_id: int) -> list[TableActor]:
        """The tables in memory this player hosts."""
        return [self[t] for t in sorted(self._by_host.get(player_id, ()))]

    def _forget(self, table: TableActor) -> None:
        ids = self._by_host.get(table.host_id)
        if ids is not None:
            ids.discard(table.id)
            if not ids:
                del self._by_host[table.host_id]


class Registry:
    """The connections (by player and by address) and the tables in memory."""

    def __init__(self) -> None:
        self.tables = Tables()
        self.connections: set[Connection] = set()
        self.by_player: dict[int, set[Connection]] = {}
        self.by_address: dict[str, set[Connection]] = {}
        self.elsewhere: Callable[[int, str, Connection | None], None] | None = None
        """Sends to a player's connections on the other nodes of a cluster (but the
        one given)."""
        self.disconnect_elsewhere: Callable[[int, dict[str, Any]], None] | None = None
        """Closes a player's connections on the other nodes of a cluster, as
        :meth:`disconnect_here` with these arguments."""
        self.blocks_elsewhere: Callable[[int], None] | None = None
        """Tells the other nodes of a cluster that the player's blocks changed (the
        tables there filter what they send to its connections by them)."""
        self.online_elsewhere: frozenset[int] = frozenset()
        """The players connected to other nodes of a cluster, as the nodes last
        told each other (:mod:`romme.server.lobby_share`)."""

    def add(self, conn: Connection) -> bool:
        """Register a connection; True if it is its player's first."""
        self.connections.add(conn)
        first = conn.player_id not in self.by_player
        self.by_player.setdefault(conn.player_id, set()).add(conn)
        if conn.address is not None:
            self.by_address.setdefault(conn.address, set()).add(conn)
        return first

    def remove(self, conn: Connection) -> bool:
        """Forget a connection; True if it was its player's last."""
        self.connections.discard(conn)
        if conn.address is not None:
            same = self.by_address.get(conn.address)
            if same is not None:
                same.discard(conn)
                if not same:
                    del self.by_address[conn.address]
        conns = self.by_player.get(conn.player_id)
        if conns is None:
            return False
        conns.discard(conn)
        if conns:
            return False
        del self.by_player[conn.player_id]
        return True

    def online(self, player_id: int) -> bool:
        """Whether the player is connected to this node."""
        return player_id in self.by_player

    def may_be_online(self, player_id: int) -> bool:
        """Whether the player may be connected: to this node, or, in a cluster, to
        any other (the nodes tell each other who is online a second late)."""
        return self.elsewhere is not None or player_id in self.by_player

    def online_anywhere(self, player_id: int) -> bool:
        """Whether the player is connected to any node of the cluster."""
        return player_id in self.by_player or player_id in self.online_elsewhere

    def table(self, table_id: int) -> TableActor:
        """A table a client names (``no_such_table`` if it is not open)."""
        table = self.tables.get(table_id)
        if table is None or table.status == CLOSED:
            raise ProtocolError("no_such_table", f"there is no table {table_id}")
        return table

    def send_to_player(self, player_id: int, text: str, skip: Connection | None = None) -> None:
        """Send to every connection of a player (on every node of a cluster), but
        ``skip`` (a connection here or of another node)."""
        self.send_here(player_id, text, skip)
        if self.elsewhere is not None:
            self.elsewhere(player_id, text, skip)

    def blocks_changed(self, player_id: int) -> None:
        """The player blocked or unblocked someone: its connections that other nodes'
        tables serve take the new blocks too (this node's share one set already)."""
        if self.blocks_elsewhere is not None:
            self.blocks_elsewhere(player_id)

    def send_here(self, player_id: int, text: str, skip: Connection | None = None) -> None:
        """Send to every connection of a player on this node (but ``skip``)."""
        for conn in list(self.by_player.get(player_id, ())):
            if conn is not skip:
                conn.send(text)

    def disconnect_player(
        self,
        player_id: int,
        code: int,
        *,
        only: str | None = None,
        keep: str | None = None,
        notice: str | None = None,
    ) -> None:
        """Close connections of the player with ``code`` (4401: their session ended)
        on this node and on every other of a cluster: all of them, or those of the
        session ``only``, but those of the session ``keep`` (sessions named by
        their stored hash, :func:`romme.store.sessions.token_hash`: one revoked
        session, a logout; the session that changed the password goes on).
        ``notice``: a frame sent first (the error ``banned``)."""
        ending: dict[str, Any] = {"code": code, "only": only, "keep": keep, "notice": notice}
        self.disconnect_here(player_id, **ending)
        if self.disconnect_elsewhere is not None:
            self.disconnect_elsewhere(player_id, ending)

    def disconnect_here(
        self,
        player_id: int,
        code: int,
        only: str | None = None,
        keep: str | None = None,
        notice: str | None = None,
    ) -> None:
        """:meth:`disconnect_player` on this node."""
        for conn in list(self.by_player.get(player_id, ())):
            key = None if conn.session_token is None else token_hash(conn.session_token)
            if (only is not None and key != only) or (keep is not None and key == keep):
                continue
            if notice is not None:
                conn.send(notice)
            conn.close(code)

    def in_lobby(self, conn: Connection) -> bool:
        """Whether lobby updates go to this connection (not before its whole lobby,
        nor while at a running game)."""
        if not conn.has_lobby:
            return False
        for table_id in conn.tables:
            table = self.tables.get(table_id)
            if table is not None and table.status == PLAYING:
                return False
        return True

    def in_lobby_now(self) -> list[Connection]:
        """The open connections that lobby updates go to, as :meth:`in_lobby` says.

        A round of lobby updates (every second while anything changes) asked
        :meth:`in_lobby` of every connection, those at running games included:
        for the 4,000 players of 1,000 running tables, 1.5 ms of the event loop
        on a quiet machine, spread over 40 batches. The running games' followers
        are gathered from the tables instead (a table's followers and a
        connection's tables change together) and only the others are asked:
        0.24 ms, and as many batches as there are connections in the lobby."""
        at_play: set[Any] = set()
        for table in self.tables.values():
            if table.status == PLAYING:
                at_play.update(table.subscribers)
        return [
            conn
            for conn in self.connections
            if conn not in at_play and not conn.closed and self.in_lobby(conn)
        ]
