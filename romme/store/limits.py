"""Limits against password guessing and account floods, counted in the database.

The counters live in the ``rate_counters`` table, so that they survive a restart
and hold for every server on one database. Each key names what is counted:
``login-account:<hash of the nickname key>``, ``login-address:<address>``,
``accounts:<address>``, ``password-check:<player id>`` (a logged-in player confirming
a change with the password, :mod:`romme.store.account_owner`).

* **Failed logins** (:class:`Backoff`): after ``free`` failures, each further
  failure blocks the key for a delay that doubles, from ``first`` seconds up to
  ``cap``, counted from the answer. An attempt while blocked is refused
  unchecked and does not count.
  A counter is forgotten ``forget`` seconds after its last failure; an account's
  counter also when someone logs in to it. A failure is counted *before* the
  password is checked (and taken back if it was right), so that parallel
  guesses cannot slip past the count.
* **New accounts** per address: at most ``per_hour`` in a window of an hour that
  starts with the first one.

Refusals raise :class:`LimitReached`, which says when to try again.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from romme.store.errors import StoreError
from romme.store.models import RateCounter

__all__ = [
    "ACCOUNT_LOGINS",
    "ADDRESS_LOGINS",
    "Backoff",
    "LimitReached",
    "account_key",
    "address_key",
    "confirm_failure",
    "count_account",
    "count_failure",
    "forget",
    "take_back_failure",
]

CREATION_WINDOW = timedelta(hours=1)


@dataclass(frozen=True, slots=True)
class Backoff:
    """A growing delay after repeated failures."""

    free: int
    first: float
    cap: float
    forget: float

    def delay(self, failures: int) -> float:
        """Seconds a key is blocked after this many failures in a row.

        >>> [ACCOUNT_LOGINS.delay(n) for n in (4, 5, 6, 7, 20)]
        [0.0, 2.0, 4.0, 8.0, 300.0]
        """
        if failures < self.free:
            return 0.0
        return min(self.cap, self.first * 2.0 ** min(failures - self.free, 32))


ACCOUNT_LOGINS = Backoff(free=5, first=2.0, cap=300.0, forget=24 * 3600.0)
"""Per account: 5 failures free, then 2 s, 4 s, ... at most 5 minutes."""
ADDRESS_LOGINS = Backoff(free=20, first=2.0, cap=900.0, forget=24 * 3600.0)
"""Per address, whatever the accounts: 20 free, then 2 s, ... at most 15 minutes."""


class LimitReached(StoreError):
    """A refusal by a limit: ``retry_after`` is in whole seconds."""

    def __init__(self, code: str, message: str, retry_after: float) -> None:
        super().__init__(code, message)
        self.retry_after = max(1, math.ceil(retry_after))


def account_key(nickname_key: str) -> str:
    """The counter of one account's failed logins (also for nicknames nobody has,
    so that a refusal says nothing about whether an account exists)."""
    digest = hashlib.sha256(nickname_key.encode("utf-8", "surrogatepass")).hexdigest()
    return "login-account:" + digest[:40]


def address_key(kind: str, address: str) -> str:
    return f"{kind}:{address[:64]}"


async def _counter(session: AsyncSession, key: str) -> RateCounter | None:
    found: RateCounter | None = await session.get(RateCounter, key, with_for_update=True)
    return found


def _refuse_if_blocked(counter: RateCounter | None, now: datetime) -> None:
    if counter is not None and counter.blocked_until is not None and counter.blocked_until > now:
        raise LimitReached(
            "too_many_attempts",
            "too many failed logins: wait a little before trying again",
            (counter.blocked_until - now).total_seconds(),
        )


async def count_failure(session: AsyncSession, key: str, backoff: Backoff, now: datetime) -> None:
    """Refuse if ``key`` is blocked; else count one failure (which may block it)."""
    counter = await _counter(session, key)
    _refuse_if_blocked(counter, now)
    if counter is None:
        counter = RateCounter(key=key, count=0, started_at=now, updated_at=now)
        session.add(counter)
    elif (now - counter.updated_at).total_seconds() > backoff.forget:
        counter.count, counter.started_at = 0, now
    counter.count += 1
    counter.updated_at = now
    delay = backoff.delay(counter.count)
    counter.blocked_until = now + timedelta(seconds=delay) if delay else None
    await session.flush()


async def confirm_failure(session: AsyncSession, key: str, backoff: Backoff, now: datetime) -> None:
    """The password was wrong: the block runs from now (the check took a while)."""
    counter = await _counter(session, key)
    delay = 0.0 if counter is None else backoff.delay(counter.count)
    if counter is not None and delay:
        counter.blocked_until = max(counter.blocked_until or now, now + timedelta(seconds=delay))


async def take_back_failure(session: AsyncSession, key: str, backoff: Backoff) -> None:
    """Undo one counted failure (the password was right after all)."""
    counter = await _counter(session, key)
    if counter is None or counter.count <= 0:
        return
    counter.count -= 1
    delay = backoff.delay(counter.count)
    counter.blocked_until = counter.updated_at + timedelta(seconds=delay) if delay else None


async def forget(session: AsyncSession, key: str) -> None:
    counter = await _counter(session, key)
    if counter is not None:
        await session.delete(counter)


async def count_account(session: AsyncSession, key: str, per_hour: int, now: datetime) -> None:
    """Count one new account for ``key``, or refuse (``too_many_accounts``) when
    ``per_hour`` were created in the current hour. ``per_hour`` 0: no limit."""
    if per_hour <= 0:
        return
    counter = await _counter(session, key)
    if counter is None:
        counter = RateCounter(key=key, count=0, started_at=now, updated_at=now)
        session.add(counter)
    elif now - counter.started_at >= CREATION_WINDOW:
        counter.count, counter.started_at = 0, now
    if counter.count >= per_hour:
        raise LimitReached(
            "too_many_accounts",
            f"at most {per_hour} new accounts an hour from one address: try again later",
            (counter.started_at + CREATION_WINDOW - now).total_seconds(),
        )
    counter.count += 1
    counter.updated_at = now
    await session.flush()
