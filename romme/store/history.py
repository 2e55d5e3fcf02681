"""A player's game history: every finished game, newest first, a page at a time.

Pages are keyed by the last game of the page before (``before``), not by an offset,
so that a game finishing while someone pages does not shift or repeat entries."""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, func, or_, select

from romme.store import accounts
from romme.store.core import StoreCore, bad, is_id, is_int, iso
from romme.store.errors import StoreError
from romme.store.models import GameResult, GameSeat, Player

__all__ = ["HISTORY_LIMIT_MAX", "HistoryStore", "seat_infos"]

HISTORY_LIMIT_MAX = 50
"""The most games one page of a history holds."""


class HistoryStore(StoreCore):
    """The store's game histories (see :class:`romme.store.Store`)."""

    async def game_history(
        self, nickname: str, *, before: int | None = None, limit: int = 20
    ) -> dict[str, Any] | None:
        """``GameHistory`` of the protocol: the player's finished games, newest
        first (by the time they finished, then by id), after the game ``before``
        of this history when given. ``None`` when there is no such player; a
        ``before`` that is not one of the player's games raises ``no_such_game``."""
        if not is_int(limit) or not 1 <= limit <= HISTORY_LIMIT_MAX:
            raise bad(f"limit must be a whole number from 1 to {HISTORY_LIMIT_MAX}")
        key = accounts.lookup_key(nickname)
        if key is None:
            return None
        async with self._read() as session:
            player = await self._player_by_key(session, key)
            if player is None:
                return None
            finished = func.max(GameSeat.finished_at).label("finished")
            query = (
                select(GameSeat.table_id, finished)
                .where(GameSeat.player_id == player.id)
                .group_by(GameSeat.table_id)
            )
            if before is not None:
                if not is_id(before):
                    raise _no_such_game()
                cursor = await session.scalar(
                    select(GameSeat.finished_at).where(
                        GameSeat.table_id == before, GameSeat.player_id == player.id
                    )
                )
                if cursor is None:
                    raise _no_such_game()
                query = query.having(
                    or_(finished < cursor, and_(finished == cursor, GameSeat.table_id < before))
                )
            rows = (
                await session.execute(
                    query.order_by(finished.desc(), GameSeat.table_id.desc()).limit(limit + 1)
                )
            ).all()
            ids = [row.table_id for row in rows[:limit]]
            results = {
                r.table_id: r
                for r in await session.scalars(
                    select(GameResult).where(GameResult.table_id.in_(ids))
                )
            }
            seated = set().union(*(r.seat_players for r in results.values()))
            players = {
                p.id: p for p in await session.scalars(select(Player).where(Player.id.in_(seated)))
            }
        games = [_entry(results[i], player.id, players) for i in ids]
        return {
            "nickname": player.nickname,
            "games": games,
            "more": len(rows) > limit,
        }


def seat_infos(seat_players: list[int], players: dict[int, Player]) -> list[dict[str, Any]]:
    """``SeatInfo`` of each seat of a finished game: who sat there (``None`` for a
    player no longer stored), nobody connected any more."""
    infos = []
    for seat, pid in enumerate(seat_players):
        player = players.get(pid)
        infos.append(
            {
                "seat": seat,
                "nickname": None if player is None else player.nickname,
                "bot": None if player is None else player.bot_level,
                "connected": False,
                "away": False,
            }
        )
    return infos


def _entry(result: GameResult, player_id: int, players: dict[int, Player]) -> dict[str, Any]:
    """One game of a history, seen from the player's seats."""
    seat_players = [int(pid) for pid in result.seat_players]
    winners = [int(w) for w in result.winners]
    own = [s for s, pid in enumerate(seat_players) if pid == player_id]
    return {
        "game": result.table_id,
        "finished_at": iso(result.finished_at),
        "seats": seat_infos(seat_players, players),
        "my_seats": own,
        "winners": winners,
        "totals": [int(t) for t in result.totals],
        "rounds": len(result.results),
        "won": any(s in winners for s in own),
    }


def _no_such_game() -> StoreError:
    return StoreError("no_such_game", "before is not a game of this player's history")
