"""Typed game options from a mapping (a setup's ``options``), with clear errors.

A game declares its configuration table as a frozen dataclass whose fields carry the spec's
defaults; :func:`parse_options` validates a user mapping against it: unknown keys, wrong types
and values outside a ``Literal`` are :class:`~pbem.core.errors.SetupError`\\ s naming the key.
Durations accept seconds or strings such as ``"18h"``, ``"15min"``, ``"2d"``, ``"90s"``.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
import typing
from collections.abc import Hashable, Mapping
from datetime import timedelta
from typing import Any, TypeVar

from pbem.core.errors import SetupError
from pbem.core.events import JsonObject

T = TypeVar("T")

_UNITS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "d": 86400, "j": 86400}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$")


MAX_DURATION = timedelta(days=365)
"""The longest phase a game may set: a longer one is a typo (``99999999999d``), and a game's
deadlines must stay far inside the calendar, or the first one would overflow and stall it."""


def parse_duration(value: Any) -> timedelta:
    """``"18h"`` -> 18 hours; a bare number is seconds. At most :data:`MAX_DURATION`."""
    seconds: float | None = None
    if isinstance(value, timedelta):
        seconds = value.total_seconds()
    elif isinstance(value, int | float) and not isinstance(value, bool):
        seconds = float(value) if abs(value) < 1e300 else math.inf if value > 0 else -math.inf
    elif isinstance(value, str):
        m = _DURATION.match(value.lower())
        if m and (m.group(2) or "s") in _UNITS:
            seconds = float(m.group(1)) * _UNITS[m.group(2) or "s"]
    if seconds is None or math.isnan(seconds) or seconds < 0:
        raise ValueError(f"not a duration: {value!r}")
    if seconds > MAX_DURATION.total_seconds():
        raise ValueError(f"{value!r} is longer than {MAX_DURATION.days} days")
    return timedelta(seconds=seconds)


def parse_options(cls: type[T], given: Mapping[str, Any] | None) -> T:
    """Build the options dataclass ``cls`` from ``given``, defaults for what is missing.

    The options of a frozen class are parsed once for the same values and kept (a game's
    setup parses its options, and every fold of its creation again: three times a game
    created, once a game loaded, issue 23)."""
    key = _key(cls, given)
    if key is None:
        return _parse(cls, given)
    kept = _KEPT.get(key)
    if kept is None:
        kept = _parse(cls, given)
        try:
            hash(kept)  # made of immutable values only: the same instance may serve each game
        except TypeError:
            return kept
        if len(_KEPT) >= _KEPT_MOST:
            _KEPT.clear()
        _KEPT[key] = kept
    return kept


_KEPT: dict[tuple[Any, ...], Any] = {}
"""(options class, the values given) -> the options parsed from them (:func:`_key`)."""
_KEPT_MOST = 256
_PLAIN = (str, int, bool, type(None))


def _key(cls: type, given: Mapping[str, Any] | None) -> tuple[Any, ...] | None:
    """What the options parsed from ``given`` depend on, with each value's type (``True``
    and ``1`` are different options: a ``bool`` refuses ``1``), floats by their digits
    (``-0.0`` is not ``0.0``); None when it cannot be told (a value of another type, a class
    whose instances may change)."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen:
        return None
    items: list[tuple[str, type, Any]] = []
    for name, value in (given or {}).items():
        kind = type(value)
        if kind in _PLAIN:
            items.append((name, kind, value))
        elif kind is float:
            items.append((name, kind, repr(value)))
        elif kind in (list, tuple) and all(type(v) is str for v in value):
            items.append((name, kind, tuple(value)))
        else:
            return None
    return (cls, *items)


def _parse(cls: type[T], given: Mapping[str, Any] | None) -> T:
    given = dict(given or {})
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(given) - set(fields))
    if unknown:
        raise SetupError(f"unknown option {unknown[0]!r} (known: {', '.join(sorted(fields))})")
    hints = _hints(typing.cast(Hashable, cls))
    values: dict[str, Any] = {}
    for name, value in given.items():
        values[name] = _coerce(name, value, hints[name])
    return cls(**values)


@functools.cache
def _hints(cls: Hashable) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _coerce(name: str, value: Any, hint: Any) -> Any:
    origin = typing.get_origin(hint)
    try:
        if hint is timedelta:
            return parse_duration(value)
        if origin is typing.Literal:
            if value not in typing.get_args(hint):
                choices = ", ".join(map(str, typing.get_args(hint)))
                raise ValueError(f"{value!r} is not one of {choices}")
            return value
        if hint is bool:
            if not isinstance(value, bool):
                raise ValueError(f"{value!r} is not true or false")
            return value
        if hint is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{value!r} is not an integer")
            return value
        if hint is float:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{value!r} is not a number")
            return float(value)
        if origin is tuple:
            if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
                raise ValueError(f"{value!r} is not a list of names")
            return tuple(value)
        return value
    except ValueError as exc:
        raise SetupError(f"option {name!r}: {exc}") from None


def options_to_json(options: Any) -> JsonObject:
    """The options as a JSON-able mapping (durations in seconds), written by the event codec
    as it is: no one changes it."""
    out = JsonObject()
    for name in _field_names(typing.cast(Hashable, type(options))):
        value = getattr(options, name)
        if isinstance(value, timedelta):
            value = value.total_seconds()
        elif isinstance(value, tuple):
            value = list(value)
        out[name] = value
    return out


@functools.cache
def _field_names(cls: Hashable) -> tuple[str, ...]:
    """An options class's field names, in order (``dataclasses.fields`` builds them per call,
    and every game's setup writes its options: 1,000 games created, issue 23)."""
    return tuple(f.name for f in dataclasses.fields(typing.cast(type, cls)))
