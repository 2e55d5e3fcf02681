"""The analyses of finished games: requested by one of the game's players,
computed once (see :mod:`romme.server.analysis`), kept for everyone to read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy.exc import IntegrityError

from romme.store.core import StoreCore, is_id, iso
from romme.store.errors import StoreError
from romme.store.models import GameAnalysis, GameResult, GameTable

__all__ = ["AnalysisStore"]


def _record(row: GameAnalysis) -> dict[str, Any]:
    return {
        "status": row.status,
        "requested_at": iso(row.requested_at),
        "finished_at": iso(row.finished_at),
        "result": row.result,
    }


class AnalysisStore(StoreCore):
    """The store's game analyses (see :class:`romme.store.Store`)."""

    async def analysis(self, table_id: int) -> dict[str, Any] | None:
        """``{"status", "requested_at", "finished_at", "result"}`` of a game's
        analysis, ``None`` if nobody asked for one."""
        if not is_id(table_id):
            return None
        async with self._read() as session:
            row = await session.get(GameAnalysis, table_id)
            return None if row is None else _record(row)

    async def request_analysis(
        self, table_id: int, player_id: int, admit: Callable[[], None] | None = None
    ) -> tuple[dict[str, Any], bool]:
        """The game's analysis record and whether this call created it (pending).
        ``admit`` is called before a new record is made and may refuse it by
        raising (a limit); nothing is stored then.

        ``no_such_game`` for no table, ``game_not_finished`` for a table whose
        game has not ended, ``not_your_game`` if the player held no seat in it."""
        if not is_id(table_id):
            raise StoreError("no_such_game", "there is no such game")
        try:
            async with self._write() as session:
                table = await session.get(GameTable, table_id)
                if table is None:
                    raise StoreError("no_such_game", "there is no such game")
                result = await session.get(GameResult, table_id)
                if table.status != "finished" or result is None:
                    raise StoreError("game_not_finished", "only a finished game can be analysed")
                if player_id not in [int(p) for p in result.seat_players]:
                    raise StoreError(
                        "not_your_game", "only the game's players may ask for its analysis"
                    )
                row = await session.get(GameAnalysis, table_id)
                if row is not None:
                    return _record(row), False
                if admit is not None:
                    admit()
                row = GameAnalysis(
                    table_id=table_id,
                    status="pending",
                    requested_by=player_id,
                    requested_at=self._now(),
                    finished_at=None,
                    result=None,
                )
                session.add(row)
                await session.flush()
                return _record(row), True
        except IntegrityError:  # asked twice at the same moment: the other one made it
            found = await self.analysis(table_id)
            if found is None:  # pragma: no cover - the row exists after the conflict
                raise
            return found, False

    async def finish_analysis(self, table_id: int, result: dict[str, Any]) -> None:
        """Store the computed analysis (``done``)."""
        async with self._write() as session:
            row = await session.get(GameAnalysis, table_id)
            if row is None:
                raise StoreError("no_such_game", "there is no analysis to finish")
            row.status = "done"
            row.result = result
            row.finished_at = self._now()
