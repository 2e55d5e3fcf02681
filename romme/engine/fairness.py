"""Fair shuffles: seeds, commitments, a documented deterministic shuffle, and
verification of a deal.

A match starts from a 32-byte secret seed drawn from :mod:`secrets`
(:func:`new_match_seed`). Round ``n`` uses the seed
``HMAC-SHA256(match_seed, "romme-round:" + n)``, so revealing one round's seed
reveals nothing of the others. Its commitment, ``sha256(round_seed)`` in hex,
is public from the round's start; the seed itself is revealed when the round
ends. Anyone can then repeat the shuffle and check the deal with
:func:`verify_deal`.

The shuffle is a Fisher-Yates shuffle of the unshuffled shoe
(:func:`romme.engine.cards.shoe`: clubs, diamonds, hearts, spades, each ace to
king, twice, then six jokers), driven by a SHA-256 counter stream:
block ``i`` is ``sha256(seed || i as 8 bytes big-endian)``; numbers are read
8 bytes at a time, big-endian, and a number below ``n`` is drawn by rejection
sampling (discard values ``>= 2**64 - 2**64 % n``). For ``i`` from the last index
down to 1, swap item ``i`` with item ``randbelow(i + 1)``.

The deal takes the shuffled shoe from the front: ``hand_size`` cards for each
seat in turn order (the player after the dealer first), then the upturned card,
then the stock, drawn from the front.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from romme.engine.cards import Card, shoe

__all__ = [
    "Deal",
    "ShuffleStream",
    "commitment_of",
    "deal_from_seed",
    "new_match_seed",
    "restock_seed",
    "round_seed",
    "shuffled",
    "verify_deal",
]

T = TypeVar("T")


def new_match_seed() -> bytes:
    """A fresh secret match seed from the operating system's secure source."""
    return secrets.token_bytes(32)


def round_seed(match_seed: bytes, round_no: int) -> bytes:
    """The shuffle seed of round ``round_no`` (1-based)."""
    return hmac.new(match_seed, f"romme-round:{round_no}".encode(), hashlib.sha256).digest()


def restock_seed(seed: bytes, restock_no: int) -> bytes:
    """The seed of the ``restock_no``-th stock rebuild (1-based) of a round."""
    return hashlib.sha256(seed + f"romme-restock:{restock_no}".encode()).digest()


def commitment_of(seed: bytes) -> str:
    """The public commitment to a seed: sha256 in lowercase hex."""
    return hashlib.sha256(seed).hexdigest()


class ShuffleStream:
    """Uniform random numbers from a SHA-256 counter stream (see module doc)."""

    __slots__ = ("_seed", "_counter", "_buffer")

    def __init__(self, seed: bytes) -> None:
        self._seed = seed
        self._counter = 0
        self._buffer = b""

    def _next64(self) -> int:
        if len(self._buffer) < 8:
            block = hashlib.sha256(self._seed + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            self._buffer += block
        value = int.from_bytes(self._buffer[:8], "big")
        self._buffer = self._buffer[8:]
        return value

    def randbelow(self, n: int) -> int:
        if n <= 0:
            raise ValueError("n must be positive")
        limit = (1 << 64) - (1 << 64) % n
        while True:
            value = self._next64()
            if value < limit:
                return value % n


def shuffled(items: Sequence[T], seed: bytes) -> list[T]:
    """The items shuffled by the documented Fisher-Yates shuffle."""
    result = list(items)
    stream = ShuffleStream(seed)
    for i in range(len(result) - 1, 0, -1):
        j = stream.randbelow(i + 1)
        result[i], result[j] = result[j], result[i]
    return result


@dataclass(frozen=True, slots=True)
class Deal:
    """What a round's shuffle gives: hands in turn order, the upturned card,
    and the stock in the order it will be drawn."""

    hands: tuple[tuple[Card, ...], ...]
    upcard: Card
    stock: tuple[Card, ...]


def deal_from_seed(seed: bytes, players: int, hand_size: int = 13) -> Deal:
    """The deal of a round from its seed, for ``players`` seats in turn order."""
    deck = shuffled(shoe(), seed)
    hands = tuple(tuple(deck[i * hand_size : (i + 1) * hand_size]) for i in range(players))
    rest = players * hand_size
    return Deal(hands=hands, upcard=deck[rest], stock=tuple(deck[rest + 1 :]))


def verify_deal(
    seed: bytes | str,
    commitment: str,
    hands: Sequence[Sequence[Card]],
    upcard: Card,
    hand_size: int = 13,
) -> bool:
    """Whether ``seed`` matches the published ``commitment`` and gives exactly
    these hands (in turn order, as dealt) and upturned card."""
    if isinstance(seed, str):
        try:
            seed = bytes.fromhex(seed)
        except ValueError:
            return False
    if not hmac.compare_digest(commitment_of(seed), commitment.lower()):
        return False
    deal = deal_from_seed(seed, len(hands), hand_size)
    return deal.upcard == upcard and all(
        sorted(dealt) == sorted(given) for dealt, given in zip(deal.hands, hands, strict=True)
    )
