"""Invitations: a player seated at a waiting table invites another person; the
invitation opens an invite-only table to its invitee until it is declined or
expires (``--invitation-seconds``).

The store keeps the invitations and their limits (one open invitation per invitee
and table, ``--invitations-per-minute`` per sender); here they are sent, answered
and expired.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from romme.server import messages
from romme.server.config import ServerOptions
from romme.server.connection import Connection
from romme.server.errors import ProtocolError
from romme.server.lobby import Lobby
from romme.server.protocol import AnswerInvitation, Invite
from romme.server.registry import Registry
from romme.server.table import CLOSED, WAITING
from romme.server.timers import Clock, Timer

if TYPE_CHECKING:
    from romme.store import Store

__all__ = ["Invitations"]


class Invitations:
    """Sending, answering and expiring invitations."""

    def __init__(
        self,
        registry: Registry,
        store: Store,
        clock: Clock,
        options: ServerOptions,
        lobby: Lobby,
    ) -> None:
        self.registry = registry
        self.store = store
        self.clock = clock
        self.options = options
        self.lobby = lobby
        self._timers: dict[int, Timer] = {}
        """Open invitations by id: the timer that expires each."""

    def close(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()

    def _send(self, player_id: int, data: dict[str, Any]) -> None:
        self.registry.send_to_player(player_id, messages.dumps(data))

    async def invite(self, conn: Connection, message: Invite, msg_id: Any) -> None:
        table = self.registry.table(message.table)
        if table.seat_of(conn.player_id) is None:
            raise ProtocolError("not_seated", "sit at the table to invite players to it")
        if table.status != WAITING:
            raise ProtocolError("already_started")
        invitee = await self.store.find_player(message.nickname)
        if invitee is None:
            raise ProtocolError("no_such_player", f"there is no player {message.nickname!r}")
        if invitee.is_bot or invitee.id == conn.player_id:
            raise ProtocolError("cannot_invite", "invite another person")
        if table.seat_of(invitee.id) is not None:
            raise ProtocolError("cannot_invite", f"{invitee.nickname} already sits here")
        if not table.free_seats():
            raise ProtocolError("table_full")
        expires = self.clock.deadline_ms(self.options.invitation_seconds)
        invitation = messages.as_json(
            await self.store.create_invitation(
                table.id,
                conn.player_id,
                invitee.id,
                expires,
                per_minute=self.options.invitations_per_minute,
            )
        )
        # An invitee who blocked the sender is not told, and the table stays closed
        # to them; the sender sees the invitation expire unanswered.
        blocked = await self.store.blocks(invitee.id, conn.player_id)
        if blocked:
            self.lobby.hidden_invitations.add(int(invitation["id"]))
        else:
            table.invited[invitee.id] = expires
            self._send(invitee.id, messages.invitation(invitation))
        conn.reply(messages.invitation(invitation), msg_id)
        self.lobby.changed()
        self._timers[int(invitation["id"])] = self.clock.call_later(
            self.options.invitation_seconds,
            lambda: self._expire(invitation, conn.player_id, None if blocked else invitee.id),
        )

    def _expire(self, invitation: dict[str, Any], from_id: int, to_id: int | None) -> None:
        self._timers.pop(int(invitation["id"]), None)
        self.lobby.hidden_invitations.discard(int(invitation["id"]))
        data = messages.invitation_update({**invitation, "status": "expired"})
        self._send(from_id, data)
        if to_id is not None:
            self._uninvite(
                int(invitation["table"]),
                to_id,
                "your invitation has expired",
                invitation.get("expires_at"),
            )
            self._send(to_id, data)

    async def answer(self, conn: Connection, message: AnswerInvitation, msg_id: Any) -> None:
        if message.invitation in self.lobby.hidden_invitations:
            raise ProtocolError("no_such_invitation")
        invitation = messages.as_json(
            await self.store.answer_invitation(
                message.invitation, conn.player_id, message.accept, self.clock.now_ms()
            )
        )
        timer = self._timers.pop(message.invitation, None)
        if timer is not None:
            timer.cancel()
        data = messages.invitation_update(invitation)
        table = self.registry.tables.get(int(invitation["table"]))
        if not message.accept:
            self._uninvite(int(invitation["table"]), conn.player_id, "you declined the invitation")
        sender = await self.store.find_player(str(invitation["from"]))
        if sender is not None:
            self._send(sender.id, data)
        # The answering connection may be one of another node (romme.server.relay);
        # the player's other connections, on any node, are told too.
        self.registry.send_to_player(conn.player_id, messages.dumps(data), skip=conn)
        if message.accept:
            conn.send_json(data)
        else:
            conn.reply(data, msg_id)
        if message.accept:
            if table is None or table.status == CLOSED:
                raise ProtocolError("no_such_table", "the table is gone")
            await table.call(table.join, conn, msg_id, True)

    def _uninvite(self, table_id: int, player_id: int, reason: str, expires: Any = None) -> None:
        """A declined or expired invitation no longer opens an invite-only table
        (an expiry names the invitation, so that a newer one to the same player
        is left alone): the invitee may no longer join it, the lobby no longer
        lists it for them, and their watch of it ends (``TableActor.end_watch``)."""
        table = self.registry.tables.get(table_id)
        if table is None or player_id not in table.invited:
            return
        if expires is None or table.invited[player_id] == expires:
            del table.invited[player_id]
            table.post(table.end_watch, player_id, reason)
            self.lobby.changed()
