"""Card sets as the hand solver encodes them, and the melds a set can start
with its lowest card.

A set of natural cards is one integer with three bits per ``card.code`` (a count
of copies), so that adding or removing a card is one addition. A meld found in a
set is a small tuple (:data:`Desc`) that the solver turns back into a
:class:`~romme.engine.melds.Meld` at the end.

>>> [option[1:] for option in meld_options(ONE[0] + ONE[1] + ONE[2], 0, 0, 2)]
[(0, 6, (1, 0, 1, 3, 14))]
"""

from __future__ import annotations

from typing import TypeAlias

__all__ = ["GROUP_VALUE", "ONE", "PREFIX", "Desc", "Option", "meld_options"]

ONE: tuple[int, ...] = tuple(1 << (3 * code) for code in range(52))
"""The amount that adds one copy of a natural card to a card set."""


def _position_value(position: int) -> int:
    return 1 if position == 1 else 11 if position == 14 else min(position, 10)


PREFIX: tuple[int, ...] = tuple(sum(_position_value(p) for p in range(1, n + 1)) for n in range(15))
"""``PREFIX[b] - PREFIX[a - 1]``: the value of sequence positions ``a..b``."""
GROUP_VALUE: tuple[int, ...] = tuple(11 if r == 0 else min(r + 1, 10) for r in range(13))
"""Value of one card of a group, by rank index (rank - 1)."""

Desc: TypeAlias = tuple[int, int, int, int, int]
"""A meld found by the search: ``(0, rank index, suit mask, size, 0)`` for a group,
``(1, suit, first position, last position, mask of natural positions)`` for a
sequence."""
Option: TypeAlias = tuple[int, int, int, Desc]
"""``(cards left, jokers used, meld value, meld)``."""


def meld_options(m: int, c: int, kmax: int, min_nat: int) -> list[Option]:
    """Every meld of the card set ``m`` whose lowest card is ``c`` (the lowest
    card of ``m``) with at most ``kmax`` jokers, jokers placed for most value."""
    one = ONE
    out: list[Option] = []
    m0 = m - one[c]
    s, r = divmod(c, 13)

    # Groups: c with other suits of its rank, filled up with jokers.
    others = [x for x in range(c + 13, 52, 13) if m0 >> (3 * x) & 7]
    if others:
        value = GROUP_VALUE[r]
        count = len(others)
        for chosen in range(1, 1 << count):
            delta = 0
            suits = 1 << s
            n = 1
            for i in range(count):
                if chosen >> i & 1:
                    x = others[i]
                    delta += one[x]
                    suits |= 1 << (x // 13)
                    n += 1
            if n < min_nat:
                continue
            for size in (3, 4):
                k = size - n
                if 0 <= k <= kmax:
                    out.append((m0 - delta, k, value * size, (0, r, suits, size, 0)))

    # Sequences: upwards from c (the ace as 1), naturals taken or replaced by jokers.
    prefix = PREFIX
    base = s * 13 - 1  # code of position q (1..13) is base + q
    p = r + 1
    stack = [(p + 1, 0, 1 << p, 1, 0)]
    while stack:
        q, delta, taken, n, k = stack.pop()
        if q > 13:
            continue
        x = base + q
        if m0 >> (3 * x) & 7:
            d2 = delta + one[x]
            t2 = taken | 1 << q
            if n + 1 >= min_nat:
                length = q - p + 1
                free = kmax - k
                room = 13 - length
                for e in range(
                    3 - length if length < 3 else 0, (free if free < room else room) + 1
                ):
                    high = e if e <= 14 - q else 14 - q
                    lo = p - (e - high)
                    hi = q + high
                    out.append((m0 - d2, k + e, prefix[hi] - prefix[lo - 1], (1, s, lo, hi, t2)))
            stack.append((q + 1, d2, t2, n + 1, k))
        if k < kmax:
            stack.append((q + 1, delta, taken, n, k + 1))

    # Sequences ending with the ace high, downwards from it.
    if r == 0:
        stack = [(13, 0, 1 << 14, 1, 0)]
        while stack:
            q, delta, taken, n, k = stack.pop()
            if q < 2:
                continue
            x = base + q
            if m0 >> (3 * x) & 7:
                d2 = delta + one[x]
                t2 = taken | 1 << q
                if n + 1 >= min_nat:
                    length = 15 - q
                    free = kmax - k
                    room = 13 - length
                    for e in range(
                        3 - length if length < 3 else 0, (free if free < room else room) + 1
                    ):
                        lo = q - e
                        out.append(
                            (m0 - d2, k + e, prefix[14] - prefix[lo - 1], (1, s, lo, 14, t2))
                        )
                stack.append((q - 1, d2, t2, n + 1, k))
            if k < kmax:
                stack.append((q - 1, delta, taken, n, k + 1))
    return out
