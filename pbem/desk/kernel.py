"""The desk's generic mechanism: which events the rules see, and the deadlines in effect.

The game master's commands act on any game without touching its rules: their facts are kernel
events (:data:`pbem.core.events.KERNEL_EVENTS`) that the Table keeps out of the rules' fold.
A pause hides every deadline, an extension or a resumption moves one (``DeadlineMoved`` names
the deadline instance the rules set, so it never applies to a later phase's deadline of the
same key), a rollback voids a range of the log. All of it is pure: events in, views out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from pbem.core.errors import InvalidSyntax
from pbem.core.events import (
    KERNEL_EVENTS,
    DeadlineMoved,
    Event,
    Paused,
    PhaseClosed,
    Resumed,
    voided,
)


@dataclass
class Desk:
    """The desk's view of a log: pause, moved deadlines, the resolutions not voided."""

    paused_at: datetime | None = None
    moves: dict[tuple[str, datetime], datetime] = field(default_factory=dict)
    closes: list[int] = field(default_factory=list)
    """Raw indices of the ``PhaseClosed`` markers still in effect, in order."""

    def evolve(self, index: int, event: Event) -> None:
        """Fold one kernel event found at raw ``index``."""
        if isinstance(event, Paused):
            self.paused_at = event.at
        elif isinstance(event, Resumed):
            self.paused_at = None
        elif isinstance(event, DeadlineMoved):
            self.moves[(event.key, event.due)] = event.to
        elif isinstance(event, PhaseClosed):
            self.closes.append(index)

    def moved(self, due: datetime) -> datetime:
        """Where a deadline the rules set at ``due`` falls now."""
        return next((to for (_, was), to in self.moves.items() if was == due), due)

    def deadlines(self, ruled: Mapping[str, datetime]) -> dict[str, datetime]:
        """The deadlines in effect: none while paused, each moved one at its new time."""
        if self.paused_at is not None:
            return {}
        return {key: self.moves.get((key, due), due) for key, due in ruled.items()}


def is_kernel(event: Event) -> bool:
    """Whether the Table keeps ``event`` out of the rules' fold (a kernel event)."""
    cls = type(event)
    kernel = _KERNEL_CLASSES.get(cls)
    if kernel is None:  # once per event class: isinstance would try the whole tuple each time
        kernel = _KERNEL_CLASSES[cls] = issubclass(cls, KERNEL_EVENTS)
    return kernel


_KERNEL_CLASSES: dict[type, bool] = {}
"""Event class -> :func:`is_kernel` of its instances (bounded: the event classes)."""


def split(events: Sequence[Event]) -> tuple[list[Event], Desk]:
    """The events the rules fold (not kernel, not void), and the desk's view of the log."""
    void = voided(events)
    ruled: list[Event] = []
    desk = Desk()
    for index, event in enumerate(events):
        if is_kernel(event):
            if not (isinstance(event, PhaseClosed) and index in void):
                desk.evolve(index, event)
        elif index not in void:
            ruled.append(event)
    return ruled, desk


_UNITS = {
    **dict.fromkeys(("j", "d", "jour", "jours", "day", "days"), 86400),
    **dict.fromkeys(("h", "heure", "heures", "hour", "hours"), 3600),
    **dict.fromkeys(("m", "min", "mn", "minute", "minutes"), 60),
}
# a game master writes the unit in words as often as in letters (« PROLONGER 2 jours »,
# « EXTEND 3 hours »), and « 1 jour et 12 heures » / « 1 day and 12 hours » as one duration
_DURATION = re.compile(
    r"(\d+)(" + "|".join(sorted(_UNITS, key=len, reverse=True)) + r")?(?:(?:et|and|,)(?=\d))?",
    re.IGNORECASE,
)


def parse_duration(text: str) -> timedelta:
    """``24h``, ``2j``/``2d``, ``1h30``, ``90m``, ``3`` (hours), and the units in words in
    either language (``2 jours``, ``48 heures``, ``1 day and 12 hours``); InvalidSyntax
    otherwise."""
    compact = text.replace(" ", "").lower()
    if not compact:
        raise InvalidSyntax("desk_duration")
    seconds = 0
    pos = 0
    last_unit = ""
    for match in _DURATION.finditer(compact):
        if match.start() != pos:
            raise InvalidSyntax("desk_duration")
        unit = (match.group(2) or "").lower()
        if not unit:
            unit = "m" if last_unit == "h" else "h"  # "1h30": thirty minutes
        seconds += int(match.group(1)) * _UNITS[unit]
        last_unit = unit
        pos = match.end()
    if pos != len(compact) or seconds <= 0 or seconds > 366 * 86400:
        raise InvalidSyntax("desk_duration")
    return timedelta(seconds=seconds)
