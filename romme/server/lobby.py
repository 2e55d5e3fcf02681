"""The lobby: who is online, the tables a player may see, the lobby chat, and the
lobby updates, sent at most every ``lobby_update_interval`` seconds (a slow
client gets only the newest)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from romme.server import messages
from romme.server.config import ServerOptions
from romme.server.connection import Connection
from romme.server.lobby_feed import LobbyFeed, LobbyView, Subscription
from romme.server.online import OnlinePlayers
from romme.server.registry import Registry
from romme.server.table import PLAYING, WAITING, TableActor
from romme.server.timers import Clock

if TYPE_CHECKING:
    from romme.store import PlayerRecord, Store

__all__ = ["LOBBY_PLAYERS", "LOBBY_RUNNING", "LOBBY_WAITING", "Lobby", "OtherNodes"]

log = logging.getLogger("romme.server.lobby")

LOBBY_PLAYERS = 200
"""The lobby lists at most this many players online (``online`` counts them all)."""
LOBBY_RUNNING = 50
"""The lobby lists at most this many running games (``playing`` counts them all)."""
LOBBY_WAITING = 50
"""The lobby lists at most this many open waiting tables (the newest), besides the
tables a player sits at or is invited to, so that its size stays bounded."""
LOBBY_CHAT = 50
"""The lobby chat shows the last this many messages."""
UPDATE_BATCH = 100
"""Connections sent a lobby update between two turns of the event loop."""


@dataclasses.dataclass(slots=True)
class OtherNodes:
    """What the other nodes of a cluster show in their lobbies (kept current by
    :mod:`romme.server.lobby_share`; empty on a single server)."""

    tables: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    """Their open waiting and running tables, as the lobby lists them."""
    private: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    """Their other waiting tables (``table``), each for the players seated or
    invited there (``for``: their ids)."""
    players: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    playing: int = 0


class Lobby:
    """What the lobby shows, and the updates that keep it current."""

    def __init__(
        self, registry: Registry, store: Store, clock: Clock, options: ServerOptions
    ) -> None:
        self.registry = registry
        self.store = store
        self.clock = clock
        self.options = options
        self.chat: list[dict[str, Any]] = []
        self._dirty = False
        self._paused = False
        self._task: asyncio.Task[None] | None = None
        self._players_cache: list[dict[str, Any]] | None = None
        self.here = OnlinePlayers()
        """The players online on this node."""
        self.others = OtherNodes()
        self.feed = LobbyFeed()
        self._online = 0
        self.on_said: Callable[[dict[str, Any]], None] | None = None
        """Tells the other nodes of a cluster a lobby chat line said here."""
        self.hidden_invitations: set[int] = set()
        """Open invitations whose invitee blocked their sender: never shown to the
        invitee, even if the block is lifted before they expire."""

    async def start(self) -> None:
        """Load the recent chat and start sending updates."""
        chat = await self.store.recent_chat(None, LOBBY_CHAT)
        self.chat = [messages.chat_entry(m) for m in chat]
        self._task = asyncio.create_task(self._flusher())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def pause(self) -> None:
        """No more updates (the server is shutting down)."""
        self._paused = True

    def changed(self) -> None:
        """Something the lobby shows changed: an update goes out soon."""
        self._dirty = True

    def player_online(self, player: PlayerRecord) -> None:
        """A player's first connection to this node."""
        self.here.add(player)
        self._players_cache = None

    def player_offline(self, player_id: int) -> None:
        """A player's last connection to this node closed."""
        self.here.remove(player_id)
        self._players_cache = None

    def player_refreshed(self, player: PlayerRecord) -> None:
        """A player online here has a new rating, level or nickname: the lists
        show it with the next update."""
        if self.here.refresh(player):
            self._players_cache = None
            self.changed()

    def players_changed(self) -> None:
        """The other nodes' players changed: the list of players is built anew."""
        self._players_cache = None

    # ------------------------------------------------------------- contents

    def online_players(self) -> list[dict[str, Any]]:
        """Players online (at most ``LOBBY_PLAYERS``, by nickname; ``online`` counts all)."""
        if self._players_cache is None:
            here = self.here.first(LOBBY_PLAYERS)
            if not self.others.players:
                self._online = len(self.here)
                self._players_cache = here
                return here
            players = {player["nickname"]: player for player in here}
            elsewhere = 0
            for player in self.others.players:  # a player on two other nodes counts once
                if player["nickname"] not in players:
                    players[player["nickname"]] = player
                    elsewhere += 1
            ordered = sorted(players.values(), key=lambda p: str(p["nickname"]).casefold())
            self._online = len(self.here) + elsewhere
            self._players_cache = ordered[:LOBBY_PLAYERS]
        return self._players_cache

    def online_count(self) -> int:
        """Players online (on every node of a cluster; each node reports at most
        ``LOBBY_PLAYERS``)."""
        if not self.others.players:
            return len(self.here)
        self.online_players()
        return self._online

    def public_tables(self) -> list[TableActor]:
        """This node's tables that every player sees in the lobby."""
        return [*self._open_waiting(), *self._watchable()]

    def _watchable(self) -> list[TableActor]:
        """The newest running open tables (to watch), at most ``LOBBY_RUNNING``."""
        running = [
            t
            for t in self.registry.tables.values()
            if t.status == PLAYING and t.settings.access == "open"
        ]
        return sorted(running, key=lambda t: -t.id)[:LOBBY_RUNNING]

    def _open_waiting(self) -> list[TableActor]:
        """The newest open waiting tables, at most ``LOBBY_WAITING``."""
        waiting = [
            t
            for t in self.registry.tables.values()
            if t.status == WAITING and t.settings.access == "open"
        ]
        return sorted(waiting, key=lambda t: -t.id)[:LOBBY_WAITING]

    @staticmethod
    def _own_tables(player_id: int, private: list[TableActor]) -> list[TableActor]:
        """The waiting and running tables a player sits at, and the invite-only
        waiting tables it is invited to (few: bounded by the limits on waiting
        tables and invitations)."""
        return [
            t
            for t in private
            if (t.status in (WAITING, PLAYING) and t.seat_of(player_id) is not None)
            or (t.status == WAITING and t.settings.access != "open" and t.visible_to(player_id))
        ]

    def tables_for(self, player_id: int) -> list[dict[str, Any]]:
        """The lobby's tables for a player: the newest open waiting tables, the
        newest running open tables, and the tables it sits at or is invited to."""
        shown = self._own_tables(player_id, list(self.registry.tables.values()))
        ids = {t.id for t in shown}
        for table in [*self._open_waiting(), *self._watchable()]:
            if table.id not in ids:
                ids.add(table.id)
                shown.append(table)
        others = [t for t in self.others.tables if t["id"] not in ids]
        others += [t for t in self._elsewhere(player_id) if t["id"] not in ids]
        return [t.summary() for t in shown] + others

    def _elsewhere(self, player_id: int) -> list[dict[str, Any]]:
        """The waiting tables of other nodes that a player sits at or is invited
        to, but that not everyone sees."""
        return [e["table"] for e in self.others.private if player_id in e["for"]]

    def running_tables(self) -> list[dict[str, Any]]:
        """Open running tables (for spectators: ``GET /api/tables``)."""
        return [
            t.summary()
            for t in self.registry.tables.values()
            if t.status in (WAITING, PLAYING) and t.settings.access == "open"
        ]

    def playing_count(self) -> int:
        """Running games (on every node of a cluster)."""
        return self.others.playing + self.local_playing()

    def local_playing(self) -> int:
        return sum(1 for t in self.registry.tables.values() if t.status == PLAYING)

    async def message(self, conn: Connection) -> dict[str, Any]:
        """The whole lobby as this connection's player sees it."""
        invitations = await self.store.open_invitations(conn.player_id, self.clock.now_ms())
        # The invitations name their senders as they are called now: so are the
        # blocked players here (read by id), whatever they were called when blocked.
        blocked = (
            await self.store.blocked_nicknames(conn.player_id)
            if conn.hidden_ids and invitations
            else set()
        )
        data = messages.lobby(
            self.tables_for(conn.player_id),
            self.playing_count(),
            self.online_count(),
            self.online_players(),
            [
                messages.public_chat(c)
                for c in self.chat
                if c.get("player_id") not in conn.hidden_ids
            ],
            [
                i
                for i in map(messages.as_json, invitations)
                if i.get("from") not in blocked
                and (i.get("to") != conn.nickname or i.get("id") not in self.hidden_invitations)
            ],
        )
        return self.feed.whole(conn, data)

    def subscribe(self, conn: Connection, deltas: bool, msg_id: Any) -> None:
        """``lobby_subscribe``: from now on lobby deltas (or whole lists again);
        the reply is the whole lists, the base of the first delta (asked again, its
        version follows the last one sent)."""
        if not deltas:
            conn.lobby_feed = None
        elif conn.lobby_feed is None:
            conn.lobby_feed = Subscription()
        data = messages.lobby_update(
            self.tables_for(conn.player_id),
            self.playing_count(),
            self.online_count(),
            self.online_players(),
        )
        conn.reply(self.feed.whole(conn, data), msg_id)

    async def send_to(self, conn: Connection) -> None:
        """Send the whole lobby to one connection."""
        with contextlib.suppress(Exception):
            conn.send_json(await self.message(conn))

    async def say(self, conn: Connection, text: str) -> None:
        """A lobby chat message: stored, then sent to everyone online."""
        chat = messages.chat_entry(await self.store.add_chat(None, conn.player_id, text))
        self.heard(chat)
        if self.on_said is not None:
            self.on_said(chat)

    def heard(self, chat: dict[str, Any]) -> None:
        """A lobby chat line (said here or on another node): sent to everyone here."""
        self.chat = [*self.chat[-(LOBBY_CHAT - 1) :], chat]
        text = messages.dumps(messages.lobby_chat(messages.public_chat(chat)))
        sender = chat.get("player_id")
        for other in list(self.registry.connections):
            if other.has_lobby and sender not in other.hidden_ids:
                other.send(text)

    # -------------------------------------------------------------- updates

    async def _flusher(self) -> None:
        while True:
            await asyncio.sleep(self.options.lobby_update_interval)
            if not self._dirty or self._paused:
                continue
            self._dirty = False
            try:
                await self._send_update()
            except Exception:
                log.exception("lobby_update_failed")

    async def _send_update(self) -> None:
        """One round of updates to every connection in the lobby. The event loop
        gets a turn after every ``UPDATE_BATCH`` connections: with thousands online
        a round takes long enough to hold up the tables' moves otherwise."""
        registry = self.registry
        players = self.online_players()
        playing = self.playing_count()
        waiting = self._open_waiting()
        public = [t.summary() for t in [*waiting, *self._watchable()]] + self.others.tables
        online = self.online_count()
        self.feed.advance(LobbyView.of(public, players, playing, online))
        public_text: str | None = None
        listed = {t.id for t in waiting}
        private = [
            t
            for t in registry.tables.values()
            if t.status == WAITING and (t.settings.access != "open" or t.id not in listed)
        ]
        for index, conn in enumerate(registry.in_lobby_now()):
            if index and index % UPDATE_BATCH == 0:
                await asyncio.sleep(0)
            # Asked already, but the answer may have changed while others ran.
            if index >= UPDATE_BATCH and (conn.closed or not registry.in_lobby(conn)):
                continue
            own = self._own_tables(conn.player_id, private)
            mine = [t.summary() for t in own if t.status == WAITING]
            mine += self._elsewhere(conn.player_id) if self.others.private else []
            if conn.lobby_feed is not None:
                self.feed.send(conn, mine)
            elif not mine:
                if public_text is None:
                    public_text = messages.dumps(
                        messages.lobby_update(public, playing, online, players)
                    )
                conn.send_lobby(public_text)
            else:
                tables = public + mine
                conn.send_lobby(
                    messages.dumps(messages.lobby_update(tables, playing, online, players))
                )
