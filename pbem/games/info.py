"""What each registered game accepts, read from its typed options (``pbem games``).

A game's options are the fields of its ``Rules.options_type`` dataclass
(:mod:`pbem.core.options`): this module lists their names, types, defaults and allowed values
for people (``pbem games``, ``pbem --help``) and for the config check (``[games."<id>"]``).
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass
from datetime import timedelta
from typing import Any


@dataclass(frozen=True)
class OptionInfo:
    """One option of a game: its name, kind, default and (for a choice) allowed values."""

    name: str
    kind: str
    default: Any
    choices: tuple[str, ...] = ()

    def allowed(self) -> str:
        """The values it accepts, in the words of a setup file or ``--option``."""
        if self.choices:
            return " | ".join(self.choices)
        return {
            "duration": 'seconds, or "90s", "15min", "18h", "2d"',
            "bool": "true | false",
            "int": "an integer",
            "float": "a number",
            "names": 'a list of names, e.g. ["seer", "medium"]',
        }.get(self.kind, "text")

    def shown_default(self) -> str:
        """The default as the option is written (``true``, ``2h``, ``[a, b]``)."""
        if isinstance(self.default, bool):
            return "true" if self.default else "false"
        if isinstance(self.default, timedelta):
            return format_duration(self.default)
        if isinstance(self.default, tuple):
            return "[" + ", ".join(self.default) + "]"
        return str(self.default)

    def as_json(self) -> dict[str, Any]:
        """The option as JSON-ready data: name, type, default and allowed values."""
        default = self.default
        if isinstance(default, timedelta):
            default = self.shown_default()
        elif isinstance(default, tuple):
            default = list(default)
        return {
            "name": self.name,
            "type": self.kind,
            "default": default,
            "allowed": list(self.choices) or self.allowed(),
        }


def format_duration(value: timedelta) -> str:
    """``18h``, ``15min``, ``90s``: the shortest exact unit, as ``--option`` accepts it."""
    seconds = int(value.total_seconds())
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds and seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def _kind(hint: Any) -> tuple[str, tuple[str, ...]]:
    if hint is timedelta:
        return "duration", ()
    if typing.get_origin(hint) is typing.Literal:
        return "choice", tuple(str(a) for a in typing.get_args(hint))
    if typing.get_origin(hint) is tuple:
        return "names", ()
    return getattr(hint, "__name__", str(hint)), ()


def game_options(options_type: type[Any] | None) -> list[OptionInfo]:
    """The options of one game, in declaration order (none if it declares no options type)."""
    if options_type is None:
        return []
    hints = typing.get_type_hints(options_type)
    out = []
    for f in dataclasses.fields(options_type):
        kind, choices = _kind(hints[f.name])
        factory: Any = f.default_factory
        default = f.default if f.default is not dataclasses.MISSING else factory()
        out.append(OptionInfo(f.name, kind, default, choices))
    return out


def games() -> list[tuple[str, str, list[OptionInfo]]]:
    """(id, title, options) of every registered game."""
    from pbem.games import GAMES  # every game: imported when listed, not with this module

    return [(g.id, g.title, game_options(g.options_type)) for g in GAMES]
