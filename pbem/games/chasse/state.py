"""Chasse aux sorcières' events and state, and how each event changes the state."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pbem.core import moments
from pbem.core.events import ActionSet, Event, GameEnded, Notice, PhaseStarted, RolesDealt
from pbem.core.frozen import quick_init, replace
from pbem.core.ids import PlayerId
from pbem.core.match import fold
from pbem.core.phases import phase_of
from pbem.games.chasse.options import ChasseOptions
from pbem.games.chasse.roles import BILLIE, COLE, DEMON
from pbem.games.chasse.subphases import CHASSE_PHASES, NIGHT_PHASES, ChassePhase
from pbem.games.village.cards import LeftoverChanged, PowerSpent
from pbem.games.village.events import LoversFormed, TallyPosted
from pbem.games.village.state import (
    SHARED_FOLDS,
    Evolve,
    Seat,
    Village,
    action_set,
    unchanged,
)


@dataclass(frozen=True)
class PennyGiven(Event):
    """CAS-370, CAS-D19: the player whose vote counts double (drawn at setup)."""

    player: PlayerId


@dataclass(frozen=True)
class VictimFixed(Event):
    """CAS-411: the council's victim of this night, fixed at ``T_W1`` (None: no victim)."""

    night: int
    victim: PlayerId | None


@dataclass(frozen=True)
class Verdict(Event):
    """The lynch of a day (None: nobody) and how it was decided (CAS-403..CAS-407)."""

    day: int
    lynched: PlayerId | None
    how: str
    tied: tuple[PlayerId, ...] = ()
    decided_by: PlayerId | None = None


@dataclass(frozen=True)
class TieOpened(Event):
    """CAS-D20: a tie-break: who decides among ``tied``, ``choose`` the victim or ``spare``."""

    tied: tuple[PlayerId, ...]
    breaker: PlayerId
    mode: str
    until: datetime
    tally: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RevengeOpened(Event):
    """CAS-D18: Prue may retaliate until ``until``; ``after`` is ``dawn`` or ``lynch``."""

    prue: PlayerId
    until: datetime
    after: str


@dataclass(frozen=True)
class RevengeClosed(Event):
    """Prue's revenge made (``target``) or the window closed without one."""

    prue: PlayerId
    target: PlayerId | None


EVENT_TYPES: tuple[type[Event], ...] = (
    PennyGiven,
    LoversFormed,
    VictimFixed,
    Verdict,
    TieOpened,
    RevengeOpened,
    RevengeClosed,
    TallyPosted,
    PowerSpent,
    LeftoverChanged,
)
for _event_type in EVENT_TYPES:  # built at every step (issue 23)
    quick_init(_event_type)


_COUNCILS: list[tuple[Any, list[PlayerId]]] = []
"""The last few states' :meth:`ChasseState.council` (a state never changes; the memo holds
it, so its id cannot be reused while it is there)."""


@dataclass(frozen=True)
class ChasseState(Village):
    """Everything the rules need; built only by :meth:`ChasseAuxSorcieres.evolve`."""

    phase: ChassePhase = "setup"
    options: ChasseOptions = field(default_factory=ChasseOptions)
    leftover: tuple[str, ...] = ()
    dealt_leftover: tuple[str, ...] = ()
    penny: PlayerId | None = None
    lovers: tuple[PlayerId, ...] = ()
    victim: PlayerId | None = None
    spent: frozenset[str] = frozenset()
    lynched: tuple[PlayerId, ...] = ()
    tie: TieOpened | None = None
    revenge: RevengeOpened | None = None

    def alive(self, name: PlayerId) -> bool:
        """Whether ``name`` is still in the game."""
        return self.seats[name].alive

    def holder(self, role: str) -> PlayerId | None:
        """The first living holder of the card ``role`` in table order, or None."""
        found = self.holders(role)
        return found[0] if found else None

    def council(self) -> list[PlayerId]:
        """CAS-214, CAS-D10: the living Demons and Billie, in alphabetical order (so that the
        list's order never shows which one is Billie)."""
        for state, council in _COUNCILS:  # asked for every player at every step of a night
            if state is self:
                return list(council)
        members = [p for p in self.living() if self.seats[p].role in (DEMON, BILLIE)]
        council = sorted(members, key=fold)
        _COUNCILS.insert(0, (self, council))
        del _COUNCILS[4:]
        return list(council)

    def partner(self, player: PlayerId) -> PlayerId | None:
        """The other lover if ``player`` is one of the two, else None."""
        if player in self.lovers:
            return next(p for p in self.lovers if p != player)
        return None

    def cole_active(self) -> bool:
        """CAS-394, CAS-395: the Cole power runs until Cole becomes a Demon or is eliminated."""
        return COLE not in self.spent and self.holder(COLE) is not None

    def weight(self, player: PlayerId) -> int:
        """What ``player``'s vote counts: 2 for Penny's player, else 1 (CAS-401)."""
        return 2 if player == self.penny else 1  # CAS-401


