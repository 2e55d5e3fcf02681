"""A table's deadlines: the turn, the knock window and the wait between rounds.

Each is one :class:`Deadline`: the time it ends (milliseconds since the epoch, as
the clients get it) and a timer on the server's clock. The timer does not act
itself: it hands its token to the table, which posts the work into its own task;
by then the deadline may have been moved or cleared, and a stale token is
recognised and ignored (:meth:`Deadline.is_current`).
"""

from __future__ import annotations

from collections.abc import Callable

from romme.server.timers import Clock, Timer

__all__ = ["Deadline"]


class Deadline:
    """One deadline of a table, with the timer that reports when it is reached."""

    __slots__ = ("_clock", "_on_due", "_timer", "at", "token")

    def __init__(self, clock: Clock, on_due: Callable[[int], None]) -> None:
        self._clock = clock
        self._on_due = on_due
        """Called from the clock with the token of the deadline that is reached."""
        self._timer: Timer | None = None
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
        token = self.token
        self.at = at_ms
        self.cancel()
        clock = self._clock
        delay = max(0.0, (at_ms - clock.now_ms()) * clock.scale / 1000)
        self._timer = clock.call_later(delay, lambda: self._on_due(token))
        return token

    def clear(self) -> None:
        """No deadline runs any more."""
        self.at = None
        self.cancel()

    def cancel(self) -> None:
        """Stop the timer (when the table stops); the time stays as it was."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def is_current(self, token: int) -> bool:
        """Whether a timer's token is that of the running deadline."""
        return token == self.token and self.at is not None
