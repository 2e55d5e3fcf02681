"""Lobby changes instead of whole lobbies, for the clients that ask for them.

A client that sends ``lobby_subscribe`` with ``deltas: true`` gets, instead of the
whole ``lobby_update`` after each change, a ``lobby_delta``: the tables added or
changed, the tables removed, the players who came or changed, the players who
left, and the two counts, numbered by a per-connection ``version``
(docs/protocol.md). Every full list sent to it (``lobby``, ``lobby_update``)
carries the version too and is the base the next delta changes.

The work grows with the changes, not with the clients: at each update round the
lobby's public part (what every player sees) is compared once with the previous
round's (:meth:`LobbyFeed.advance`) and the delta's text is built once; for each
connection only its own few tables (the ones it sits at or is invited to) are
compared with what it was sent. A connection whose base is not the previous
round (it was sent a whole ``lobby`` meanwhile, or was at a running game and got
no rounds) is compared with exactly what it was sent last, or gets the whole
lists again.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol

from romme.server import messages

__all__ = ["LobbyFeed", "LobbyView", "Subscriber", "Subscription", "changes"]


@dataclasses.dataclass(slots=True)
class LobbyView:
    """What a lobby lists: tables by id, players by nickname, and the counts."""

    tables: dict[int, dict[str, Any]]
    players: dict[str, dict[str, Any]]
    playing: int = 0
    online: int = 0

    @classmethod
    def of(
        cls, tables: list[dict[str, Any]], players: list[dict[str, Any]], playing: int, online: int
    ) -> LobbyView:
        return cls(
            {t["id"]: t for t in tables}, {p["nickname"]: p for p in players}, playing, online
        )

    def with_tables(self, extra: dict[int, dict[str, Any]]) -> LobbyView:
        return LobbyView(self.tables | extra, self.players, self.playing, self.online)


def changes(old: LobbyView, new: LobbyView) -> dict[str, Any] | None:
    """The fields of the delta from ``old`` to ``new``; ``None`` if they list the same."""
    tables = [t for key, t in new.tables.items() if old.tables.get(key) != t]
    removed = [key for key in old.tables if key not in new.tables]
    players = [p for key, p in new.players.items() if old.players.get(key) != p]
    left = [key for key in old.players if key not in new.players]
    if (
        not (tables or removed or players or left)
        and old.playing == new.playing
        and old.online == new.online
    ):
        return None
    return {
        "tables": tables,
        "removed": removed,
        "players": players,
        "left": left,
        "playing": new.playing,
        "online": new.online,
    }


@dataclasses.dataclass(slots=True)
class Subscription:
    """One connection's lobby deltas: its version and what it was sent."""

    version: int = 0
    round: int | None = None
    """The update round whose public lists the client has (``None``: see ``sent``)."""
    own: dict[int, dict[str, Any]] = dataclasses.field(default_factory=dict)
    """Its tables beyond that round's public lists, as last sent."""
    sent: LobbyView | None = None
    """Exactly what the last whole lobby sent to it listed (between rounds)."""


class Subscriber(Protocol):
    """What the feed needs of a connection (:class:`~romme.server.connection.Connection`)."""

    lobby_feed: Subscription | None
    lobby_sent: str | None

    def send(self, text: str) -> None: ...


class LobbyFeed:
    """The public lists of the latest update round and the delta that led to them."""

    def __init__(self) -> None:
        self.round = 0
        self.view = LobbyView({}, {})
        self._delta: dict[str, Any] | None = None
        self._delta_body = ""
        """The delta's fields as JSON text after the opening brace (shared by every
        client whose only change it is)."""

    def advance(self, view: LobbyView) -> None:
        """A new update round with these public lists."""
        self._delta = changes(self.view, view)
        self._delta_body = "" if self._delta is None else messages.dumps(self._delta)[1:]
        self.view = view
        self.round += 1

    @staticmethod
    def whole(conn: Subscriber, data: dict[str, Any]) -> dict[str, Any]:
        """A whole lobby (``lobby`` or ``lobby_update``) about to go to ``conn``:
        with its version if the connection takes deltas (the base of the next)."""
        sub = conn.lobby_feed
        if sub is None:
            conn.lobby_sent = None
            return data
        sub.version += 1
        sub.round = None
        sub.own = {}
        sub.sent = LobbyView.of(data["tables"], data["players"], data["playing"], data["online"])
        return {**data, "version": sub.version}

    def send(self, conn: Subscriber, own: list[dict[str, Any]]) -> None:
        """Bring a subscribed connection up to this round (nothing if nothing
        changed for it); ``own``: its tables beyond the public lists."""
        sub = conn.lobby_feed
        assert sub is not None
        view = self.view
        mine = {t["id"]: t for t in own if t["id"] not in view.tables}
        if sub.round == self.round - 1:
            text = self._delta_text(sub, mine)
        elif sub.sent is not None:
            fields = changes(sub.sent, view.with_tables(mine))
            text = None if fields is None else self._text(sub, fields)
        else:
            whole = view.with_tables(mine)
            data = messages.lobby_update(
                list(whole.tables.values()), view.playing, view.online, list(view.players.values())
            )
            sub.version += 1
            text = messages.dumps({**data, "version": sub.version})
        sub.round, sub.own, sub.sent = self.round, mine, None
        if text is not None:
            conn.send(text)

    def _delta_text(self, sub: Subscription, mine: dict[int, dict[str, Any]]) -> str | None:
        """The delta for a client that has the previous round's lists."""
        added = [t for key, t in mine.items() if sub.own.get(key) != t]
        gone = [key for key in sub.own if key not in mine and key not in self.view.tables]
        delta = self._delta
        if not added and not gone:
            if delta is None:
                return None
            sub.version += 1
            return f'{{"type":"lobby_delta","version":{sub.version},{self._delta_body}'
        delta = delta or {"tables": [], "removed": [], "players": [], "left": []}
        fields = {
            **delta,
            "tables": [*delta["tables"], *added],
            "removed": [*(key for key in delta["removed"] if key not in mine), *gone],
            "playing": self.view.playing,
            "online": self.view.online,
        }
        return self._text(sub, fields)

    @staticmethod
    def _text(sub: Subscription, fields: dict[str, Any]) -> str:
        sub.version += 1
        return messages.dumps({"type": "lobby_delta", "version": sub.version, **fields})
