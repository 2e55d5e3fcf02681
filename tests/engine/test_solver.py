"""The exact hand solver: named examples and a brute-force comparison.

The brute force below shares no code with the solver: it lists the sub-multisets
of the hand (those whose natural cards share a suit or a rank, or every one of
them), keeps those that some ordering makes a valid ``Meld.parse`` meld (valued by
its best ordering), and enumerates every way of laying the hand out in such melds.
Every arrangement the solver returns is also checked card by card.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from romme.engine.cards import JOKER, Card, Suit, parse_cards, shoe
from romme.engine.errors import InvalidMeld
from romme.engine.melds import Meld, MeldKind
from romme.engine.rules import Rules
from romme.engine.scoring import card_penalty, hand_penalty
from romme.engine.solver import Arrangement, solve, solve_opening

CLASSIC = Rules.classic()
THREE = Rules.three_rounds()
BOTH = pytest.mark.parametrize("rules", [CLASSIC, THREE], ids=["classic", "three-rounds"])


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def melds_of(arrangement: Arrangement) -> list[str]:
    return sorted(str(meld) for meld in arrangement.melds)


def assert_well_formed(arrangement: Arrangement, hand: Sequence[Card], rules: Rules) -> None:
    """Every meld is valid as given, melds and left are exactly the hand, and the
    penalty and points are what the cards say."""
    seen: Counter[Card] = Counter(arrangement.left)
    for meld in arrangement.melds:
        assert Meld.parse(meld.cards, rules) == meld
        seen.update(meld.cards)
    assert seen == Counter(hand)
    assert arrangement.penalty == hand_penalty(arrangement.left, rules)
    assert arrangement.points == sum(meld.value for meld in arrangement.melds)


# ------------------------------------------------------------- brute force


def _orderings(meld_cards: Sequence[Card]) -> Iterator[tuple[Card, ...]]:
    """Orderings of the cards that cover every way they could form a meld, with
    the jokers at every combination of places: up to three naturals in every
    order; more naturals can only be a sequence (in rank order, the ace low or
    high) or a group of four naturals (in any order)."""
    naturals = [c for c in meld_cards if not c.is_joker]
    jokers = len(meld_cards) - len(naturals)
    if len(naturals) <= 3:
        orders = set(itertools.permutations(naturals))
    else:
        low = sorted(naturals, key=lambda c: c.rank)
        high = sorted(naturals, key=lambda c: 14 if c.rank == 1 else c.rank)
        orders = {tuple(low), tuple(high)}
    size = len(meld_cards)
    for order in sorted(orders):
        for places in itertools.combinations(range(size), jokers):
            rest = iter(order)
            yield tuple(JOKER if i in places else next(rest) for i in range(size))


@cache
def _best_meld_value(codes: tuple[int, ...], rules: Rules) -> int | None:
    """The highest value of a valid meld of exactly these cards, or None."""
    best: int | None = None
    for order in _orderings([Card.from_code(code) for code in codes]):
        try:
            meld = Meld.parse(order, rules)
        except InvalidMeld:
            continue
        if best is None or meld.value > best:
            best = meld.value
    return best


Outcome = tuple[int, int, int]
"""(penalty left, points laid, value of the best single meld)."""


def brute_outcomes(
    hand: Sequence[Card], rules: Rules, *, every_subset: bool = False
) -> set[Outcome]:
    """Every (penalty, points, best meld) some arrangement of the hand reaches.

    Candidate melds are the sub-multisets of the hand whose natural cards share a
    suit or a rank and hold no card twice (facts of the rules that
    :meth:`Meld.parse` enforces anyway); ``every_subset`` tries every
    sub-multiset instead, which also checks that shortcut on small hands.
    """
    kinds = sorted(set(hand))
    counts = tuple(sum(1 for c in hand if c == kind) for kind in kinds)
    joker_index = kinds.index(JOKER) if JOKER in kinds else None

    choices: set[tuple[int, ...]] = set()
    if every_subset:
        choices = set(itertools.product(*(range(n + 1) for n in counts)))
    else:
        classes: dict[object, list[int]] = {}
        for i, kind in enumerate(kinds):
            if not kind.is_joker:
                classes.setdefault(("suit", kind.suit), []).append(i)
                classes.setdefault(("rank", kind.rank), []).append(i)
        for members in classes.values():
            ranges = [range(min(counts[i], 1) + 1) for i in members]
            if joker_index is not None:
                members = [*members, joker_index]
                ranges.append(range(counts[joker_index] + 1))
            for part in itertools.product(*ranges):
                vector = [0] * len(kinds)
                for i, n in zip(members, part, strict=True):
                    vector[i] = n
                choices.add(tuple(vector))

    # Candidate melds, filed under the first card kind they hold.
    melds: dict[int, list[tuple[tuple[int, ...], int]]] = {}
    for choice in sorted(choices):
        if sum(choice) < 3:
            continue
        codes = tuple(kinds[i].code for i, n in enumerate(choice) for _ in range(n))
        value = _best_meld_value(codes, rules)
        if value is not None:
            first = next(i for i, n in enumerate(choice) if n)
            melds.setdefault(first, []).append((choice, value))

    penalties = [card_penalty(kind, rules) for kind in kinds]

    @cache
    def outcomes(state: tuple[int, ...]) -> frozenset[Outcome]:
        first = next((i for i, n in enumerate(state) if n), None)
        if first is None:
            return frozenset({(0, 0, 0)})
        found: set[Outcome] = set()
        fewer = list(state)
        fewer[first] -= 1
        for penalty, points, biggest in outcomes(tuple(fewer)):
            found.add((penalty + penalties[first], points, biggest))
        for choice, value in melds.get(first, ()):
            rest = tuple(s - c for s, c in zip(state, choice, strict=True))
            if min(rest) >= 0:
                for penalty, points, biggest in outcomes(rest):
                    found.add((penalty, points + value, max(biggest, value)))
        return frozenset(found)

    return set(outcomes(counts))


def check_against_brute_force(
    hand: Sequence[Card], rules: Rules, *, every_subset: bool = False
) -> None:
    """solve and solve_opening agree with the brute force and are well formed."""
    every = brute_outcomes(hand, rules, every_subset=every_subset)
    best = min(every, key=lambda o: (o[0], -o[1]))
    arrangement = solve(hand, rules)
    assert_well_formed(arrangement, hand, rules)
    assert (arrangement.penalty, arrangement.points) == best[:2], (
        f"{' '.join(map(str, hand))}: solver {arrangement.to_json()}, brute force {best}"
    )

    target = max(rules.opening_points, 1)
    if rules.opening_single_meld:
        openers = [o for o in every if o[2] >= target]
    else:
        openers = [o for o in every if o[1] >= target]
    opening = solve_opening(hand, rules)
    if not openers:
        assert opening is None, f"{' '.join(map(str, hand))}: {opening}"
        return
    best_opening = min(openers, key=lambda o: (o[0], -o[1]))
    assert opening is not None, f"{' '.join(map(str, hand))} can open: {best_opening}"
    assert_well_formed(opening, hand, rules)
    assert (opening.penalty, opening.points) == best_opening[:2], (
        f"{' '.join(map(str, hand))}: solver {opening.to_json()}, brute force {best_opening}"
    )
    if rules.opening_single_meld:
        assert max(meld.value for meld in opening.melds) >= target
    else:
        assert opening.points >= target


def test_brute_force_knows_the_rules() -> None:
    """The reference itself: values from Meld.parse, K-A-2 and doubles refused."""
    assert _best_meld_value(tuple(c.code for c in cards("QH KH XX")), CLASSIC) == 31
    assert _best_meld_value(tuple(c.code for c in cards("2H 3H XX")), CLASSIC) == 9
    assert _best_meld_value(tuple(c.code for c in cards("KH AH 2H")), CLASSIC) is None
    assert _best_meld_value(tuple(c.code for c in cards("TD TD TC")), CLASSIC) is None
    assert brute_outcomes(cards("7C 7D 7H"), CLASSIC) == {(21, 0, 0), (0, 21, 21)}
    hand = cards("7C 7D 7H 8H 9H 7H XX")
    assert brute_outcomes(hand, CLASSIC) == brute_outcomes(hand, CLASSIC, every_subset=True)
    # A greedy "longest run first" would lay 5H..9H and keep 5S 5D (penalty 10).
    hand = cards("5H 6H 7H 8H 9H 5S 5D")
    assert min(brute_outcomes(hand, CLASSIC))[0] == 0


# ------------------------------------------------------------ named examples


@BOTH
def test_three_sevens_are_a_meld_but_cannot_open(rules: Rules) -> None:
    best = solve(cards("7C 7D 7H"), rules)
    assert melds_of(best) == ["7C 7D 7H"]
    assert (best.penalty, best.points, best.left) == (0, 21, ())
    assert solve_opening(cards("7C 7D 7H"), rules) is None


@BOTH
def test_joker_after_queen_king_is_the_high_ace(rules: Rules) -> None:
    best = solve(cards("XX KH QH"), rules)
    assert [str(meld) for meld in best.melds] == ["QH KH XX"]
    assert best.points == 31
    assert best.melds[0].stands_for(2) == "AH"
    opening = solve_opening(cards("QH KH XX"), rules)
    assert opening is not None and opening.points == 31


@BOTH
def test_jokers_take_the_most_valuable_places(rules: Rules) -> None:
    assert solve(cards("2H 3H XX"), rules).points == 9  # 2 3 4, not A 2 3
    assert solve(cards("AH 2H XX"), rules).points == 6  # A 2 3
    best = solve(cards("9S 9H XX"), rules)
    assert best.melds[0].kind is MeldKind.GROUP and best.points == 27


@BOTH
def test_the_same_card_twice_is_no_group(rules: Rules) -> None:
    best = solve(cards("TD TC TD"), rules)
    assert best.melds == () and best.penalty == 30
    best = solve(cards("TD TC TD XX"), rules)
    assert melds_of(best) == ["TC TD XX"]
    assert [str(c) for c in best.left] == ["TD"] and best.penalty == 10


@BOTH
def test_duplicate_cards_make_two_melds(rules: Rules) -> None:
    hand = cards("7H 8H 9H 9H 8H 7H")
    best = solve(hand, rules)
    assert melds_of(best) == ["7H 8H 9H", "7H 8H 9H"]
    assert (best.penalty, best.points) == (0, 48)
    # Both runs (48 points) would leave 9S 9C (18); a run and 9C 9H 9S leave 7H 8H.
    best = solve(cards("7H 8H 9H 9H 8H 7H 9S 9C"), rules)
    assert melds_of(best) == ["7H 8H 9H", "9C 9H 9S"]
    assert (best.penalty, best.points) == (15, 51)


@BOTH
def test_duplicates_prefer_the_meld_that_leaves_less(rules: Rules) -> None:
    hand = cards("7H 8H 9H 7H 8H 9S 9C")
    best = solve(hand, rules)
    # 7H 8H 9H leaves 7H 8H 9S 9C (33); 9C 9H 9S leaves 7H 7H 8H 8H (30).
    assert melds_of(best) == ["9C 9H 9S"]
    assert best.penalty == 30
    assert_well_formed(best, hand, rules)


@BOTH
def test_king_ace_two_never_appears(rules: Rules) -> None:
    best = solve(cards("KH AH 2H"), rules)
    assert best.melds == () and best.penalty == 10 + 15 + 2
    best = solve(cards("KH AH 2H XX"), rules)
    assert melds_of(best) == ["XX KH AH"]
    assert (best.penalty, best.points) == (2, 31)
    best = solve(cards("KH AH 2H 3H QH"), rules)
    assert melds_of(best) == ["QH KH AH"] and best.penalty == 5


@BOTH
def test_spare_jokers_cost_their_penalty(rules: Rules) -> None:
    best = solve(cards("XX 5C 9D"), rules)
    assert best.melds == ()
    assert best.penalty == rules.joker_penalty + 5 + 9
    assert [str(c) for c in best.left] == ["5C", "9D", "XX"]


def test_classic_absorbs_every_joker_it_can() -> None:
    best = solve(cards("7H 8H XX XX XX"), CLASSIC)
    assert [str(meld) for meld in best.melds] == ["7H 8H XX XX XX"]
    assert (best.penalty, best.points) == (0, 7 + 8 + 9 + 10 + 10)
    best = solve(cards("JH QH KH XX XX"), CLASSIC)  # high end first, then low
    assert [str(meld) for meld in best.melds] == ["XX JH QH KH XX"]
    assert best.points == 10 + 10 + 10 + 10 + 11
    best = solve(cards("7C 7D XX XX XX"), CLASSIC)  # a group holds at most 4
    assert melds_of(best) == ["7C 7D XX XX"] and best.penalty == 30


def test_three_rounds_allows_one_joker_per_meld() -> None:
    best = solve(cards("7H 8H XX XX XX"), THREE)
    assert [str(meld) for meld in best.melds] == ["7H 8H XX"]
    assert (best.penalty, best.points) == (40, 24)
    best = solve(cards("5H 7H 9H XX XX"), THREE)
    # 5H XX 7H XX 9H is no longer a meld; 7H XX 9H leaves 5H XX (25), not 9H XX.
    assert [str(meld) for meld in best.melds] == ["7H XX 9H"]
    assert best.penalty == 25
    best = solve(cards("5H 7H 9H XX XX"), CLASSIC)
    assert [str(meld) for meld in best.melds] == ["5H XX 7H XX 9H"]
    assert all(meld.jokers <= 1 for meld in solve(cards("AS AH 2S 3S XX XX"), THREE).melds)


def test_ace_as_a_group_and_in_sequences() -> None:
    best = solve(cards("AS AH AC 2S 3S"), CLASSIC)
    # AS 2S 3S leaves AH AC (30); AC AH AS leaves 2S 3S (5).
    assert melds_of(best) == ["AC AH AS"] and best.penalty == 5
    best = solve(cards("AS AH AC 2S 3S XX"), CLASSIC)
    # AC AH XX + AS 2S 3S is worth 39; AC AH AS + 2S 3S XX (2 3 4) is worth 42.
    assert melds_of(best) == ["2S 3S XX", "AC AH AS"]
    assert (best.penalty, best.points) == (0, 42)


def test_the_opening_may_need_a_worse_arrangement() -> None:
    hand = cards("AD 3D 4D TH TS XX")
    best = solve(hand, CLASSIC)
    assert melds_of(best) == ["AD XX 3D 4D"] and (best.penalty, best.points) == (20, 10)
    opening = solve_opening(hand, CLASSIC)
    assert opening is not None
    assert melds_of(opening) == ["TH TS XX"] and (opening.penalty, opening.points) == (22, 30)

    hand = cards("2C 2D 6H 7H 7S XX XX")
    best = solve(hand, CLASSIC)
    assert (best.penalty, best.points) == (6, 27)
    opening = solve_opening(hand, CLASSIC)
    assert opening is not None
    assert melds_of(opening) == ["6H 7H XX XX"] and (opening.penalty, opening.points) == (11, 30)


@BOTH
def test_the_opening_counts_melds_together(rules: Rules) -> None:
    hand = cards("7C 7D 7H 2S 3S 4S 9D")
    opening = solve_opening(hand, rules)
    assert opening is not None
    assert melds_of(opening) == ["2S 3S 4S", "7C 7D 7H"]
    assert (opening.points, opening.penalty) == (30, 9)
    assert solve_opening(cards("7C 7D 7H 2S 3S 9D"), rules) is None


@BOTH
def test_opening_single_meld(rules: Rules) -> None:
    single = rules.replace(opening_single_meld=True)
    assert solve_opening(cards("7C 7D 7H 2S 3S 4S"), single) is None
    opening = solve_opening(cards("7C 7D 7H TC TD TH 2S"), single)
    assert opening is not None and melds_of(opening) == ["7C 7D 7H", "TC TD TH"]
    assert opening.penalty == 2
    # The best arrangement uses 8S in a group; to open it must go to the run.
    hand = cards("8C 8D 8S 9S TS JS")
    assert melds_of(solve(hand, single)) == ["8C 8D 8S", "9S TS JS"]
    opening = solve_opening(hand, single)
    assert opening is not None and melds_of(opening) == ["8S 9S TS JS"]
    assert solve_opening(hand, rules) is not None


def test_opening_points_option() -> None:
    hand = cards("TC TD TH 2S 3S 4S")
    assert solve_opening(hand, CLASSIC) is not None
    assert solve_opening(hand, CLASSIC.replace(opening_points=40)) is None
    assert solve_opening(hand, CLASSIC.replace(opening_points=39)) is not None


def test_empty_and_joker_only_hands() -> None:
    empty = solve((), CLASSIC)
    assert (empty.melds, empty.left, empty.penalty, empty.points) == ((), (), 0, 0)
    jokers = solve(cards("XX XX XX"), THREE)
    assert jokers.melds == () and jokers.penalty == 60
    assert solve_opening(cards("XX XX XX"), CLASSIC) is None
    assert solve_opening((), CLASSIC) is None


def test_to_json() -> None:
    best = solve(cards("QH KH XX 4C"), CLASSIC)
    assert best.to_json() == {
        "melds": [["QH", "KH", "XX"]],
        "left": ["4C"],
        "penalty": 4,
        "points": 31,
    }


def test_hand_order_does_not_matter() -> None:
    rng = random.Random(7)
    deck = shoe()
    for _ in range(200):
        rng.shuffle(deck)
        hand = deck[:14]
        for rules in (CLASSIC, THREE):
            first = solve(hand, rules).to_json()
            shuffled = list(hand)
            rng.shuffle(shuffled)
            assert solve(shuffled, rules).to_json() == first


# -------------------------------------------------------------- exactness

# Small pools where melds, jokers, duplicates and aces meet often.
POOLS: dict[str, list[Card]] = {
    "two suits, ranks A-7": [
        Card.natural(r, s) for s in (Suit.HEARTS, Suit.SPADES) for r in range(1, 8)
    ]
    * 2
    + [JOKER] * 6,
    "four suits around the ace": [Card.natural(r, s) for s in Suit for r in (1, 2, 3, 4, 12, 13)]
    * 2
    + [JOKER] * 6,
    "three suits, ranks 5-9": [
        Card.natural(r, s) for s in (Suit.CLUBS, Suit.HEARTS, Suit.SPADES) for r in range(5, 10)
    ]
    * 2
    + [JOKER] * 4,
}
POOL_LIST = list(POOLS.values())


def small_hands(seed: int, count: int) -> Iterator[list[Card]]:
    rng = random.Random(seed)
    for _ in range(count):
        pool = rng.choice(POOL_LIST)
        yield rng.sample(pool, rng.randint(5, 9))


@BOTH
@pytest.mark.parametrize("chunk", range(6))
def test_exact_on_small_hands(rules: Rules, chunk: int) -> None:
    """3000 hands of 5 to 9 cards per preset, compared with the brute force."""
    for hand in small_hands(1000 + chunk, 500):
        check_against_brute_force(hand, rules)


@pytest.mark.parametrize(
    "rules",
    [
        CLASSIC.replace(opening_single_meld=True),
        THREE.replace(opening_single_meld=True, opening_points=25),
        CLASSIC.replace(min_natural_cards=3, opening_points=40),
        CLASSIC.replace(max_jokers_per_meld=2, joker_penalty=0),
        THREE.replace(ace_penalty=1, joker_penalty=5, opening_points=0),
    ],
    ids=["single-meld", "three-single-25", "three-naturals", "two-jokers-free", "cheap"],
)
def test_exact_with_other_options(rules: Rules) -> None:
    for hand in small_hands(77, 300):
        check_against_brute_force(hand, rules)


@pytest.mark.slow
@BOTH
def test_exact_on_dealt_hands(rules: Rules) -> None:
    """400 13- and 14-card hands per preset from the real shoe, one in three with
    two to four jokers."""
    rng = random.Random(2024)
    deck = shoe()
    for i in range(400):
        rng.shuffle(deck)
        hand = deck[: 13 + i % 2]
        if i % 3 == 0:  # one hand in three holds two to four jokers
            jokers = 2 + i // 3 % 3
            naturals = [c for c in deck if not c.is_joker]
            hand = naturals[: len(hand) - jokers] + [JOKER] * jokers
        check_against_brute_force(hand, rules)


card_strategy = st.sampled_from([*sorted(set(POOLS["four suits around the ace"])), JOKER, JOKER])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(card_strategy, min_size=0, max_size=8),
    st.sampled_from([CLASSIC, THREE, CLASSIC.replace(opening_single_meld=True)]),
)
def test_property_exact_for_any_multiset(hand: list[Card], rules: Rules) -> None:
    """Any multiset, even three copies of a card, is solved exactly (checked
    against every sub-multiset, not only those of one suit or rank)."""
    check_against_brute_force(hand, rules, every_subset=True)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(sorted(set(shoe()))), min_size=0, max_size=16),
    st.sampled_from([CLASSIC, THREE]),
)
def test_property_melding_never_costs_more(hand: list[Card], rules: Rules) -> None:
    """Well formed, never worse than laying nothing, and opening never beats solve."""
    best = solve(hand, rules)
    assert_well_formed(best, hand, rules)
    assert best.penalty <= hand_penalty(hand, rules)
    opening = solve_opening(hand, rules)
    if opening is not None:
        assert_well_formed(opening, hand, rules)
        assert (opening.penalty, -opening.points) >= (best.penalty, -best.points)
        assert opening.points >= rules.opening_points
