"""JSON encoding of the engine's dataclasses (events, views, round results).

Values are encoded by shape: cards as their notation, melds as their
``to_json``, tuples as lists, nested dataclasses as objects. Decoding reads the
field annotations, so every encoded value comes back equal.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Hashable
from functools import cache
from typing import Any, Literal, TypeVar, Union, cast, get_args, get_origin

from romme.engine.cards import Card
from romme.engine.errors import EngineError, NotationError
from romme.engine.melds import Meld, MeldKind

__all__ = ["decode_value", "encode_value", "from_json_fields", "to_json_fields"]

T = TypeVar("T")


def encode_value(value: Any) -> Any:
    """A JSON-ready form of an engine value."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, Meld):
        return value.to_json()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [encode_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): encode_value(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_json_fields(value)
    if isinstance(value, bytes):
        return value.hex()
    raise TypeError(f"cannot encode {type(value).__name__}")


def to_json_fields(obj: Any) -> dict[str, Any]:
    """A dataclass's fields as a JSON object (with its ``type`` tag if it has one)."""
    data: dict[str, Any] = {}
    tag = getattr(type(obj), "type", None)
    if isinstance(tag, str):
        data["type"] = tag
    for field in dataclasses.fields(obj):
        data[field.name] = encode_value(getattr(obj, field.name))
    return data


def restore_meld(data: Any) -> Meld:
    """A meld from JSON written by the engine itself (kind, cards and start)."""
    if not isinstance(data, dict):
        raise NotationError("a meld is a JSON object")
    try:
        kind = MeldKind(data["kind"])
        cards = tuple(Card.parse(c) for c in data["cards"])
        start = int(data["start"])
    except (KeyError, TypeError, ValueError) as exc:
        raise NotationError(f"bad meld: {exc}") from exc
    suit = None
    if kind is MeldKind.SEQUENCE:
        suit = next((c.suit for c in cards if not c.is_joker), None)
    return Meld(kind, cards, start, suit)


@cache
def _hints(cls: Hashable) -> dict[str, Any]:
    import romme.engine.actions as actions
    import romme.engine.melds as melds
    import romme.engine.rules as rules

    namespace: dict[str, Any] = {}
    for module in (actions, melds, rules):
        namespace.update(vars(module))
    namespace.update(vars(typing))
    module = __import__(cls.__module__, fromlist=["*"])
    namespace.update(vars(module))
    return typing.get_type_hints(cls, globalns=namespace)


def decode_value(tp: Any, value: Any) -> Any:
    """Decode a JSON value to the annotated type ``tp``."""
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        options = get_args(tp)
        if value is None and type(None) in options:
            return None
        errors = []
        for option in options:
            if option is type(None):
                continue
            try:
                return decode_value(option, value)
            except (NotationError, TypeError, ValueError) as exc:
                errors.append(str(exc))
        raise NotationError("; ".join(errors) or "bad value")
    if origin is Literal:
        if value not in get_args(tp):
            raise NotationError(f"{value!r} is not one of {get_args(tp)}")
        return value
    if origin is tuple:
        args = get_args(tp)
        if not isinstance(value, list):
            raise NotationError("expected a list")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(decode_value(args[0], v) for v in value)
        return tuple(decode_value(a, v) for a, v in zip(args, value, strict=True))
    if origin is dict:
        key_type, value_type = get_args(tp)
        if not isinstance(value, dict):
            raise NotationError("expected an object")
        return {
            decode_value(key_type, k if key_type is str else int(k)): decode_value(value_type, v)
            for k, v in value.items()
        }
    if tp is Card:
        if not isinstance(value, str):
            raise NotationError("expected a card")
        return Card.parse(value)
    if tp is Meld:
        return restore_meld(value)
    if tp is Any:
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise NotationError("expected true or false")
        return value
    if tp is int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise NotationError("expected an integer")
        return value
    if tp is float:
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise NotationError("expected a number")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise NotationError("expected a string")
        return value
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return tp(value)
    if isinstance(tp, type) and hasattr(tp, "from_json"):
        return tp.from_json(value)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return from_json_fields(tp, value)
    raise TypeError(f"cannot decode {tp!r}")


def from_json_fields(cls: type[T], data: Any) -> T:
    """Build dataclass ``cls`` from a JSON object written by :func:`to_json_fields`."""
    if not isinstance(data, dict):
        raise NotationError(f"{cls.__name__} must be a JSON object")
    hints = _hints(cast(Hashable, cls))
    kwargs = {}
    try:
        for field in dataclasses.fields(cast(Any, cls)):
            if field.name not in data:
                if field.default is not dataclasses.MISSING:
                    continue
                raise NotationError(f"{cls.__name__}: missing {field.name!r}")
            kwargs[field.name] = decode_value(hints[field.name], data[field.name])
        return cls(**kwargs)
    except NotationError:
        raise
    except (EngineError, TypeError, ValueError) as exc:
        raise NotationError(f"{cls.__name__}: {exc}") from exc
