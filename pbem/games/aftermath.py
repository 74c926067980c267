"""What removing a seat triggers in a game: the result of each game's removal hook."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pbem.core.events import Event


@dataclass(frozen=True)
class Aftermath:
    """What a removal triggers in a game, after the seat's death is folded."""

    events: tuple[Event, ...] = ()
    """Folded before the announcement: withdrawn orders, grief deaths, a new Mayor..."""
    deaths: tuple[Mapping[str, Any], ...] = ()
    """The other seats the removal killed (``name``, ``role``, ``cause``), for the post."""
    ending: tuple[Event, ...] = ()
    """After the announcement: the game's own notices and, if it is over, its end."""
    params: Mapping[str, Any] = field(default_factory=dict)
    """Extra facts for the announcement (``mayor``: the Mayor drawn in the seat's place)."""
