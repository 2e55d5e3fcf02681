"""JSON encoding of the engine's dataclasses (events, views, round results).

Values are encoded by shape: cards as their notation, melds as their
``to_json``, tuples as lists, nested dataclasses as objects. Decoding reads the
field annotations, so every encoded value comes back equal.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from collections.abc import Callable, Hashable
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
    return _decoder(tp)(value)


Decoder = Callable[[Any], Any]
"""Decodes one JSON value to the type it was made for (raises
:class:`~romme.engine.errors.NotationError`, ``TypeError`` or ``ValueError``)."""


@cache
def _decoder(tp: Any) -> Decoder:
    """The decoder of type ``tp``, made once per type: reading a type's
    annotations (``get_origin``, ``get_args``, the dataclass's fields) for every
    value cost ten times the decoding itself, and clients decode a whole view
    for every update."""
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        return _union_decoder(tp)
    if origin is Literal:
        allowed = get_args(tp)

        def literal(value: Any) -> Any:
            if value not in allowed:
                raise NotationError(f"{value!r} is not one of {allowed}")
            return value

        return literal
    if origin is tuple:
        return _tuple_decoder(tp)
    if origin is dict:
        return _dict_decoder(tp)
    simple = _SIMPLE.get(tp)
    if simple is not None:
        return simple
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return tp
    if isinstance(tp, type) and hasattr(tp, "from_json"):
        return cast(Decoder, tp.from_json)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return functools.partial(from_json_fields, tp)
    raise TypeError(f"cannot decode {tp!r}")


def _union_decoder(tp: Any) -> Decoder:
    options = get_args(tp)
    nullable = type(None) in options
    decoders = [_decoder(option) for option in options if option is not type(None)]

    def union(value: Any) -> Any:
        if value is None and nullable:
            return None
        errors = []
        for decode in decoders:
            try:
                return decode(value)
            except (NotationError, TypeError, ValueError) as exc:
                errors.append(str(exc))
        raise NotationError("; ".join(errors) or "bad value")

    return union


def _tuple_decoder(tp: Any) -> Decoder:
    args = get_args(tp)
    if len(args) == 2 and args[1] is Ellipsis:
        item = _decoder(args[0])

        def homogeneous(value: Any) -> Any:
            if not isinstance(value, list):
                raise NotationError("expected a list")
            return tuple([item(v) for v in value])

        return homogeneous
    items = [_decoder(arg) for arg in args]

    def fixed(value: Any) -> Any:
        if not isinstance(value, list):
            raise NotationError("expected a list")
        return tuple([decode(v) for decode, v in zip(items, value, strict=True)])

    return fixed


def _dict_decoder(tp: Any) -> Decoder:
    key_type, value_type = get_args(tp)
    decode_key, decode_item = _decoder(key_type), _decoder(value_type)
    keys_are_text = key_type is str

    def mapping(value: Any) -> Any:
        if not isinstance(value, dict):
            raise NotationError("expected an object")
        return {
            decode_key(k if keys_are_text else int(k)): decode_item(v) for k, v in value.items()
        }

    return mapping


def _card(value: Any) -> Card:
    if not isinstance(value, str):
        raise NotationError("expected a card")
    return Card.parse(value)


def _any(value: Any) -> Any:
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise NotationError("expected true or false")
    return value


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise NotationError("expected an integer")
    return value


def _float(value: Any) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise NotationError("expected a number")
    return float(value)


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise NotationError("expected a string")
    return value


_SIMPLE: dict[Any, Decoder] = {
    Card: _card,
    Meld: restore_meld,
    Any: _any,
    bool: _bool,
    int: _int,
    float: _float,
    str: _str,
}


@cache
def _fields(cls: Hashable) -> tuple[tuple[str, bool, Decoder], ...]:
    """Each field of dataclass ``cls``: its name, whether it has a default and its
    decoder (a dataclass's own decoder reads its fields at its first use, so a
    type may contain itself)."""
    hints = _hints(cls)
    return tuple(
        (
            field.name,
            field.default is not dataclasses.MISSING,
            _decoder(hints[field.name]),
        )
        for field in dataclasses.fields(cast(Any, cls))
    )


def from_json_fields(cls: type[T], data: Any) -> T:
    """Build dataclass ``cls`` from a JSON object written by :func:`to_json_fields`."""
    if not isinstance(data, dict):
        raise NotationError(f"{cls.__name__} must be a JSON object")
    kwargs = {}
    try:
        for name, has_default, decode in _fields(cast(Hashable, cls)):
            if name not in data:
                if has_default:
                    continue
                raise NotationError(f"{cls.__name__}: missing {name!r}")
            kwargs[name] = decode(data[name])
        return cls(**kwargs)
    except NotationError:
        raise
    except (EngineError, TypeError, ValueError) as exc:
        raise NotationError(f"{cls.__name__}: {exc}") from exc
