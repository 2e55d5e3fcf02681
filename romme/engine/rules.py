"""The table's rules: one value that holds every option.

Every difference between the presets is a named field here; the rest of the engine
reads fields, never the preset's name.

>>> Rules.classic().opening_points
30
>>> Rules.three_rounds().must_discard_to_go_out
True
>>> Rules.preset("classic", point_limit=1).point_limit
1
>>> Rules.three_rounds(knock=True)
Traceback (most recent call last):
ValueError: three-rounds is played without the knock (classic only)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

from romme.engine.errors import NotationError

__all__ = ["DEFAULT_SEATS", "PRESETS", "Rules", "Scoring"]

Scoring = Literal["elimination", "rounds"]

PRESETS = ("classic", "three-rounds")

DEFAULT_SEATS = {"classic": 2, "three-rounds": 4}
"""The players each preset is made for: a new table's seats unless chosen (both
presets allow 2 to 4)."""


@dataclass(frozen=True, slots=True)
class Rules:
    """Every option of a table. Use :meth:`classic` or :meth:`three_rounds`."""

    name: str = "classic"
    """The preset this value was built from. Play reads the fields alone; the name
    only bounds them where a preset rules an option out (three-rounds: never the
    knock, always hand rummy)."""

    hand_size: int = 13
    opening_points: int = 30
    """The first lay-down of a round must be worth at least this much."""
    opening_single_meld: bool = False
    """If set, one meld alone must reach ``opening_points``."""
    min_natural_cards: int = 2
    """A meld needs at least this many natural cards (classic: ``A XX XX`` is invalid)."""
    max_jokers_per_meld: int | None = None
    """At most this many jokers in one meld (three-rounds: 1); ``None``: no limit."""
    joker_penalty: int = 30
    ace_penalty: int = 15
    hand_rummy: bool = True
    """Going out in one turn without having laid before doubles the others' penalties."""
    hand_rummy_multiplier: int = 2
    knock: bool = False
    """The knock ("with knock"): 3-4 players only."""
    knock_window_seconds: float = 3.0
    joker_exchange_to_hand: bool = True
    """Classic: an exchanged joker goes to the hand. Otherwise it must be laid in a
    new meld in the same turn or discarded."""
    must_discard_to_go_out: bool = False
    may_return_discard: bool = False
    """May a player discard the card just taken from the discard pile?"""
    max_restocks: int = 2
    stall_turns: int = 40
    """A round in which this many turns in a row began without a card leaving the
    stock (every player took the discard) ends with no winner; 0: never."""
    scoring: Scoring = "elimination"
    point_limit: int = 100
    """Elimination scoring: a player whose total goes over this is out."""
    rounds: int = 3
    """Rounds scoring: how many rounds a game has."""
    turn_seconds: int = 30
    timeouts_before_away: int = 3
    min_seats: int = 2
    max_seats: int = 4

    def __post_init__(self) -> None:
        problems: list[str] = []
        if not 2 <= self.min_seats <= self.max_seats <= 4:
            problems.append("seats must be between 2 and 4")
        if not 3 <= self.hand_size <= 20:
            problems.append("hand_size must be 3..20")
        if self.opening_points < 0:
            problems.append("opening_points must not be negative")
        if not 2 <= self.min_natural_cards <= 3:
            # One natural card would make "7H XX XX" both a group and a sequence.
            problems.append("min_natural_cards must be 2 or 3")
        if self.max_jokers_per_meld is not None and self.max_jokers_per_meld < 0:
            problems.append("max_jokers_per_meld must not be negative")
        if self.joker_penalty < 0 or self.ace_penalty < 0:
            problems.append("penalties must not be negative")
        if self.hand_rummy_multiplier < 1:
            problems.append("hand_rummy_multiplier must be at least 1")
        if not 0 < self.knock_window_seconds <= 60:
            problems.append("knock_window_seconds must be in (0, 60]")
        if self.max_restocks < 0:
            problems.append("max_restocks must not be negative")
        if self.stall_turns < 0:
            problems.append("stall_turns must not be negative")
        if self.scoring not in ("elimination", "rounds"):
            problems.append("scoring must be 'elimination' or 'rounds'")
        if self.point_limit < 1:
            problems.append("point_limit must be a positive number")
        if self.rounds < 1:
            problems.append("rounds must be at least 1")
        if not 5 <= self.turn_seconds <= 600:
            problems.append("turn_seconds must be 5..600")
        if self.timeouts_before_away < 1:
            problems.append("timeouts_before_away must be at least 1")
        if self.name == "three-rounds":
            if self.knock:
                problems.append("three-rounds is played without the knock (classic only)")
            if not self.hand_rummy:
                problems.append("three-rounds always plays with hand rummy")
        if problems:
            raise ValueError("; ".join(problems))

    @classmethod
    def classic(cls, **options: Any) -> Rules:
        """The common online Rommé, with elimination at ``point_limit`` (see
        docs/rules.md). The default."""
        return cls(name="classic", **options)

    @classmethod
    def three_rounds(cls, **options: Any) -> Rules:
        """Four players, three rounds, highest score wins (see docs/rules.md). Played
        without the knock and always with hand rummy: options that would change
        either are refused (``ValueError``), as is any other invalid value."""
        base: dict[str, Any] = {
            "name": "three-rounds",
            "max_jokers_per_meld": 1,
            "joker_penalty": 20,
            "hand_rummy": True,
            "joker_exchange_to_hand": False,
            "must_discard_to_go_out": True,
            "scoring": "rounds",
            "knock": False,
        }
        base.update(options)
        return cls(**base)

    @classmethod
    def preset(cls, name: str, **options: Any) -> Rules:
        """A preset by name (``classic`` or ``three-rounds``) with options changed."""
        if name == "classic":
            return cls.classic(**options)
        if name in ("three-rounds", "three_rounds"):
            return cls.three_rounds(**options)
        raise ValueError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}")

    def replace(self, **options: Any) -> Rules:
        return dataclasses.replace(self, **options)

    def single_round(self) -> bool:
        """Whether a game is one round (classic with limit 1): then only going
        out counts, and the penalties decide nothing."""
        return self.scoring == "elimination" and self.point_limit <= 1

    def knock_possible(self, seats: int) -> bool:
        """Whether knocking can ever happen with this many seats."""
        return self.knock and seats >= 3

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> Rules:
        if not isinstance(data, dict):
            raise NotationError("rules must be a JSON object")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise NotationError(f"unknown rules option(s): {', '.join(unknown)}")
        try:
            return cls(**data)
        except (TypeError, ValueError) as exc:
            raise NotationError(f"invalid rules: {exc}") from exc
