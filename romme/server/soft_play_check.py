"""Checking finished staked games for soft play before moderators read the signals.

A check replays the game (``romme.bots.soft_play``, about a tenth of a second
for a whole game), so it runs off the event loop and only when a moderator asks
for the signals: the games of the period not checked yet, newest first, at most
``CHECK_BATCH`` per request; what was found is stored with the game's result,
and later requests start from there. Two moderators asking at once may check a
game twice, and both store the same answer.
"""

from __future__ import annotations

import asyncio
import logging

from romme.bots.analysis import AnalysisInput
from romme.bots.soft_play import missed_outs
from romme.store import Store

__all__ = ["CHECK_BATCH", "check_soft_play"]

log = logging.getLogger("romme.server.soft_play_check")

CHECK_BATCH = 100
"""The most games one request for the signals checks (the rest show
``checked: false`` until a later request)."""


async def check_soft_play(store: Store, days: int) -> int:
    """Check the unchecked staked games of the last ``days``; how many were checked."""
    checked = 0
    for game in await store.games_to_check(days, CHECK_BATCH):
        game_log = await store.game_log(game)
        if game_log is None:
            continue
        try:
            missed = await asyncio.to_thread(missed_outs, AnalysisInput.from_log(game_log))
        except Exception:  # a log the engine cannot replay stays unchecked, and is logged
            log.exception("soft_play_check_failed", extra={"game": game})
            continue
        await store.record_soft_play(game, missed)
        checked += 1
    return checked
