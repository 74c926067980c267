"""The players' rules page of each game, in each language (``REGLES`` / ``RULES``).

The same text as ``docs/players/<game>.<lang>.md`` (a test keeps the two equal), shipped as
package data so that the command works from an installed wheel.
"""

from __future__ import annotations

import dataclasses
from importlib import resources
from typing import Any


def rules_page(game: str, lang: str) -> str:
    """The rules page of ``game`` (its id) in ``lang``, then the moderator's services every game
    shares (issue 25, ``services.<lang>.md``); English when there is none in ``lang``."""
    return f"{_page(game, lang)}\n\n{_page('services', lang)}"


def _page(name: str, lang: str) -> str:
    folder = resources.files(__name__)
    page = folder / f"{name}.{lang}.md"
    if not page.is_file():
        page = folder / f"{name}.en.md"
    return page.read_text(encoding="utf-8").strip()


def options_in_use(options: Any) -> dict[str, Any]:
    """The options of a game that differ from their defaults (name -> value), durations as
    timedelta: what a rules page adds for this game."""
    if not dataclasses.is_dataclass(options) or isinstance(options, type):
        return {}
    changed: dict[str, Any] = {}
    for f in dataclasses.fields(options):
        default = f.default
        if default is dataclasses.MISSING and f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        value = getattr(options, f.name)
        if value != default:
            changed[f.name] = value
    return changed


__all__ = ["options_in_use", "rules_page"]
