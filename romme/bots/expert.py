"""The expert level: the strong player that keeps its melds in hand until they pay.

Its plan (:func:`romme.bots.playbook.holding_plan`, :meth:`ExpertBot.plan`):
at a one-round table, where only going out counts, melds on the table give the
others lay-offs and jokers, so it opens only to go out, to bring a joker home
(heads-up), or when the table pays (several opponents); in a match over several
rounds a hand rummy doubles every opponent's penalty, so it holds back the same
way, and lays everything once an opponent is close to going out. Opening
without going out, it lays the least that opens and keeps the rest.

With ``search_close`` (off by default, for probes) it also searches where the
strong judgement sees several moves of nearly the same worth (which card to
throw, whether to take the top card, whether to open now or hold back, whether
to knock): it deals the cards it cannot see in many ways that agree with what
it knows (:mod:`romme.bots.sampler`), plays every candidate move in each of
those deals to the end of the round (:mod:`romme.bots.rollout`, its own seat
holding back by the same plan), and takes the move that did best on average.
Every candidate is tried on the same deals, so luck does not decide between
them. On every probe so far the search played no better than the plan alone
(docs/bots.md).

The search's budget is a number of playouts (``playouts``), so a decision does
not depend on the machine's speed; ``time_cap`` is a safety net (CPU seconds of
the deciding thread) that cuts only the rare longest searches, so that no
decision takes much more than a second. Decisions with a single sensible option
cost no search at all. With ``horizon``, a playout stops after that many more
turns per seat and the hands are judged where it stopped
(:func:`romme.bots.rollout.judge`): cheaper playouts, so more deals for the
same budget.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from romme.bots.base import Decision
from romme.bots.evaluate import arrangement, opening
from romme.bots.playbook import (
    HoldingPlan,
    holding_plan,
    keeps_melds_back,
    lay_melds,
    least_opening,
)
from romme.bots.rollout import judge, playout, utility
from romme.bots.sampler import sample_game
from romme.bots.strong import Context, StrongBot, rank_discards
from romme.engine.actions import Discard, Draw, Knock
from romme.engine.errors import IllegalAction, InvalidMeld
from romme.engine.melds import Meld
from romme.engine.solver import Arrangement
from romme.engine.view import SeatView

__all__ = ["DEFAULT_PLAYOUTS", "ExpertBot"]

DEFAULT_PLAYOUTS = 64
"""Playouts per searched decision, shared by its candidate moves."""
DEFAULT_TIME_CAP = 0.9
"""CPU seconds after which a search stops early, whatever its budget."""
CLOSE = 0.6
"""Discards whose strong value is within this of the best are searched."""
MAX_CANDIDATES = 3
CONFIDENCE = 1.0
"""How many standard errors better a candidate must do to overrule the first."""


def _mean_and_error(values: Sequence[float]) -> tuple[float, float]:
    n = len(values)
    if n < 2:
        return (0.0, float("inf"))
    mean = sum(values) / n
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return (mean, (variance / n) ** 0.5)


class ExpertBot(StrongBot):
    level = "expert"

    def __init__(
        self,
        seed: int = 0,
        playouts: int = DEFAULT_PLAYOUTS,
        time_cap: float | None = DEFAULT_TIME_CAP,
        horizon: int | None = None,
        search_close: bool = False,
    ) -> None:
        super().__init__(seed)
        self.playouts = playouts
        self.time_cap = time_cap
        self.horizon = horizon
        """Turns per seat a playout looks ahead before the hands are judged
        (:func:`romme.bots.rollout.judge`); ``None`` plays to the end of the round."""
        self.search_close = search_close
        """Search the close decisions (:meth:`searches`): off by default."""

    # ----------------------------------------------------------------- search

    def search(
        self,
        view: SeatView,
        ctx: Context,
        candidates: Sequence[Decision | None],
        rng: random.Random,
    ) -> int:
        """The index of the candidate to play. Candidate 0 is the strong
        judgement's choice; another candidate replaces it only if it did better
        in the playouts by a clear margin (``CONFIDENCE`` standard errors of the
        per-deal differences), so that the noise of a few dozen playouts does not
        overrule good judgement. ``None`` stands for doing nothing now (letting a
        knock go)."""
        seat = view.seat
        assert seat is not None
        if len(candidates) < 2 or not self.may_search(view, ctx):
            return 0
        worlds = max(2, self.playouts // len(candidates))
        holders = frozenset({seat})
        diffs: list[list[float]] = [[] for _ in candidates]
        start = time.thread_time()
        for _ in range(worlds):
            base = sample_game(view, ctx.know, random.Random(rng.getrandbits(64)))
            if base is None:
                return 0
            values: list[float] = []
            for candidate in candidates:
                game = base.clone()
                if candidate is not None:
                    try:
                        game.apply(candidate.action)
                    except (IllegalAction, InvalidMeld):
                        values.append(-1e6)
                        continue
                if self.horizon is None:
                    playout(game, holders=holders)
                    values.append(utility(game, seat, ctx.single_round))
                else:
                    playout(game, holders=holders, turns=self.horizon)
                    values.append(judge(game, seat, ctx.single_round))
            for i, value in enumerate(values):
                diffs[i].append(value - values[0])
            if self.time_cap is not None and time.thread_time() - start > self.time_cap:
                break
        best, best_mean = 0, 0.0
        for i in range(1, len(candidates)):
            mean, error = _mean_and_error(diffs[i])
            if mean > best_mean and mean > CONFIDENCE * error:
                best, best_mean = i, mean
        return best

    def may_search(self, view: SeatView, ctx: Context) -> bool:
        """Whether this decision may be searched at all (it has playouts, and
        :meth:`searches`): if not, the expert plays the strong judgement's move
        (with its own plan) without working out the candidates."""
        return self.playouts > 0 and self.searches(view, ctx)

    def searches(self, view: SeatView, ctx: Context) -> bool:
        """Whether the search may overrule the judgement here: only with
        ``search_close``. By default the plan of holding back is the expert's
        whole edge at every table, and the playouts, whose policy is cruder than
        the strong judgement, overruled it for the worse or for nothing
        (docs/bots.md): heads-up at one-round tables the expert with search won
        64.4% of the ladder's 2,000 games against the strong level, the same
        play without it 66.6%; in matches to 100 the search alone won 57% of 120
        matches against the strong level, the plan alone 90% of 1,000."""
        return self.search_close

    # ---------------------------------------------------------------- opening

    def plan(self, view: SeatView, ctx: Context) -> HoldingPlan:
        """How the expert holds its melds back here
        (:func:`~romme.bots.playbook.holding_plan`): at a one-round table only
        going out counts, and melds on the table help the others (lay-offs,
        joker exchanges) more than they help the seat; in a match a hand rummy
        doubles every opponent's penalty, and the seat lays everything once an
        opponent is close to going out."""
        return holding_plan(len(ctx.others), ctx.single_round)

    def should_hold(self, view: SeatView, ctx: Context, opener: Arrangement) -> bool:
        arr = arrangement(view.hand, view.rules)
        return keeps_melds_back(view.rules, view.melds, arr.left, ctx.others, self.plan(view, ctx))

    def opening_melds(self, view: SeatView, ctx: Context, opener: Arrangement) -> Sequence[Meld]:
        """Opening without going out, the least that opens
        (:func:`~romme.bots.playbook.least_opening`); the rest stays in hand."""
        arr = arrangement(view.hand, view.rules)
        if self.plan(view, ctx).opens_with_least(view.rules, view.melds, arr.left, ctx.others):
            return least_opening(opener.melds, view.rules)
        return opener.melds

    def keeps_new_melds(self, view: SeatView, ctx: Context, arr: Arrangement) -> bool:
        """Once opened, the same plan keeps new melds in hand until they take
        the seat out (:meth:`~romme.bots.playbook.HoldingPlan.keeps_new_melds`)."""
        return self.plan(view, ctx).keeps_new_melds(view.rules, view.melds, arr.left, ctx.others)

    # ------------------------------------------------------------------ knock

    def knock(self, view: SeatView, rng: random.Random) -> Decision | None:
        seat = view.seat
        top = view.discard_top
        if seat is None or top is None:
            return None
        strong = super().knock(view, rng)
        ctx = self.context(view)
        if top.is_joker or not self.may_search(view, ctx):
            return strong
        gain = self.take_gain(view, ctx, top)
        if gain < ctx.style.take_margin - 0.5:
            return strong
        knock = Decision(Knock(seat), f"knock: {top} is worth a free turn")
        candidates: list[Decision | None] = [strong, None] if strong is not None else [None, knock]
        return candidates[self.search(view, ctx, candidates, rng)]

    # ------------------------------------------------------------------- draw

    def draw(self, view: SeatView, rng: random.Random) -> Decision:
        decision = super().draw(view, rng)
        seat = view.seat
        top = view.discard_top
        if seat is None or top is None or top.is_joker:
            return decision
        ctx = self.context(view)
        if not self.may_search(view, ctx):
            return decision
        gain = self.take_gain(view, ctx, top)
        if abs(gain - ctx.style.take_margin) > 0.8:
            return decision
        take = Decision(Draw(seat, "discard"), f"take {top}: it pays in the long run")
        stock = Decision(Draw(seat, "stock"), f"draw from the stock: {top} is not worth showing")
        first, second = (
            (decision, stock if decision.action.source == "discard" else take)
            if isinstance(decision.action, Draw)
            else (take, stock)
        )
        best = self.search(view, ctx, [first, second], rng)
        return first if best == 0 else second

    # ------------------------------------------------------------------- play

    def play(self, view: SeatView, rng: random.Random) -> Decision:
        seat = view.seat
        assert seat is not None
        decision = super().play(view, rng)
        ctx = self.context(view)
        if not self.may_search(view, ctx):
            return decision
        if not view.opened[seat]:
            opener = opening(view.hand, view.rules)
            if opener is not None:
                # Open now (with everything, or keeping the jokers back so that
                # nobody can exchange them), or hold back and throw a card?
                candidates = [decision]
                if isinstance(decision.action, Discard):
                    lay = self.opening_decision(view, ctx, opener, "open with {} points")
                    if lay is not None:
                        candidates.append(lay)
                else:
                    hold = self.discard(view, ctx, rng)
                    candidates.append(Decision(hold.action, "hold the opening back"))
                naturals = [c for c in view.hand if not c.is_joker]
                if len(naturals) < len(view.hand):
                    plain = opening(naturals, view.rules)
                    if plain is not None:
                        lay = self.opening_decision(
                            view, ctx, plain, "open with {} points and keep the jokers in hand"
                        )
                        if lay is not None and all(lay.action != c.action for c in candidates):
                            candidates.append(lay)
                if len(candidates) > 1:
                    return candidates[self.search(view, ctx, candidates, rng)]
        if isinstance(decision.action, Discard):
            return self.search_discard(view, ctx, decision, rng)
        return decision

    def opening_decision(
        self, view: SeatView, ctx: Context, opener: Arrangement, reason: str
    ) -> Decision | None:
        """A candidate opening, laid as the seat would lay it (:meth:`opening_melds`)."""
        melds = self.opening_melds(view, ctx, opener)
        lay = lay_melds(view, melds)
        points = sum(m.value for m in melds)
        return None if lay is None else Decision(lay, reason.format(points))

    def search_discard(
        self, view: SeatView, ctx: Context, decision: Decision, rng: random.Random
    ) -> Decision:
        seat = view.seat
        assert seat is not None
        ranked = rank_discards(view, ctx)
        if len(ranked) < 2:
            return decision
        best_value = ranked[0][0]
        close = [card for value, card in ranked[:MAX_CANDIDATES] if value >= best_value - CLOSE]
        if len(close) < 2:
            return decision
        candidates = [
            Decision(
                Discard(seat, card),
                decision.reason if i == 0 else f"throw {card}: it plays out best",
            )
            for i, card in enumerate(close)
        ]
        return candidates[self.search(view, ctx, candidates, rng)]
