"""Playing a sampled round to its end, fast: the expert's playouts.

A playout runs on a sampled :class:`~romme.engine.game.Game` (see
:mod:`romme.bots.sampler`), so every seat plays its own sampled hand and nobody
looks at anything else. The playout policy is the strong level's judgement cut
down to what is cheap: take the top card when it melds or fits the table after
opening, open as soon as possible, lay and lay off everything (a joker when
that lets the seat go out), and throw the loose card with the fewest live
partners (the highest penalty among equals), never a joker and never a card the
next player can lay off when another will do; on classic tables a loose natural
card that replaces a joker on the table takes it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from romme.bots.evaluate import (
    Style,
    arrangement,
    expected_draws,
    hand_score,
    opening,
    partners_outs,
)
from romme.bots.playbook import (
    holding_plan,
    keeps_melds_back,
    lay_offs_worth_making,
    least_opening,
)
from romme.engine.actions import Action, Discard, Draw, ExchangeJoker, Lay, LayOff
from romme.engine.cards import JOKER, Card, shoe_counter
from romme.engine.discards import discard_refusal
from romme.engine.errors import IllegalAction, InvalidMeld
from romme.engine.game import Game, Phase
from romme.engine.melds import Meld
from romme.engine.scoring import card_penalty

__all__ = ["judge", "playout", "utility"]

LEAF_SHARPNESS = 1.0
"""How much one loose card (as :func:`~romme.bots.evaluate.hand_score` counts it)
changes the odds of going out first, on a log scale."""


def _trimmed(game: Game, seat: int, melds: Sequence[Meld]) -> tuple[tuple[Card, ...], ...]:
    laid = [m.cards for m in melds]
    if game.rules.must_discard_to_go_out and sum(map(len, laid)) >= len(game.hands[seat]):
        for i, meld in enumerate(melds):
            if len(meld.cards) >= 4:
                for rest in (meld.cards[1:], meld.cards[:-1]):
                    try:
                        Meld.parse(rest, game.rules)
                    except InvalidMeld:
                        continue
                    laid[i] = rest
                    return tuple(laid)
        laid.pop(min(range(len(melds)), key=lambda i: melds[i].value))
    return tuple(laid)


def _fits(game: Game, card: Card) -> int | None:
    rules = game.rules
    for index, meld in enumerate(game.melds):
        if meld.lay_off_ends(card, rules):
            return index
    return None


def _play(game: Game, seat: int, seen: Counter[Card], hold: bool = False) -> Action:
    rules = game.rules
    hand = game.hands[seat]
    arr = arrangement(hand, rules)
    # A holder's plan depends on how many opponents are still in the round.
    others: list[int] = []
    own_plan = None
    if hold:
        others = [len(game.hands[s]) for s in range(game.seats) if s != seat and game.active[s]]
        own_plan = holding_plan(len(others), rules.single_round())
    if not game.opened[seat]:
        op = opening(hand, rules)
        if (
            own_plan is not None
            and op is not None
            and keeps_melds_back(rules, game.melds, arr.left, others, own_plan)
        ):
            op = None
        if op is not None:
            least = own_plan is not None and own_plan.opens_with_least(
                rules, game.melds, arr.left, others
            )
            laid = _trimmed(game, seat, least_opening(op.melds, rules) if least else op.melds)
            if laid and sum(Meld.check(m, rules).value for m in laid) >= rules.opening_points:
                return Lay(seat, laid)
    else:
        # Classic: a loose natural card that replaces a joker on the table
        # brings the joker home.
        if rules.joker_exchange_to_hand:
            for card in arr.left:
                if card.is_joker:
                    continue
                for index, meld in enumerate(game.melds):
                    if meld.jokers:
                        positions = meld.exchange_positions(card)
                        if positions:
                            return ExchangeJoker(seat, card, index, positions[0])
        keep = own_plan is not None and own_plan.keeps_new_melds(
            rules, game.melds, arr.left, others
        )
        if arr.melds and not keep:
            laid = _trimmed(game, seat, arr.melds)
            if laid:
                return Lay(seat, laid)
    if game.opened[seat] and not (rules.must_discard_to_go_out and len(hand) <= 1):
        # Every natural card that fits; a joker only to go out (as the levels do).
        plan = lay_offs_worth_making(
            rules, game.melds, arr.left, hand.count(JOKER) - game.turn.pending_jokers
        )
        if plan:
            card, target, end = plan[0]
            return LayOff(seat, card, target, end)
    # The discard.
    options = [card for card in set(hand) if _may_discard(game, seat, card)]
    loose = [c for c in arr.left if c in options and not c.is_joker]
    if not loose:
        naturals = [c for c in options if not c.is_joker] or options
        card = min(
            naturals,
            key=lambda c: (
                arrangement([*_without(hand, c)], rules).penalty,
                -card_penalty(c, rules),
                c.code,
            ),
        )
        return Discard(seat, card)
    nxt = game.next_active(seat)
    opened_next = game.opened[nxt]
    unseen = seen
    jokers = unseen[JOKER]

    def badness(c: Card) -> tuple[float, int]:
        pair, single = partners_outs(c, loose, unseen, jokers)
        value = pair + 0.25 * single - 0.02 * card_penalty(c, rules)
        if opened_next and _fits(game, c) is not None:
            value += 4.0
        return (value, c.code)

    return Discard(seat, min(loose, key=badness))


def _without(cards: list[Card], card: Card) -> list[Card]:
    rest = list(cards)
    rest.remove(card)
    return rest


def _draw(game: Game, seat: int) -> Draw:
    top = game.discard[-1] if game.discard else None
    if top is not None:
        hand = game.hands[seat]
        if top.is_joker and any(not c.is_joker for c in hand):
            return Draw(seat, "discard")
        with_top = [*hand, top]
        arr = arrangement(with_top, game.rules)
        if arr.left.count(top) < with_top.count(top):
            return Draw(seat, "discard")
        if game.opened[seat] and _fits(game, top) is not None:
            return Draw(seat, "discard")
    return Draw(seat, "stock")


def playout(
    game: Game,
    max_actions: int = 600,
    holders: frozenset[int] = frozenset(),
    turns: int | None = None,
) -> None:
    """Play the current round of ``game`` to its end with the playout policy
    (nobody knocks). Seats in ``holders`` keep their melds in hand as the
    expert does (:func:`~romme.bots.playbook.keeps_melds_back`). With
    ``turns``, stop early once that many more turns per active seat have begun
    (the round may still be running: see :func:`judge`). ``game`` is changed in
    place."""
    draws_left = None if turns is None else turns * sum(1 for a in game.active if a)
    # Cards everyone has seen leave the pool of partners; the rest is what a seat
    # may still hope for (a shared approximation: cheap and good enough here).
    seen = shoe_counter()
    for meld in game.melds:
        seen.subtract(meld.cards)
    seen.subtract(game.discard)
    steps = 0
    while game.phase is Phase.DRAW or game.phase is Phase.PLAY:
        steps += 1
        if steps > max_actions:
            break
        seat = game.current
        if game.phase is Phase.DRAW:
            if draws_left is not None:
                if draws_left <= 0:
                    break
                draws_left -= 1
            action: Action = _draw(game, seat)
        else:
            action = _play(game, seat, seen, seat in holders)
        try:
            game.apply(action)
        except (IllegalAction, InvalidMeld):
            game.apply(Discard(seat, _any_discard(game, seat)))
            continue
        if isinstance(action, Discard):
            seen[action.card] -= 1
        elif isinstance(action, Lay):
            for cards in action.melds:
                seen.subtract(cards)
        elif isinstance(action, LayOff):
            seen[action.card] -= 1


def _may_discard(game: Game, seat: int, card: Card) -> bool:
    """The engine's own discard rule (one rule for the game, the views and the
    playouts, so that a playout never meets a turn without a discard)."""
    return (
        discard_refusal(
            game.hands[seat],
            card,
            drew_from_discard=game.turn.drew_from_discard,
            pending_jokers=game.turn.pending_jokers,
            rules=game.rules,
        )
        is None
    )


def _any_discard(game: Game, seat: int) -> Card:
    hand = game.hands[seat]
    for card in sorted(hand, key=lambda c: (c.is_joker, -card_penalty(c, game.rules))):
        if _may_discard(game, seat, card):
            return card
    return hand[0]


def utility(game: Game, seat: int, single_round: bool) -> float:
    """How good the finished round was for ``seat``: going out counts most; how
    close each seat came (loose cards left in its solved hand) and the penalty
    difference decide the rest, so that near misses tell candidates apart."""
    if not game.results or game.phase in (Phase.DRAW, Phase.PLAY):
        hands = game.hands
        winner = None
        penalties = [0] * game.seats
    else:
        result = game.results[-1]
        hands = [list(h) for h in result.hands]
        winner = result.winner
        penalties = list(result.penalties)
    rules = game.rules
    others = [s for s in range(game.seats) if s != seat and hands[s]]
    own_loose = len(arrangement(hands[seat], rules).left) if hands[seat] else 0
    other_loose = (
        sum(len(arrangement(hands[s], rules).left) for s in others) / len(others) if others else 0.0
    )
    closeness = 0.08 * (other_loose - own_loose)
    if winner is None:
        return closeness
    own = penalties[seat]
    mean_other = sum(penalties[s] for s in others) / len(others) if others else 0.0
    won = 1.0 if winner == seat else 0.0
    if single_round:
        return won + closeness + (mean_other - own) / 1000.0
    return 0.5 * won + closeness + (mean_other - own) / 60.0


def judge(game: Game, seat: int, single_round: bool, sharpness: float = LEAF_SHARPNESS) -> float:
    """:func:`utility` for a playout that may have stopped before the round
    ended: a finished round scores as there; a running one by each hand's
    worth (:func:`~romme.bots.evaluate.hand_score`, from the cards that hand
    has not seen), turned into each seat's chance of going out first, so that a
    seat one card from going out counts almost as one that went out."""
    if game.phase is not Phase.DRAW and game.phase is not Phase.PLAY:
        return utility(game, seat, single_round)
    rules = game.rules
    seats = [s for s in range(game.seats) if game.active[s] and game.hands[s]]
    if seat not in seats:
        return utility(game, seat, single_round)
    public = shoe_counter()
    for meld in game.melds:
        public.subtract(meld.cards)
    public.subtract(game.discard)
    nearest = min(len(game.hands[s]) for s in seats)
    draws = expected_draws(len(game.stock), len(seats), nearest)
    style = Style(draws_left=draws, penalty_weight=0.004 if single_round else 0.01)
    worth: dict[int, float] = {}
    for s in seats:
        unseen = public.copy()
        unseen.subtract(game.hands[s])
        worth[s] = hand_score(game.hands[s], rules, unseen, game.melds, game.opened[s], style)
    top = max(worth.values())
    odds = {s: math.exp(sharpness * (w - top)) for s, w in worth.items()}
    chance = odds[seat] / sum(odds.values())
    closeness = utility(game, seat, single_round)
    return (chance if single_round else 0.5 * chance) + closeness
