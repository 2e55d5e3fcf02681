"""Fast JSON forms of the engine's values for the wire.

``SeatView.to_json()`` goes through the engine's generic codec; the server sends a
view to every seat after every move, so this module builds the very same
dictionary directly (a test checks that they are equal on whole matches). The
seats' views of one moment differ only in the seat and its hand:
:meth:`ViewEncoder.seat_view` builds the rest once for all of them.
"""

from __future__ import annotations

from typing import Any

from romme.engine.cards import Card
from romme.engine.events import RoundResult
from romme.engine.game import Game
from romme.engine.rules import Rules
from romme.engine.view import SeatView

__all__ = ["ViewEncoder"]

_CARD_TEXT: dict[Card, str] = {}


def _card(card: Card) -> str:
    text = _CARD_TEXT.get(card)
    if text is None:
        text = _CARD_TEXT[card] = str(card)
    return text


def _cards(cards: Any) -> list[str]:
    return [_card(c) for c in cards]


class ViewEncoder:
    """Encodes the views of one table; keeps what never changes (the rules, past
    round results) encoded once."""

    __slots__ = ("_rules", "_rules_json", "_results", "_shared_game", "_shared_version", "_shared")

    def __init__(self) -> None:
        self._rules: Rules | None = None
        self._rules_json: dict[str, Any] = {}
        self._results: dict[tuple[int, str], dict[str, Any]] = {}
        self._shared_game: Game | None = None
        self._shared_version = -1
        self._shared: dict[str, Any] = {}
        """The spectator's view of ``_shared_game`` at ``_shared_version``: what
        every seat sees alike (a seat's view adds its seat and hand)."""

    def seat_view(self, game: Game, seat: int | None) -> dict[str, Any]:
        """``game.view_for(seat).to_json()``, with what every seat sees alike built
        once per version of the game (a move's update goes to every seat). The
        dictionaries share their inner lists: they are for encoding, not to change."""
        if game is not self._shared_game or game.version != self._shared_version:
            self._shared = self.view(game.view_for(None))
            self._shared_game, self._shared_version = game, game.version
        if seat is None:
            return self._shared
        if not 0 <= seat < game.seats:
            raise ValueError(f"there is no seat {seat}")
        return {**self._shared, "seat": seat, "hand": _cards(game.hands[seat])}

    def forget_shared(self) -> None:
        """Drop the views built for the last move once its updates are encoded.

        Kept until the table's next move (seconds later), their hundred-odd
        lists and dictionaries would outlive the garbage collector's next young
        collection and be scanned by it; 1,000 tables of such leftovers made
        every young collection 3 to 20 ms long, a pause of the whole server.
        Dropped at once, reference counting frees them before any collection."""
        self._shared_game, self._shared_version, self._shared = None, -1, {}

    def _rules_of(self, rules: Rules) -> dict[str, Any]:
        if rules is not self._rules:
            self._rules = rules
            self._rules_json = rules.to_json()
        return self._rules_json

    def _result(self, result: RoundResult) -> dict[str, Any]:
        key = (result.round_no, result.seed)
        data = self._results.get(key)
        if data is None:
            data = self._results[key] = result.to_json()
        return data

    def view(self, view: SeatView) -> dict[str, Any]:
        """``view.to_json()``, faster."""
        top = view.discard_top
        drew = view.drew_from_discard
        return {
            "seat": view.seat,
            "rules": self._rules_of(view.rules),
            "seats": view.seats,
            "version": view.version,
            "phase": view.phase,
            "round_no": view.round_no,
            "dealer": view.dealer,
            "current": view.current,
            "hand": _cards(view.hand),
            "hand_counts": list(view.hand_counts),
            "stock_count": view.stock_count,
            "discard_top": None if top is None else _card(top),
            "discard_count": view.discard_count,
            "melds": [
                {"kind": m.kind.value, "cards": _cards(m.cards), "start": m.start}
                for m in view.melds
            ],
            "meld_owners": list(view.meld_owners),
            "opened": list(view.opened),
            "totals": list(view.totals),
            "active": list(view.active),
            "drew_from_discard": None if drew is None else _card(drew),
            "opened_before": view.opened_before,
            "pending_jokers": view.pending_jokers,
            "knock_seats": list(view.knock_seats),
            "restocks": view.restocks,
            "commitment": view.commitment,
            "history": [
                {"seat": h.seat, "move": h.move, "cards": _cards(h.cards)} for h in view.history
            ],
            "results": [self._result(r) for r in view.results],
            "winners": list(view.winners),
            "stall": view.stall,
        }
