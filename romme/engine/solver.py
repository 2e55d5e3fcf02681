"""The exact hand solver: the best way to lay a hand out in melds.

:func:`solve` splits a hand into disjoint valid melds so that the cards left over
cost the least penalty; among equal penalties it takes the arrangement whose melds
are worth the most (their opening value), and remaining ties are broken
deterministically (the result depends only on the hand as a multiset).
:func:`solve_opening` does the same among the arrangements that could open: melds
worth at least ``rules.opening_points`` together, or, with
``rules.opening_single_meld``, one meld worth that much on its own.

>>> from romme.engine.cards import parse_cards
>>> from romme.engine.rules import Rules
>>> best = solve(parse_cards("QH KH XX 7C 7D 7S 2D"), Rules.classic())
>>> [str(meld) for meld in best.melds], best.points, best.penalty
(['7C 7D 7S', 'QH KH XX'], 52, 2)
>>> solve_opening(parse_cards("7C 7D 7H"), Rules.classic()) is None
True

How it works. Natural cards are numbered by ``card.code`` and a set of them is one
integer with three bits per code (a count of copies). Cards that cannot be in any
meld are left over at once; the others are split into components: two cards are
linked when they could stand in one meld (same rank, or same suit and close enough
for the jokers in hand to bridge the gap, the ace counting as 1 and 14). Each
component is solved by a memoised depth-first search over (remaining cards, jokers
available): the lowest remaining card is either left over or laid in one of the
melds in which it is the lowest card (groups with other suits of its rank;
sequences upwards from it, and for an ace also downwards from the high ace; any
card inside a sequence may be taken or replaced by a joker, extra jokers extend a
sequence or fill a group). A meld's jokers are always placed where they are worth
most: extra jokers go to the high end of a sequence first. The components share
the jokers through a small knapsack. The opening search keeps, per state, the
Pareto front of (penalty, points) instead of one best value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeAlias

from romme.engine.cards import JOKER, Card, Suit, all_naturals
from romme.engine.cardsets import GROUP_VALUE, ONE, Desc, meld_options
from romme.engine.melds import Meld, MeldKind
from romme.engine.rules import Rules
from romme.engine.scoring import penalty_table

__all__ = ["Arrangement", "solve", "solve_opening"]


@dataclass(frozen=True, slots=True)
class Arrangement:
    """A hand laid out in melds.

    ``melds`` are disjoint valid melds (each in the order :meth:`Meld.parse`
    accepts), ``left`` the cards in no meld (ordered by code, jokers last),
    ``penalty`` what ``left`` costs (:func:`~romme.engine.scoring.hand_penalty`)
    and ``points`` the melds' opening value together.
    """

    melds: tuple[Meld, ...]
    left: tuple[Card, ...]
    penalty: int
    points: int

    def to_json(self) -> dict[str, Any]:
        """``{"melds": [["7C", ...], ...], "left": [...], "penalty": n, "points": n}``."""
        return {
            "melds": [[str(card) for card in meld.cards] for meld in self.melds],
            "left": [str(card) for card in self.left],
            "penalty": self.penalty,
            "points": self.points,
        }


# ------------------------------------------------------------------ internals

_CARDS: tuple[Card, ...] = (*all_naturals(), JOKER)
_SUITS: tuple[Suit, ...] = tuple(Suit)
_MAX_COPIES = 7

_SCALE = 1 << 20
"""A search score is ``penalty * _SCALE - points``: less is better."""


_Chain: TypeAlias = "tuple[Desc, _Chain] | None"
"""The melds of a partial solution as a linked list."""
_Node: TypeAlias = tuple[int, _Chain]
"""``(score, melds)``."""
_Point: TypeAlias = tuple[int, int, _Chain]
"""``(penalty, points, melds)``: one point of a Pareto front."""
_Entry: TypeAlias = "tuple[int, tuple[_Chain, ...]] | None"
_Combined: TypeAlias = "list[tuple[int, int, tuple[_Chain, ...]]]"


@dataclass(frozen=True, slots=True)
class _Tables:
    pen: tuple[int, ...]
    joker_penalty: int
    min_naturals: int
    max_jokers: int
    opening: int
    single_meld: bool


@lru_cache(maxsize=64)
def _tables(rules: Rules) -> _Tables:
    limit = rules.max_jokers_per_meld
    return _Tables(
        pen=penalty_table(rules),
        joker_penalty=rules.joker_penalty,
        min_naturals=rules.min_natural_cards,
        max_jokers=1 << 30 if limit is None else limit,
        opening=max(rules.opening_points, 1),
        single_meld=rules.opening_single_meld,
    )


@dataclass(slots=True)
class _Prepared:
    """A hand split into what the searches need."""

    tables: _Tables
    codes: list[int]
    """The natural cards' codes, sorted."""
    jokers: int
    components: list[int]
    """Card sets (three bits per code) that are searched separately."""
    bound: int
    """An upper bound of the points any arrangement can reach."""


