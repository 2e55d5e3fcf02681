"""Friends and blocks on the server: friend requests and their answers, presence
sent to friends, and the blocks that keep a player's invitations, chat lines and
friend requests from whoever blocked them.

Each connection carries ``hidden_ids``, the ids of the players its player has
blocked (one set shared by the player's connections, loaded when the first one
opens): ids, not nicknames, for a blocked guest who registers under another
nickname keeps its id. The lobby,
the tables and the invitations drop on the way what the recipient has hidden, so
that a blocked player's message reaches nobody who blocked them while everyone
else still gets it; the blocked player is not told (their request stays pending,
their invitation expires as an unanswered one does).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from romme.server import messages
from romme.server.connection import Connection
from romme.server.errors import ProtocolError
from romme.server.registry import Registry

if TYPE_CHECKING:
    from romme.store import PlayerRecord, Store
    from romme.store.friends import SocialRecord

__all__ = ["Social"]


class Social:
    """Friends, presence and blocks of the players online."""

    def __init__(self, registry: Registry, store: Store) -> None:
        self.registry = registry
        self.store = store
        self._hidden: dict[int, set[int]] = {}
        """The ids each player online has blocked (shared by its connections)."""

    # ------------------------------------------------------------ connections

    async def load(self, player_id: int) -> SocialRecord:
        """The player's friends, requests and blocks, read before its new connection
        is registered (:meth:`attach`)."""
        return await self.store.social(player_id)

    def attach(self, conn: Connection, record: SocialRecord) -> dict[str, Any]:
        """Give a new connection, not yet registered, its player's blocks; the
        ``friends`` message for it. No ``await``: the connection is registered right
        after, so nothing of a blocked player reaches it before its blocks are set.
        If the player has other connections here, their set is the truth (a block
        made from one of them while ``record`` was read is in it); else ``record``."""
        hidden = self._hidden.get(conn.player_id)
        if hidden is None or not self.registry.online(conn.player_id):
            hidden = self._hidden[conn.player_id] = {pid for pid, _ in record.blocked}
        conn.hidden_ids = hidden
        return self._message(record)

    def detach(self, player_id: int) -> None:
        """The player's last connection closed."""
        self._hidden.pop(player_id, None)

    async def presence(self, player: PlayerRecord) -> None:
        """Tell the player's friends online that it came online or left (whichever
        holds when the message goes: a quick reload's two tasks may end in either
        order, and both then tell the truth)."""
        if player.guest:
            return
        friends = await self.store.friend_ids(player.id)
        online = self.registry.online_anywhere(player.id)
        text = messages.dumps(messages.friend_online(player.nickname, online))
        for friend_id in friends:
            self.registry.send_to_player(friend_id, text)

    # -------------------------------------------------------------- requests

    async def _other(self, nickname: str) -> PlayerRecord:
        other = await self.store.find_player(nickname)
        if other is None:
            raise ProtocolError("no_such_player", f"there is no player {nickname!r}")
        return other

    async def request(self, conn: Connection, nickname: str, msg_id: Any) -> None:
        other = await self._other(nickname)
        await self._change(
            conn, other, msg_id, lambda: self.store.request_friend(conn.player_id, other.id)
        )

    async def answer(self, conn: Connection, nickname: str, accept: bool, msg_id: Any) -> None:
        other = await self._other(nickname)
        await self._change(
            conn, other, msg_id, lambda: self.store.answer_friend(conn.player_id, other.id, accept)
        )

    async def remove(self, conn: Connection, nickname: str, msg_id: Any) -> None:
        other = await self._other(nickname)
        await self._change(
            conn, other, msg_id, lambda: self.store.remove_friend(conn.player_id, other.id)
        )

    async def block(self, conn: Connection, nickname: str, msg_id: Any) -> None:
        other = await self._other(nickname)
        await self._change(
            conn,
            other,
            msg_id,
            lambda: self.store.block(conn.player_id, other.id),
            then=lambda: self._hide(conn.player_id, other.id, True),
        )

    async def unblock(self, conn: Connection, nickname: str, msg_id: Any) -> None:
        other = await self._other(nickname)
        await self._change(
            conn,
            other,
            msg_id,
            lambda: self.store.unblock(conn.player_id, other.id),
            then=lambda: self._hide(conn.player_id, other.id, False),
        )

    def _hide(self, player_id: int, other_id: int, hidden: bool) -> None:
        """Hide (or show again) ``other_id``'s lines on every connection of the
        player: here at once, on the other nodes of a cluster as soon as they hear."""
        ids = self._hidden.setdefault(player_id, set())
        if hidden:
            ids.add(other_id)
        else:
            ids.discard(other_id)
        self.registry.blocks_changed(player_id)

    async def _change(
        self,
        conn: Connection,
        other: PlayerRecord,
        msg_id: Any,
        change: Callable[[], Awaitable[Any]],
        then: Callable[[], None] | None = None,
    ) -> None:
        """Make the change, then ``then`` (a block taking effect on the lines sent
        from now on) before anyone is told: once the sender has the reply, nothing
        of the blocked player's reaches it. The sender's new lists are the reply
        (and go to its other connections). The other player's go to it only if
        they changed (a request arrived, a friendship began or ended): a block, or
        a request that a block hides, is not given away by a message out of nowhere."""
        online = self.registry.may_be_online(other.id)
        before = await self.store.social(other.id) if online else None
        await change()
        if then is not None:
            then()
        mine = self._message(await self.store.social(conn.player_id))
        self.registry.send_to_player(conn.player_id, messages.dumps(mine), skip=conn)
        conn.reply(mine, msg_id)
        if online:
            after = await self.store.social(other.id)
            if after != before:
                text = messages.dumps(self._message(after))
                self.registry.send_to_player(other.id, text)

    def _message(self, record: SocialRecord) -> dict[str, Any]:
        online = self.registry.online_anywhere
        return messages.friends(
            [{"nickname": name, "online": online(i)} for i, name in record.friends],
            [name for _, name in record.incoming],
            [name for _, name in record.outgoing],
            [name for _, name in record.blocked],
        )