def iso(moment: datetime) -> str:
    """A moment as the templates show it."""
    return moments.iso(moment)


def evolve(state: ChasseState, event: Event) -> ChasseState:
    """The state after ``event``."""
    fold = _BY_TYPE.get(type(event)) or _fold_of(type(event))
    return fold(state, event)  # type: ignore[no-any-return]


_SHARED_END = dict(SHARED_FOLDS)[GameEnded]


def _ended(state: ChasseState, event: GameEnded) -> ChasseState:
    ended: ChasseState = _SHARED_END(state, event)
    return replace(ended, revenge=None, tie=None)  # CAS-105: pending windows end


def _dealt(state: ChasseState, event: RolesDealt) -> ChasseState:
    seats = {p: Seat(p, event.roles[p], event.roles[p]) for p in state.order}
    return replace(state, seats=seats, leftover=event.leftover, dealt_leftover=event.leftover)


def _penny_given(state: ChasseState, event: PennyGiven) -> ChasseState:
    return replace(state, penny=event.player)


def _phase_started(state: ChasseState, event: PhaseStarted) -> ChasseState:
    return replace(
        state,
        phase=phase_of(event.phase, CHASSE_PHASES),
        number=event.number,
        deadlines=event.deadlines,
        actions={} if event.phase in NIGHT_PHASES else state.actions,
        victim=None if event.phase in ("L", "W1") else state.victim,
        votes={} if event.phase == "day" else state.votes,
        last_tally=None if event.phase == "day" else state.last_tally,
        tie=state.tie if event.phase == "tiebreak" else None,
    )


def _leftover_changed(state: ChasseState, event: LeftoverChanged) -> ChasseState:
    return replace(state, leftover=event.leftover)


def _power_spent(state: ChasseState, event: PowerSpent) -> ChasseState:
    return replace(state, spent=state.spent | {event.card})


def _lovers_formed(state: ChasseState, event: LoversFormed) -> ChasseState:
    return replace(state, lovers=event.lovers)


def _victim_fixed(state: ChasseState, event: VictimFixed) -> ChasseState:
    return replace(state, victim=event.victim)


def _verdict(state: ChasseState, event: Verdict) -> ChasseState:
    lynched = state.lynched + ((event.lynched,) if event.lynched else ())
    return replace(state, lynched=lynched, tie=None)


def _tie_opened(state: ChasseState, event: TieOpened) -> ChasseState:
    return replace(state, tie=event)


def _revenge_opened(state: ChasseState, event: RevengeOpened) -> ChasseState:
    return replace(state, revenge=event)


def _revenge_closed(state: ChasseState, event: RevengeClosed) -> ChasseState:
    return replace(state, revenge=None)


_EVOLVE = Evolve(
    [
        (Notice, unchanged),  # a message, folded by no rule: a third of the events (issue 23)
        *[(kind, _ended if kind is GameEnded else fold) for kind, fold in SHARED_FOLDS],
        (RolesDealt, _dealt),
        (PennyGiven, _penny_given),
        (PhaseStarted, _phase_started),
        (ActionSet, action_set),
        (LeftoverChanged, _leftover_changed),
        (PowerSpent, _power_spent),
        (LoversFormed, _lovers_formed),
        (VictimFixed, _victim_fixed),
        (Verdict, _verdict),
        (TieOpened, _tie_opened),
        (RevengeOpened, _revenge_opened),
        (RevengeClosed, _revenge_closed),
    ]
)
_BY_TYPE = _EVOLVE.by_type
_fold_of = _EVOLVE.fold_of


def evolve_all(events: Iterable[Event], state: ChasseState) -> ChasseState:
    """The state after ``events``, in order."""
    for event in events:
        state = evolve(state, event)
    return state
