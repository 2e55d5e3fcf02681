"""The hub's background loops: the hourly housekeeping in the database, short
garbage-collector pauses (the watch on the event loop's lag is
:mod:`romme.server.loopwatch`)."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from romme.server.auth import SESSION_MAX_AGE
from romme.server.config import ServerOptions
from romme.server.gcpolicy import GcPolicy
from romme.server.guests import GuestNames

if TYPE_CHECKING:
    from romme.store import Store

__all__ = ["gc_loop", "housekeeping_loop"]

log = logging.getLogger("romme.server.lobby")


async def housekeeping_loop(store: Store, options: ServerOptions, guests: GuestNames) -> None:
    """Now and then: free the nicknames of guests whose sessions have expired,
    delete old lobby chat, old invitations and tables closed without a game."""
    every = options.housekeeping_seconds
    await asyncio.sleep(min(every, 60.0))
    while True:
        now = datetime.now(UTC)
        try:
            counts = await store.prune(
                guests_before=now - timedelta(seconds=SESSION_MAX_AGE),
                chat_before=now - timedelta(days=options.lobby_chat_days),
                invitations_before_ms=int((now - timedelta(days=1)).timestamp() * 1000),
                closed_before=now - timedelta(days=1),
            )
            log.info("housekeeping", extra=counts)
            guests.forget_old()
        except Exception:
            log.exception("housekeeping_failed")
        await asyncio.sleep(every)


async def gc_loop(options: ServerOptions) -> None:
    """Keep the garbage collector's pauses short (see :mod:`romme.server.gcpolicy`)."""
    policy = GcPolicy(options.gc_freeze_seconds, options.gc_full_seconds)
    policy.start()
    try:
        while True:
            await asyncio.sleep(min(5.0, options.gc_freeze_seconds))
            policy.tick()
    finally:
        policy.stop()
