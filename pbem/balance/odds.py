"""The odds table the project ships (``odds.json``, package data): each game's default setup
at each count from 8 to 18 players its rules accept, played by bots, with the sample size.

``pbem open-game`` and the sign-up post show a deck's odds from it (:func:`odds_for`), and
docs/balance.md is written from it. Rebuilt with::

    python -m pbem.balance.tablegen --games 2000   # then: python -m pbem.balance.docs
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Mapping
from datetime import timedelta
from importlib import resources
from typing import Any

from pbem.core.idle import IdleOptions

COUNTS = range(8, 19)
LEVELS = ("random", "informed")
NEUTRAL = {f.name for f in dataclasses.fields(IdleOptions)} | {
    "substitute_name",
    "observers",
    "lang",
}
"""Options that change no draw and no rule of play (the idle policy, a seat's name): a game
with only these (or durations) is the table's default setup."""


@functools.cache
def table() -> dict[str, Any]:
    """The shipped table ({} if absent)."""
    try:
        text = resources.files("pbem.balance").joinpath("odds.json").read_text("utf-8")
    except FileNotFoundError:
        return {}
    data: dict[str, Any] = json.loads(text)
    return data


def default_setup(options: Mapping[str, Any]) -> bool:
    """Whether ``options`` leave the rules of play at their defaults (the table's setups)."""
    return all(k in NEUTRAL or _duration(v) for k, v in options.items())


def _duration(value: Any) -> bool:
    return isinstance(value, timedelta) or (
        isinstance(value, str) and value[:-1].isdigit() and value[-1:] in "smhdw"
    )


def odds_for(
    game: str, count: int, options: Mapping[str, Any], cards: Mapping[str, int] | None = None
) -> dict[str, Any] | None:
    """The simulated camps' odds of ``game``'s default setup at ``count`` players (random
    bots): ``{"camps": [{"side", "rate"}...], "games": N}``; None if the table has no such
    setup, the options change the rules, or ``cards`` is not the deck the table played."""
    if not default_setup(options):
        return None
    entry = table().get("games", {}).get(game, {}).get(str(count))
    if entry is None or (cards is not None and dict(cards) != entry["deck"]):
        return None
    level = entry["random"]
    camps = [{"side": s, "rate": round(100 * c["rate"])} for s, c in level["camps"].items()]
    return {"camps": camps, "games": level["games"]}