def _prepare(hand: Sequence[Card], rules: Rules) -> _Prepared:
    tables = _tables(rules)
    codes = sorted([card.code for card in hand])
    jokers = 0
    while codes and codes[-1] == 52:
        codes.pop()
        jokers += 1
    gap = jokers if jokers < tables.max_jokers else tables.max_jokers
    prep = _Prepared(tables, codes, jokers, [], 0)
    if len(codes) < 2:
        return prep

    # Positions of each suit (bit p, the ace at 1 and 14) and suits of each rank.
    pos = [0, 0, 0, 0]
    ranks = [0] * 13
    for code in codes:
        s, r = divmod(code, 13)
        pos[s] |= (1 << 1 | 1 << 14) if r == 0 else 1 << (r + 1)
        ranks[r] |= 1 << s
    need_suits = max(tables.min_naturals, 3 - gap)
    runs = [0, 0, 0, 0]  # without jokers: positions inside three in a row
    if gap == 0:
        for s in range(4):
            b = pos[s]
            t = b & b >> 1 & b >> 2
            runs[s] = t | t << 1 | t << 2
    width = gap + 1
    window = (1 << (2 * width + 1)) - 1

    # Which cards may stand in some meld; link those that may stand in one together.
    parent = list(range(52))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    meldable = [False] * 52
    last_code = -1
    for code in codes:
        if code == last_code:
            continue
        last_code = code
        s, r = divmod(code, 13)
        if ranks[r].bit_count() >= need_suits:
            meldable[code] = True
            continue
        self_bits = (1 << 1 | 1 << 14) if r == 0 else 1 << (r + 1)
        if gap == 0:
            if runs[s] & self_bits:
                meldable[code] = True
        else:
            near = (
                (window << 1 >> width) | (window << 14 >> width)
                if r == 0
                else (window << (r + 1) >> width)
            )
            if pos[s] & near & ~self_bits:
                meldable[code] = True
    if not any(meldable):
        return prep

    for r in range(13):
        suits = ranks[r]
        if suits.bit_count() >= need_suits:
            first = -1
            for s in range(4):
                if suits >> s & 1:
                    code = s * 13 + r
                    if first < 0:
                        first = code
                    else:
                        parent[find(code)] = find(first)
    for s in range(4):
        previous = -100
        previous_code = -1
        for position in range(1, 15):
            code = s * 13 + (0 if position == 14 else position - 1)
            if pos[s] >> position & 1 and meldable[code]:
                if position - previous <= width:
                    a, b = find(code), find(previous_code)
                    if a != b:
                        parent[a] = b
                previous = position
                previous_code = code

    sets: dict[int, int] = {}
    bound = 0
    counts: dict[int, int] = {}
    for code in codes:
        if meldable[code]:
            n = counts.get(code, 0) + 1
            if n > _MAX_COPIES:
                raise ValueError(f"more than {_MAX_COPIES} copies of {_CARDS[code]}")
            counts[code] = n
            root = find(code)
            sets[root] = sets.get(root, 0) + ONE[code]
            bound += GROUP_VALUE[code % 13]
    prep.components = [sets[root] for root in sorted(sets)]
    prep.bound = bound + 11 * jokers
    return prep


