"""The server's chip options and the two numbers they rest on: the largest stake
and the house's part of a pot.

Apart from the ledger and the chip store so that everything that only reads the
options (an account's standing, the server's configuration, a table's offer)
imports them without the store code that moves chips.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["STAKE_MAX", "ChipPolicy", "operating_cost"]

STAKE_MAX = 1_000_000
"""The largest stake a table may ask of each seat."""


@dataclass(frozen=True, slots=True)
class ChipPolicy:
    """The server's chip options (``romme serve --chip-...``, docs/protocol.md)."""

    grant: int = 10_000
    """Chips on a new account (guests too)."""
    bonus: int = 1_000
    """Chips a bonus claim adds."""
    bonus_hours: float = 4.0
    """A bonus may be claimed this long after the previous one ..."""
    bonus_below: int = 5_000
    """... while the balance is below this."""
    cost_percent: int = 5
    """The operating cost: this percentage of a game's pot (rounded down) goes to the house."""
    guest_stake_max: int = 100
    """The largest stake a guest may play for."""
    new_stake_max: int = 1_000
    """The largest stake a registered account that is not yet established may play for."""
    established_games: int = 10
    """An account is established once it has finished this many games (void ones
    do not count) ..."""
    established_hours: float = 24.0
    """... and was registered at least this long ago."""
    bot_win_cap: int = 1_000
    """What a player may win in a (UTC) day at tables with computer opponents,
    net of what they lost there that day; the rest of a payout goes back to the house."""
    pair_staked_games: int = 5
    """Staked games the same two people may start together in 24 hours (0: any)."""
    accounts_per_address: int = 1
    """People with a session from one address who may sit at one staked table (0: any)."""
    pair_rated_games: int = 5
    """Games of the same two people in 24 hours that are rated and ranked (0: any)."""


def operating_cost(pot: int, percent: int) -> int:
    """The house's part of a pot (rounded down).

    >>> operating_cost(4 * 50, 5), operating_cost(2 * 10, 5), operating_cost(3 * 333, 5)
    (10, 1, 49)
    """
    return pot * percent // 100
