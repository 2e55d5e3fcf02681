"""Card luck: what a dealt hand holds against what a fair shuffle gives on average.

Two figures per dealt hand, both public once the round's seed is revealed:

* **jokers**: how many jokers the hand holds. A hand is ``n`` cards drawn without
  replacement from the shoe of ``N = 110`` cards with ``K = 6`` jokers, so the
  count is hypergeometric: mean ``n K / N``, variance
  ``n (K/N) (1 - K/N) (N - n) / (N - 1)`` (13 cards: 0.709 and 0.597).
* **meld-ready**: whether the hand, as dealt, can lay an opening at once: disjoint
  valid melds worth together at least the rules' ``opening_points`` (or one meld
  that much with ``opening_single_meld``), found by the exact solver
  (:func:`romme.engine.solver.solve_opening`). The upturned card and the first
  draw do not count. It is a yes/no figure with probability ``p``: mean ``p``,
  variance ``p (1 - p)``. ``p`` has no closed form; :data:`MELD_READY_ODDS` holds
  it for the two presets' meld rules, measured by ``bench/card_luck_odds.py``
  over 200,000 hands each (its standard error, 0.0011, is far below the
  spread of any player's figures). A hand dealt under other meld rules (a table
  with changed ``opening_points``, say) counts for the jokers only.

Over many hands the expected figure is the sum of the per-hand means and its
spread (one standard deviation) the square root of the summed variances: a player
who received 1,204 jokers in 1,700 hands against ``1,205 +- 32`` had exactly
average luck. The hands of one deal are not independent (jokers in one hand are
missing from the others), which makes the platform's spread slightly smaller than
this sum says; for one player's hands, one per deal, the sum is exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from romme.engine.cards import JOKER, Card, shoe
from romme.engine.rules import Rules
from romme.engine.solver import solve_opening

__all__ = [
    "MELD_READY_ODDS",
    "HandLuck",
    "hand_luck",
    "joker_odds",
    "meld_key",
    "spread",
]

SHOE_SIZE = len(shoe())
SHOE_JOKERS = sum(1 for card in shoe() if card == JOKER)

MeldKey = tuple[int, int, bool, int, int | None]
"""The rules that decide whether a hand is meld-ready: hand size, opening points,
single-meld opening, natural cards per meld, jokers per meld."""

MELD_READY_ODDS: dict[MeldKey, float] = {
    (13, 30, False, 2, None): 0.6621,  # classic
    (13, 30, False, 2, 1): 0.6600,  # three-rounds
}
"""The share of hands that are meld-ready as dealt, per :func:`meld_key`."""


def meld_key(rules: Rules) -> MeldKey:
    """The meld rules of ``rules`` that :data:`MELD_READY_ODDS` is keyed by."""
    return (
        rules.hand_size,
        rules.opening_points,
        rules.opening_single_meld,
        rules.min_natural_cards,
        rules.max_jokers_per_meld,
    )


def joker_odds(hand_size: int) -> tuple[float, float]:
    """Mean and variance of the jokers in a hand of ``hand_size`` cards."""
    share = SHOE_JOKERS / SHOE_SIZE
    mean = hand_size * share
    variance = hand_size * share * (1 - share) * (SHOE_SIZE - hand_size) / (SHOE_SIZE - 1)
    return mean, variance


@dataclass(frozen=True, slots=True)
class HandLuck:
    """One dealt hand's figures and what a fair shuffle gives on average.
    ``meld_ready`` and its odds are ``None`` when the rules are not tabled."""

    jokers: int
    jokers_mean: float
    jokers_variance: float
    meld_ready: bool | None
    meld_ready_mean: float | None
    meld_ready_variance: float | None


def hand_luck(hand: tuple[Card, ...] | list[Card], rules: Rules) -> HandLuck:
    """The card-luck figures of one hand as dealt under ``rules``."""
    mean, variance = joker_odds(len(hand))
    jokers = sum(1 for card in hand if card == JOKER)
    odds = MELD_READY_ODDS.get(meld_key(rules)) if len(hand) == rules.hand_size else None
    if odds is None:
        return HandLuck(jokers, mean, variance, None, None, None)
    ready = solve_opening(hand, rules) is not None
    return HandLuck(jokers, mean, variance, ready, odds, odds * (1 - odds))


def spread(variance: float) -> float:
    """One standard deviation of a sum whose variances add up to ``variance``."""
    return math.sqrt(max(variance, 0.0))