def _chain_descs(chains: Sequence[_Chain]) -> list[Desc]:
    descs: list[Desc] = []
    for chain in chains:
        while chain is not None:
            descs.append(chain[0])
            chain = chain[1]
    return descs


def _build(prep: _Prepared, descs: list[Desc]) -> Arrangement:
    """The arrangement with these melds; every other card is left."""
    melds: list[tuple[int, Meld]] = []
    used = [0] * 53
    cards = _CARDS
    for kind, a, b, c, d in descs:
        if kind == 0:
            naturals = [cards[s * 13 + a] for s in range(4) if b >> s & 1]
            jokers = c - len(naturals)
            for card in naturals:
                used[card.code] += 1
            used[52] += jokers
            meld = Meld(MeldKind.GROUP, (*naturals, *[JOKER] * jokers), a + 1)
            melds.append((naturals[0].code, meld))
        else:
            row: list[Card] = []
            low = 99
            for position in range(b, c + 1):
                if d >> position & 1:
                    code = a * 13 + (0 if position == 14 else position - 1)
                    used[code] += 1
                    low = min(low, code)
                    row.append(cards[code])
                else:
                    used[52] += 1
                    row.append(JOKER)
            melds.append((low, Meld(MeldKind.SEQUENCE, tuple(row), b, _SUITS[a])))
    melds.sort(key=lambda item: (item[0], item[1].kind is MeldKind.SEQUENCE))
    left: list[Card] = []
    pen = prep.tables.pen
    penalty = 0
    for code in prep.codes:
        if used[code]:
            used[code] -= 1
        else:
            left.append(cards[code])
            penalty += pen[code]
    spare = prep.jokers - used[52]
    left.extend([JOKER] * spare)
    penalty += spare * prep.tables.joker_penalty
    return Arrangement(
        tuple(meld for _, meld in melds), tuple(left), penalty, sum(meld.value for _, meld in melds)
    )


