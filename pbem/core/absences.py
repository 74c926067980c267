"""Declared absences and the phases a seat is forgiven (issue 25), read from the log.

A seat's *absence* (``ABSENCE du 12/01 au 14/01``, pbem/judge/absence.py) is a range of whole
days in the game's time zone, kept as the ``AbsenceDeclared`` events not cancelled since. A
phase closes with the seats the rules still await (the ``PhaseClosed`` marker, the idle count's
fact, pbem/core/idle.py); :func:`excused` says which of them the close must not hold to
account, and why:

- ``absence``: the close falls inside the seat's declared absence;
- a cause the daemon recorded in the phase (``Unheard``): his mail bounced (``bounce``), was
  held (``held``, ``oversize``, ``dkim``, ``confirmation``), or the daemon was down across the
  deadline (``outage``, every seat);
- ``paused``: the game master's pause covered the deadline (every seat).

All of it is a pure function of the log and the close's time, so that the close the daemon
ran and the close ``pbem verify`` runs again record the same seats.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo

from pbem.core.events import (
    AbsenceCancelled,
    AbsenceDeclared,
    DeadlineMoved,
    Event,
    Paused,
    PhaseClosed,
    Resumed,
    Unheard,
    voided,
)
from pbem.core.ids import PlayerId


@dataclass(frozen=True)
class Absence:
    """One absence in effect: ``seat`` is away from ``start`` (included) to ``end`` (excluded)."""

    seat: PlayerId
    start: datetime
    end: datetime
    days: int
    reason: str = ""

    def covers(self, moment: datetime) -> bool:
        """Whether the absence is in effect at ``moment``."""
        return self.start <= moment < self.end

    def overlaps(self, start: datetime, end: datetime) -> bool:
        """Whether the absence shares some time with ``start``..``end`` (end excluded)."""
        return self.start < end and start < self.end


def absences(events: Iterable[Event]) -> list[Absence]:
    """The absences in effect in the log ``events``, in the order they were declared."""
    out: dict[tuple[PlayerId, datetime], Absence] = {}
    for event in events:
        if isinstance(event, AbsenceDeclared):
            key = (event.seat, event.start)
            out[key] = Absence(event.seat, event.start, event.end, event.days, event.reason)
        elif isinstance(event, AbsenceCancelled):
            out.pop((event.seat, event.start), None)
    return list(out.values())


def away_at(events: Iterable[Event], moment: datetime) -> set[PlayerId]:
    """The seats whose declared absence covers ``moment`` (no reminder for them)."""
    return {a.seat for a in absences(events) if a.covers(moment)}


def days_used(all_absences: Iterable[Absence], seat: PlayerId) -> int:
    """The days of the allowance ``seat``'s absences take."""
    return sum(a.days for a in all_absences if a.seat == seat)


def day_range(first: date, last: date, zone: tzinfo) -> tuple[datetime, datetime, int]:
    """The instants an absence from ``first`` to ``last`` (whole days in ``zone``) begins and
    ends (the midnight after its last day), and its number of days."""
    start = datetime.combine(first, time(), zone)
    end = datetime.combine(last + timedelta(days=1), time(), zone)
    return start, end, (last - first).days + 1


def after_absences(
    due: datetime, seats: Iterable[PlayerId], all_absences: Sequence[Absence]
) -> datetime:
    """Where a deadline ``due`` falls once moved out of the absences of ``seats`` (the
    ``extend`` mode): the same hour on the first day after the absence it falls in, again
    while that day falls in another; ``due`` itself when it falls in none."""
    mine = [a for a in all_absences if a.seat in set(seats)]
    for _ in range(len(mine) + 1):  # each absence moves it at most once
        inside = next((a for a in mine if a.covers(due)), None)
        if inside is None:
            return due
        zone = due.tzinfo
        local = due.astimezone(inside.end.tzinfo)
        wall = datetime.combine(inside.end.date(), local.time(), inside.end.tzinfo)
        due = wall.astimezone(zone) if zone is not None else wall
    return due


def excused(
    log: Sequence[Event],
    awaited: Iterable[PlayerId],
    moment: datetime,
    deadline: tuple[str, datetime] | None = None,
) -> dict[PlayerId, str]:
    """The seats among ``awaited`` that the close at ``moment`` does not count idle, and why
    (the module's causes). ``log``: the whole log before the close; ``deadline``: the rules'
    key and time of the deadline that closes (None for one the game master closed early)."""
    awaited = list(awaited)
    if not awaited or not may_excuse(log):  # most closes
        return {}
    void = voided(log)
    start = 0
    for index in range(len(log) - 1, -1, -1):
        if isinstance(log[index], PhaseClosed) and index not in void:
            start = index + 1
            break
    phase = [e for i, e in enumerate(log[start:], start) if i not in void]
    out: dict[PlayerId, str] = {}
    for event in phase:
        if isinstance(event, Unheard):
            for seat in awaited if not event.seat else [PlayerId(event.seat)]:
                if seat in awaited:
                    out.setdefault(seat, event.cause)
    if deadline is not None and _paused_across(log, phase, deadline):
        for seat in awaited:
            out.setdefault(seat, "paused")
    for absence in absences(log):
        if absence.seat in awaited and absence.covers(moment):
            out[absence.seat] = "absence"
    return out


_CAUSES = frozenset({AbsenceDeclared, Unheard, Paused})
"""The events without which no close excuses anyone."""


def may_excuse(events: Iterable[Event]) -> bool:
    """Whether ``events`` hold a cause :func:`excused` reads (without one, a close excuses
    nobody): one pass in C."""
    return not _CAUSES.isdisjoint(map(type, events))


def _paused_across(
    log: Sequence[Event], phase: Sequence[Event], deadline: tuple[str, datetime]
) -> bool:
    """Whether a pause of the phase covered its deadline as it stood (the rules' time, or
    where the game master had moved it): the players had no deadline to answer then."""
    key, due = deadline
    times = {due} | {
        e.to for e in log if isinstance(e, DeadlineMoved) and (e.key, e.due) == (key, due)
    }
    paused: datetime | None = None
    for event in phase:
        if isinstance(event, Paused):
            paused = event.at
        elif isinstance(event, Resumed) and paused is not None:
            if any(paused <= t <= event.at for t in times):
                return True
            paused = None
    return paused is not None and any(paused <= t for t in times)
