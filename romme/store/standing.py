"""An account's standing: whether it is established, and the largest stake it
may play for.

A fresh account costs nothing (a guest is one click, a registration a minute),
so anything a fresh account holds can be poured into another one. Fresh
accounts therefore play for small stakes only, and the rankings list
established accounts only: registered, with enough finished games (void games
do not count) and registered long enough ago (docs/chips.md).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from romme.store.chip_policy import ChipPolicy
from romme.store.core import RELEASED
from romme.store.models import Player

__all__ = ["established", "established_clauses", "stake_limit"]


def established(player: Player, policy: ChipPolicy, now: datetime) -> bool:
    """Whether ``player`` is an established person (never a guest or a bot)."""
    if player.guest or player.is_bot or player.registered_at is None:
        return False
    registered = player.registered_at
    if registered.tzinfo is None and now.tzinfo is not None:
        registered = registered.replace(tzinfo=now.tzinfo)
    return player.games_played >= policy.established_games and registered <= now - timedelta(
        hours=policy.established_hours
    )


def established_clauses(policy: ChipPolicy, now: datetime) -> tuple[Any, ...]:
    """The SQL conditions of :func:`established` (and not a deleted account)."""
    return (
        Player.guest.is_(False),
        Player.is_bot.is_(False),
        Player.registered_at.is_not(None),
        Player.registered_at <= now - timedelta(hours=policy.established_hours),
        Player.games_played >= max(1, policy.established_games),
        ~Player.nickname_key.startswith(RELEASED),
    )


def stake_limit(player: Player, policy: ChipPolicy, now: datetime, stake_max: int) -> int:
    """The largest stake ``player`` may play for."""
    if player.guest:
        return min(stake_max, policy.guest_stake_max)
    if not established(player, policy, now):
        return min(stake_max, policy.new_stake_max)
    return stake_max