class _Search:
    """The memoised searches over the components of one hand."""

    __slots__ = (
        "best_memo",
        "big_memo",
        "front_memo",
        "pen",
        "jpk",
        "jp",
        "min_nat",
        "max_jokers",
        "shift",
        "opening",
    )

    def __init__(self, prep: _Prepared) -> None:
        tables = prep.tables
        self.best_memo: dict[int, _Node] = {}
        self.big_memo: dict[int, _Node | None] = {}
        self.front_memo: dict[int, list[_Point]] = {}
        self.pen = tables.pen
        self.jp = tables.joker_penalty
        self.jpk = tables.joker_penalty * _SCALE
        self.min_nat = tables.min_naturals
        self.max_jokers = tables.max_jokers
        self.shift = max(prep.jokers.bit_length(), 1)
        self.opening = tables.opening

    def best(self, m: int, j: int) -> _Node:
        """Least score of the card set ``m`` with ``j`` jokers (spare jokers count)."""
        if not m:
            return (j * self.jpk, None)
        key = m << self.shift | j
        hit = self.best_memo.get(key)
        if hit is not None:
            return hit
        low = m & -m
        c = (low.bit_length() - 1) // 3
        sub = self.best(m - ONE[c], j)
        score = sub[0] + self.pen[c] * _SCALE
        result: _Node = (score, sub[1])
        kmax = j if j < self.max_jokers else self.max_jokers
        for rest, k, value, desc in meld_options(m, c, kmax, self.min_nat):
            sub = self.best(rest, j - k)
            if sub[0] - value < score:
                score = sub[0] - value
                result = (score, (desc, sub[1]))
        self.best_memo[key] = result
        return result

    def best_big(self, m: int, j: int) -> _Node | None:
        """Like :meth:`best`, among arrangements with a meld worth the opening alone."""
        if not m:
            return None
        key = m << self.shift | j
        if key in self.big_memo:
            return self.big_memo[key]
        low = m & -m
        c = (low.bit_length() - 1) // 3
        result: _Node | None = None
        sub = self.best_big(m - ONE[c], j)
        if sub is not None:
            result = (sub[0] + self.pen[c] * _SCALE, sub[1])
        kmax = j if j < self.max_jokers else self.max_jokers
        for rest, k, value, desc in meld_options(m, c, kmax, self.min_nat):
            found = self.best(rest, j - k) if value >= self.opening else self.best_big(rest, j - k)
            if found is not None and (result is None or found[0] - value < result[0]):
                result = (found[0] - value, (desc, found[1]))
        self.big_memo[key] = result
        return result

    def front(self, m: int, j: int) -> list[_Point]:
        """The Pareto front of (penalty, points) of the card set ``m`` with ``j``
        jokers, points counted up to the opening (see :func:`_prune`)."""
        if not m:
            return [(j * self.jp, 0, None)]
        key = m << self.shift | j
        hit = self.front_memo.get(key)
        if hit is not None:
            return hit
        low = m & -m
        c = (low.bit_length() - 1) // 3
        cost = self.pen[c]
        points = [(p + cost, q, chain) for p, q, chain in self.front(m - ONE[c], j)]
        kmax = j if j < self.max_jokers else self.max_jokers
        for rest, k, value, desc in meld_options(m, c, kmax, self.min_nat):
            points.extend((p, q + value, (desc, chain)) for p, q, chain in self.front(rest, j - k))
        result = _prune(points, self.opening)
        self.front_memo[key] = result
        return result


def _prune(points: list[_Point], target: int) -> list[_Point]:
    """Drop every point another makes useless for reaching ``target`` points with
    least penalty, then most points: ``a`` beats ``b`` if it has less penalty and
    at least as many points (counted up to ``target``), or the same penalty and
    at least as many points. Sorted by penalty; capped points strictly rise."""
    points.sort(key=lambda point: (point[0], -point[1]))
    kept: list[_Point] = []
    reached = -1
    for point in points:
        capped = point[1] if point[1] < target else target
        if capped > reached:
            kept.append(point)
            reached = capped
    return kept


def _solve_prepared(prep: _Prepared, search: _Search | None) -> Arrangement:
    comps = prep.components
    if not comps:
        return _build(prep, [])
    if search is None:
        search = _Search(prep)
    jokers = prep.jokers
    if jokers == 0 or len(comps) == 1:
        return _build(prep, _chain_descs([search.best(m, jokers)[1] for m in comps]))
    jpk = search.jpk
    # dp[j]: best (score, chains) of the components so far with at most j jokers,
    # counting only the naturals (and minus the jokers given to them).
    dp: list[tuple[int, tuple[_Chain, ...]]] = [(0, ())] * (jokers + 1)
    for m in comps:
        own = [search.best(m, jc) for jc in range(jokers + 1)]
        new: list[tuple[int, tuple[_Chain, ...]]] = []
        for total in range(jokers + 1):
            best: tuple[int, tuple[_Chain, ...]] | None = None
            for jc in range(total + 1):
                score = dp[total - jc][0] + own[jc][0] - jc * jpk
                if best is None or score < best[0]:
                    best = (score, (*dp[total - jc][1], own[jc][1]))
            assert best is not None
            new.append(best)
        dp = new
    return _build(prep, _chain_descs(dp[jokers][1]))


