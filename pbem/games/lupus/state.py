"""Lupus in Tabula's events and state, and how each event changes the state."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, get_args

from pbem.core.events import ActionSet, Event, Notice, PhaseStarted, RolesDealt
from pbem.core.frozen import quick_init, replace
from pbem.core.ids import PlayerId
from pbem.core.phases import phase_of
from pbem.games.lupus.options import LupusOptions
from pbem.games.village.events import TallyPosted
from pbem.games.village.state import (
    SHARED_FOLDS,
    Evolve,
    Seat,
    Village,
    action_set,
    unchanged,
)


@dataclass(frozen=True)
class NightResolved(Event):
    """The night's decisions, with the draws made (LUP-D05), for the dawn notices."""

    victim: PlayerId | None
    drawn_among: tuple[PlayerId, ...]
    probe: PlayerId | None
    owl_pick: PlayerId | None


@dataclass(frozen=True)
class Nominated(Event):
    """Round-1 result (LUP-404, LUP-405, LUP-D16): nominees, Owl's pick and draws."""

    nominees: tuple[PlayerId, ...]
    owl: PlayerId | None
    counts: Mapping[str, int]
    draws: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class DayVerdict(Event):
    """Who the day lynched (None: nobody) and how a tie was settled (LUP-D17)."""

    day: int
    lynched: PlayerId | None
    how: str
    drawn_among: tuple[PlayerId, ...] = ()


EVENT_TYPES: tuple[type[Event], ...] = (NightResolved, Nominated, DayVerdict, TallyPosted)
for _event_type in EVENT_TYPES:  # built at every step (issue 23)
    quick_init(_event_type)


LupusPhase = Literal["setup", "night", "debate", "round1", "round2", "defence", "over"]
"""The night, the day's debate, its two ballots and the defence between them (LUP-004, LUP-400);
``over`` once ended."""
LUPUS_PHASES: tuple[LupusPhase, ...] = get_args(LupusPhase)
_PHASES: dict[str, LupusPhase] = {p: p for p in LUPUS_PHASES}
"""Each phase by its name (read at every phase's start); :func:`phase_of` refuses others."""


@dataclass(frozen=True)
class LupusState(Village):
    """Everything the rules need; built only by :meth:`LupusInTabula.evolve`."""

    phase: LupusPhase = "setup"
    options: LupusOptions = field(default_factory=LupusOptions)
    round1_counts: Mapping[str, int] = field(default_factory=dict)
    nominees: tuple[PlayerId, ...] = ()
    owl_pick: PlayerId | None = None
    lynched: Mapping[int, PlayerId | None] = field(default_factory=dict)

    def ghosts(self) -> list[PlayerId]:
        """Dead players who vote in round 1 (LUP-502, LUP-D22)."""
        options = self.options
        if not options.ghost_variant:
            return []
        seats, order = self.seats, self.order
        known = _GHOSTS[0]  # asked of every dead player at every round-1 turn (issue 23)
        if known[0] is seats and known[1] is order and known[2] is options:
            return list(known[3])
        ghosts = [
            p
            for p in order
            if not seats[p].alive
            and seats[p].cause != "removed"  # LUP-501: a removed player is gone (seats.md)
            and (options.ghost_includes_probe_death or seats[p].cause != "probe")
        ]
        _GHOSTS[0] = (seats, order, options, tuple(ghosts))
        return ghosts


_GHOSTS: list[tuple[object, object, object, tuple[PlayerId, ...]]] = [(None, None, None, ())]
"""The seats, order and options of the last state asked, and its ghosts (held here, so that
no other object has their ids)."""


def phase_started(phase: LupusPhase, number: int, end: datetime) -> PhaseStarted:
    """``PhaseStarted(phase, number, {phase: end})``, one frozen event for every game that
    opens this phase at this time (LUP-604: each phase has its one deadline): games set up
    alike open theirs at the same times, thousands of them in a balance run (issue 23). The
    deadlines' mapping is read only, as every state's."""
    key = (phase, number, end)
    found = _STARTED.get(key)
    if found is None:
        if len(_STARTED) >= 1024:  # bounded: a table's times change from game to game
            _STARTED.clear()
        found = _STARTED[key] = PhaseStarted(phase, number, {phase: end})
    return found


_STARTED: dict[tuple[str, int, datetime], PhaseStarted] = {}


def evolve(state: LupusState, event: Event) -> LupusState:
    """The state after ``event``."""
    fold = _BY_TYPE.get(type(event)) or _fold_of(type(event))
    return fold(state, event)  # type: ignore[no-any-return]


def _dealt(state: LupusState, event: RolesDealt) -> LupusState:
    seats = {p: Seat(p, event.roles[p], event.roles[p]) for p in state.order}
    return replace(state, seats=seats)


def _phase_started(state: LupusState, event: PhaseStarted) -> LupusState:
    fresh_night = event.phase == "night"
    return replace(
        state,
        phase=_PHASES.get(event.phase) or phase_of(event.phase, LUPUS_PHASES),
        number=event.number,
        deadlines=event.deadlines,
        actions={} if fresh_night else state.actions,
        votes={} if event.phase in ("round1", "round2") else state.votes,
        nominees=() if fresh_night else state.nominees,
        owl_pick=state.owl_pick if event.phase != "night" else None,
        last_tally=None if event.phase in ("round1", "round2") else state.last_tally,
    )


def _night_resolved(state: LupusState, event: NightResolved) -> LupusState:
    if event.owl_pick is None and state.owl_pick is None:
        return state  # no Owl's pick (a night's start clears it): the same state, not a copy
    return replace(state, owl_pick=event.owl_pick)


def _nominated(state: LupusState, event: Nominated) -> LupusState:
    counts = dict(event.counts)
    return replace(state, nominees=event.nominees, round1_counts=counts)


def _verdict(state: LupusState, event: DayVerdict) -> LupusState:
    return replace(state, lynched={**state.lynched, event.day: event.lynched})


_EVOLVE = Evolve(
    [
        (Notice, unchanged),  # a message, folded by no rule: a third of the events (issue 23)
        *SHARED_FOLDS,
        (RolesDealt, _dealt),
        (PhaseStarted, _phase_started),
        (ActionSet, action_set),
        (NightResolved, _night_resolved),
        (Nominated, _nominated),
        (DayVerdict, _verdict),
    ]
)
_BY_TYPE = _EVOLVE.by_type
_fold_of = _EVOLVE.fold_of


def evolve_all(events: Iterable[Event], state: LupusState) -> LupusState:
    """The state after ``events``, in order."""
    for event in events:
        state = evolve(state, event)
    return state
