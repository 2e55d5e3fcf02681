"""A table's deadline on the test clock: it is reached exactly when it ends, however
often it was moved, and a deadline moved later keeps its one timer."""

from __future__ import annotations

from collections.abc import Callable

from romme.server.table.deadlines import Deadline
from romme.server.timers import ManualClock, Timer


class CountingClock(ManualClock):
    """The test clock, counting the timers set on it."""

    def __init__(self, scale: float = 1.0) -> None:
        super().__init__(scale=scale)
        self.timers_set = 0

    def call_later(self, game_seconds: float, callback: Callable[[], None]) -> Timer:
        self.timers_set += 1
        return super().call_later(game_seconds, callback)


def _deadline(clock: ManualClock) -> tuple[Deadline, list[tuple[int, int]]]:
    reached: list[tuple[int, int]] = []
    deadline = Deadline(clock, lambda token: reached.append((clock.now_ms(), token)))
    return deadline, reached


def test_a_deadline_moved_later_is_reached_at_its_new_end_with_one_timer() -> None:
    clock = CountingClock()
    deadline, reached = _deadline(clock)
    start = clock.now_ms()
    for turn in range(1, 11):  # a turn every 2 s, each with 30 s to play
        clock.advance(2_000)
        token = deadline.set(start + turn * 2_000 + 30_000)
    assert clock.timers_set == 1
    clock.advance(29_999)
    assert reached == []
    clock.advance(1)
    assert reached == [(start + 50_000, token)]
    assert deadline.is_current(token)
    # The first timer fired at its own end (32 s), found the deadline later and set
    # a second one for the rest.
    assert clock.timers_set == 2


def test_a_deadline_moved_earlier_is_reached_at_the_earlier_end() -> None:
    clock = CountingClock()
    deadline, reached = _deadline(clock)
    start = clock.now_ms()
    deadline.set(start + 30_000)
    token = deadline.set(start + 10_000)
    clock.advance(30_000)
    assert reached == [(start + 10_000, token)]


def test_a_cleared_deadline_is_never_reached_and_a_new_one_is() -> None:
    clock = CountingClock()
    deadline, reached = _deadline(clock)
    start = clock.now_ms()
    deadline.set(start + 30_000)
    deadline.clear()
    clock.advance(60_000)
    assert reached == [] and not deadline.running
    token = deadline.set(clock.now_ms() + 15_000)
    clock.advance(15_000)
    assert reached == [(start + 75_000, token)]


def test_a_cancelled_deadline_stops_its_timer_and_can_be_set_again() -> None:
    clock = CountingClock()
    deadline, reached = _deadline(clock)
    start = clock.now_ms()
    deadline.set(start + 30_000)
    deadline.cancel()
    clock.advance(40_000)
    assert reached == [] and deadline.running  # the time stays as it was
    token = deadline.set(start + 50_000)
    clock.advance(10_000)
    assert reached == [(start + 50_000, token)]


def test_a_faster_clock_reaches_moved_deadlines_on_time() -> None:
    clock = CountingClock(scale=3.0)
    deadline, reached = _deadline(clock)
    start = clock.now_ms()
    deadline.set(clock.deadline_ms(30))
    clock.advance(1_000)
    token = deadline.set(clock.deadline_ms(30))
    clock.advance(10_000)
    assert reached == [(start + 11_000, token)]
