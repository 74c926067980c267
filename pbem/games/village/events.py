"""Events several werewolf-family games share (each game lists them in its ``EVENT_TYPES``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pbem.core.events import Event
from pbem.core.ids import PlayerId


@dataclass(frozen=True)
class TallyPosted(Event):
    """A running tally went out (at most once per ``tally_min_interval``: LUP-D18, LG-D34,
    CAS-D21)."""

    at: datetime


@dataclass(frozen=True)
class LoversFormed(Event):
    """The two Lovers (LG-220, LG-368; CAS-330, CAS-D06): ``how`` is ``chosen`` by the card
    that links them (Cupidon, Coop) or ``random`` when it chose nobody (LG-D23, CAS-D06)."""

    lovers: tuple[PlayerId, ...]
    how: str = "chosen"
