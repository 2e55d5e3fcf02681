"""Accounts: the nickname rules, password rules and argon2 password hashing.

Nicknames are 3 to 20 characters after NFKC normalisation (full-width and other
compatibility forms become the plain letters): letters of any script, decimal
digits, ``_``, ``-`` and ``.``, starting with a letter or a digit. Combining
marks may follow a letter (scripts such as Devanagari or Thai write vowels with
them), at most two in a row, so that no nickname can pile marks over its
neighbours. A nickname may not mix scripts (``romme.store.lookalikes``). Two
nicknames are the same when their case-folded forms are equal, so ``Anna`` and
``ANNA`` cannot both exist; the store also refuses a nickname that looks like
another one (equal skeletons).

>>> validate_nickname("  Anna ")
Traceback (most recent call last):
...
romme.store.errors.StoreError: a nickname may hold only letters, digits, '_', '-' and '.'
>>> validate_nickname("Ånna_2")
'Ånna_2'
>>> validate_nickname("Ｂｅｎ")
'Ben'
>>> validate_nickname("Аnna")
Traceback (most recent call last):
...
romme.store.errors.StoreError: a nickname may not mix scripts (CYRILLIC, LATIN)
>>> nickname_key("STRAUSS") == nickname_key("Strauß")
True

Input far too long is refused before any work is done on it, so that a
10,000-character nickname or password costs nothing.
"""

from __future__ import annotations

import unicodedata

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from romme.store.errors import StoreError
from romme.store.lookalikes import mixed_scripts

__all__ = [
    "NICKNAME_MAX",
    "NICKNAME_MIN",
    "PASSWORD_MAX",
    "PASSWORD_MIN",
    "bot_nickname",
    "hash_password",
    "needs_rehash",
    "nickname_key",
    "validate_nickname",
    "validate_password",
    "verify_password",
]

NICKNAME_MIN = 3
NICKNAME_MAX = 20
PASSWORD_MIN = 8
PASSWORD_MAX = 128
MARKS_IN_A_ROW = 2
"""Combining marks that may follow one letter (Thai writes a vowel and a tone)."""

# NFKC shortens a string only by composing characters, never by more than a few code
# points per character; anything longer than this cannot become a valid nickname.
_NICKNAME_RAW_MAX = 4 * NICKNAME_MAX
_PUNCTUATION = frozenset("_-.")


def _cheap_length_check(nickname: object) -> str:
    if not isinstance(nickname, str):
        raise StoreError("nickname_characters", "a nickname must be text")
    if len(nickname) > _NICKNAME_RAW_MAX:
        raise StoreError(
            "nickname_length",
            f"a nickname has {NICKNAME_MIN} to {NICKNAME_MAX} characters",
        )
    return nickname


def validate_nickname(nickname: str) -> str:
    """The nickname in NFKC form, or raise :class:`StoreError` (``nickname_length``,
    ``nickname_characters``, ``nickname_mixed_scripts``)."""
    normal = unicodedata.normalize("NFKC", _cheap_length_check(nickname))
    if not NICKNAME_MIN <= len(normal) <= NICKNAME_MAX:
        raise StoreError(
            "nickname_length",
            f"a nickname has {NICKNAME_MIN} to {NICKNAME_MAX} characters",
        )
    previous = ""
    marks = 0
    for index, char in enumerate(normal):
        category = unicodedata.category(char)
        marks = marks + 1 if category in ("Mn", "Mc") else 0
        if category.startswith("L") or category == "Nd":
            previous = "alphanumeric"
        elif category in ("Mn", "Mc") and previous in ("alphanumeric", "mark"):
            if marks > MARKS_IN_A_ROW:
                raise StoreError(
                    "nickname_characters",
                    f"a letter may carry at most {MARKS_IN_A_ROW} combining marks",
                )
            previous = "mark"
        elif char in _PUNCTUATION:
            if index == 0:
                raise StoreError(
                    "nickname_characters", "a nickname starts with a letter or a digit"
                )
            previous = "punctuation"
        else:
            raise StoreError(
                "nickname_characters",
                "a nickname may hold only letters, digits, '_', '-' and '.'",
            )
    scripts = mixed_scripts(normal)
    if scripts is not None:
        raise StoreError(
            "nickname_mixed_scripts", f"a nickname may not mix scripts ({', '.join(scripts)})"
        )
    return normal


def nickname_key(nickname: str) -> str:
    """The form under which nicknames are unique: NFC, case-folded, NFC again
    (case folding may decompose a character)."""
    folded = unicodedata.normalize("NFC", nickname).casefold()
    return unicodedata.normalize("NFC", folded)


def lookup_key(nickname: object) -> str | None:
    """The key to look a nickname up by, or ``None`` if no account can have it
    (too long, or holding a control character or a lone surrogate, which no
    nickname holds and no database would take)."""
    if not isinstance(nickname, str) or len(nickname) > _NICKNAME_RAW_MAX:
        return None
    if any(unicodedata.category(char) in ("Cc", "Cs") for char in nickname):
        return None
    return nickname_key(nickname)


def bot_nickname(level: str) -> str:
    """The nickname of the computer opponent of this level: ``Bot casual``. The space
    keeps it apart from every nickname a person can choose."""
    return f"Bot {level}"


def validate_password(password: str) -> str:
    if not isinstance(password, str) or not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise StoreError(
            "password_length", f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters"
        )
    if not _is_unicode(password):
        raise StoreError("bad_message", "the password is not valid Unicode text")
    return password


def password_fits(password: object) -> bool:
    """Whether a login attempt's password is worth hashing at all."""
    return (
        isinstance(password, str)
        and PASSWORD_MIN <= len(password) <= PASSWORD_MAX
        and _is_unicode(password)
    )


def _is_unicode(text: str) -> bool:
    """False for text with a lone surrogate (JSON can spell one: ``"\\ud800"``),
    which cannot be encoded, hence not hashed."""
    return not any("\ud800" <= char <= "\udfff" for char in text)


def hash_password(hasher: PasswordHasher, password: str) -> str:
    """An argon2id hash (slow on purpose: call it off the event loop)."""
    return hasher.hash(password)


def verify_password(hasher: PasswordHasher, password_hash: str, password: str) -> bool:
    try:
        return hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(hasher: PasswordHasher, password_hash: str) -> bool:
    try:
        return hasher.check_needs_rehash(password_hash)
    except InvalidHashError:
        return True
