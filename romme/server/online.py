"""The players online on this node, in the lobby's order (by nickname, ignoring case).

The lobby shows the first ``LOBBY_PLAYERS`` of them. Rebuilding and sorting the
whole list whenever a player came or went cost every new connection time in
proportion to everyone online, so a node's start with thousands of players
reconnecting took minutes. Here a player's entry is made once, when the player
comes online, and kept in order as players come and go: the lobby's list is a
slice of it.
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from romme.store import PlayerRecord

__all__ = ["OnlinePlayers"]


class OnlinePlayers:
    """Who is online here: each player's ``Player`` JSON, kept in nickname order."""

    __slots__ = ("_json", "_order")

    def __init__(self) -> None:
        self._json: dict[int, dict[str, Any]] = {}
        """Each player's ``Player`` of the protocol, by player id."""
        self._order: list[tuple[str, str, int]] = []
        """``(casefolded nickname, nickname, player id)``, sorted."""

    def __len__(self) -> int:
        return len(self._json)

    def __contains__(self, player_id: object) -> bool:
        return player_id in self._json

    def add(self, player: PlayerRecord) -> None:
        """The player came online (nothing if already listed)."""
        if player.id in self._json:
            return
        self._json[player.id] = player.to_json()
        bisect.insort(self._order, _key(player.nickname, player.id))

    def refresh(self, player: PlayerRecord) -> bool:
        """The player's entry as it is now (a game changed the rating or level, a
        registration the nickname); whether it changed (nothing if not listed)."""
        entry = self._json.get(player.id)
        fresh = player.to_json()
        if entry is None or entry == fresh:
            return False
        if entry["nickname"] != fresh["nickname"]:
            self.remove(player.id)
            self.add(player)
        else:
            self._json[player.id] = fresh
        return True

    def remove(self, player_id: int) -> None:
        """The player went offline (nothing if not listed)."""
        entry = self._json.pop(player_id, None)
        if entry is None:
            return
        key = _key(str(entry["nickname"]), player_id)
        del self._order[bisect.bisect_left(self._order, key)]

    def first(self, count: int) -> list[dict[str, Any]]:
        """The first ``count`` players by nickname."""
        entries = self._json
        return [entries[player_id] for _, _, player_id in self._order[:count]]


def _key(nickname: str, player_id: int) -> tuple[str, str, int]:
    return (nickname.casefold(), nickname, player_id)