def solve(hand: Sequence[Card], rules: Rules) -> Arrangement:
    """The arrangement of ``hand`` into disjoint valid melds that leaves the least
    penalty in hand; among those, the one whose melds are worth the most points.

    Jokers go into melds wherever that lowers the penalty (or, at equal penalty,
    raises the points), each placed where it is worth most. Any multiset of cards
    is accepted (a real hand holds at most two of a card; more than seven copies
    of one card raise :class:`ValueError`).
    """
    prep = _prepare(hand, rules)
    return _solve_prepared(prep, None)


def solve_opening(hand: Sequence[Card], rules: Rules) -> Arrangement | None:
    """The best arrangement of ``hand`` that could open: its melds are worth at
    least ``rules.opening_points`` together (with ``rules.opening_single_meld``:
    one of them is, on its own). Least penalty first, then most points; ``None``
    if no arrangement of the hand can open.
    """
    prep = _prepare(hand, rules)
    if not prep.components:
        return None
    search = _Search(prep)
    tables = prep.tables
    target = tables.opening
    if prep.bound < target:
        return None
    best = _solve_prepared(prep, search)
    if tables.single_meld:
        if any(meld.value >= target for meld in best.melds):
            return best
        return _opening_single(prep, search)
    if best.points >= target:
        return best
    return _opening_total(prep, search)


def _opening_single(prep: _Prepared, search: _Search) -> Arrangement | None:
    jokers = prep.jokers
    jpk = search.jpk
    # plain[j] / big[j]: best with at most j jokers, without / with the big meld.
    plain: list[_Entry] = [(0, ())] * (jokers + 1)
    big: list[_Entry] = [None] * (jokers + 1)
    for m in prep.components:
        own = [search.best(m, jc) for jc in range(jokers + 1)]
        own_big = [search.best_big(m, jc) for jc in range(jokers + 1)]
        new_plain: list[_Entry] = []
        new_big: list[_Entry] = []
        for total in range(jokers + 1):
            best_plain: _Entry = None
            best_big: _Entry = None
            for jc in range(total + 1):
                before = plain[total - jc]
                assert before is not None
                score = before[0] + own[jc][0] - jc * jpk
                if best_plain is None or score < best_plain[0]:
                    best_plain = (score, (*before[1], own[jc][1]))
                node = own_big[jc]
                if node is not None:
                    score = before[0] + node[0] - jc * jpk
                    if best_big is None or score < best_big[0]:
                        best_big = (score, (*before[1], node[1]))
                had = big[total - jc]
                if had is not None:
                    score = had[0] + own[jc][0] - jc * jpk
                    if best_big is None or score < best_big[0]:
                        best_big = (score, (*had[1], own[jc][1]))
            new_plain.append(best_plain)
            new_big.append(best_big)
        plain, big = new_plain, new_big
    found = big[jokers]
    if found is None:
        return None
    return _build(prep, _chain_descs(found[1]))


def _opening_total(prep: _Prepared, search: _Search) -> Arrangement | None:
    jokers = prep.jokers
    target = search.opening
    jp = search.jp
    # dp[j]: Pareto front of the components so far with at most j jokers.
    dp: list[_Combined] = [[(0, 0, ())] for _ in range(jokers + 1)]
    for m in prep.components:
        own = [search.front(m, jc) for jc in range(jokers + 1)]
        new: list[_Combined] = []
        for total in range(jokers + 1):
            points: _Combined = []
            for jc in range(total + 1):
                shift = jc * jp
                for p1, q1, chains in dp[total - jc]:
                    for p2, q2, chain in own[jc]:
                        points.append((p1 + p2 - shift, q1 + q2, (*chains, chain)))
            points.sort(key=lambda point: (point[0], -point[1]))
            kept: _Combined = []
            reached = -1
            for point in points:
                capped = point[1] if point[1] < target else target
                if capped > reached:
                    kept.append(point)
                    reached = capped
            new.append(kept)
        dp = new
    final = dp[jokers]
    if not final or final[-1][1] < target:
        return None
    return _build(prep, _chain_descs(final[-1][2]))
