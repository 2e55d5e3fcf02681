"""A table's deadlines: the turn, the knock window and the wait between rounds.

Each is one :class:`Deadline`: the time it ends (milliseconds since the epoch, as
the clients get it) and a timer on the server's clock. The timer does not act
itself: it hands its token to the table, which posts the work into its own task;
by then the deadline may have been moved or cleared, and a stale token is
recognised and ignored (:meth:`Deadline.is_current`).

A deadline moved later keeps its timer: the turn deadline moves at every turn,
and cancelling and scheduling a timer each time costs the event loop's timer
heap work on every move. The timer that is already running fires at the earlier
time, sees the deadline is not reached yet and sets itself again for the rest.
"""

from __future__ import annotations

from collections.abc import Callable

from romme.server.timers import Clock, Timer

__all__ = ["Deadline"]


class Deadline:
    """One deadline of a table, with the timer that reports when it is reached."""

    __slots__ = ("_clock", "_on_due", "_timer", "_timer_at", "at", "token")

    def __init__(self, clock: Clock, on_due: Callable[[int], None]) -> None:
        self._clock = clock
        self._on_due = on_due
        """Called from the clock with the token of the deadline that is reached."""
        self._timer: Timer | None = None
        self._timer_at = 0
        """When the running timer fires (ms since the epoch)."""
        self.at: int | None = None
        """When the deadline ends (ms since the epoch); ``None`` when none runs."""
        self.token = 0
        """Counts the settings: the one a timer carries tells whether it is stale."""

    @property
    def running(self) -> bool:
        return self.at is not None

    def set(self, at_ms: int) -> int:
        """End at ``at_ms`` (replacing any earlier setting); return the new token."""
        self.token += 1
        self.at = at_ms
        if self._timer is None or self._timer_at > at_ms:
            self._arm(at_ms)
        return self.token

    def clear(self) -> None:
        """No deadline runs any more (a running timer finds none when it fires)."""
        self.at = None

    def cancel(self) -> None:
        """Stop the timer (when the table stops); the time stays as it was."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def is_current(self, token: int) -> bool:
        """Whether a timer's token is that of the running deadline."""
        return token == self.token and self.at is not None

    def _arm(self, at_ms: int) -> None:
        self.cancel()
        clock = self._clock
        delay = max(0.0, (at_ms - clock.now_ms()) * clock.scale / 1000)
        self._timer_at = at_ms
        self._timer = clock.call_later(delay, self._fired)

    def _fired(self) -> None:
        self._timer = None
        at = self.at
        if at is None:
            return
        if at > self._timer_at:
            self._arm(at)  # moved later since this timer was set: wait for the rest
            return
        self._on_due(self.token)
