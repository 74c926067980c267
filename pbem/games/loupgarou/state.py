"""Loup-Garou's events and state, and how each event changes the state."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, get_args

from pbem.core import moments
from pbem.core.events import ActionSet, Event, Notice, PhaseStarted, RolesDealt
from pbem.core.frozen import quick_init, replace
from pbem.core.ids import PlayerId
from pbem.core.phases import phase_of
from pbem.games.loupgarou.options import LoupGarouOptions
from pbem.games.loupgarou.roles import CONDITIONS, INITIAL_TEAM, VILLAGERS, WOLVES
from pbem.games.village.events import LoversFormed, TallyPosted
from pbem.games.village.state import SHARED_FOLDS, Evolve, Seat, Village, unchanged


@dataclass(frozen=True)
class IdiotChosen(Event):
    """LG-013: the secret Village idiot (None when no Simple villageois is left to draw)."""

    player: PlayerId | None


@dataclass(frozen=True)
class BiteResolved(Event):
    """LG-203, LG-313..LG-317: ``outcome`` is young_wolf, elder, wolf or none."""

    target: PlayerId | None
    outcome: str


@dataclass(frozen=True)
class MayorElected(Event):
    """LG-502, LG-505: every player's vote (None: no vote) and the draw, if any (LG-D05)."""

    mayor: PlayerId
    votes: Mapping[str, str | None]
    drawn_among: tuple[PlayerId, ...] = ()


@dataclass(frozen=True)
class ElectionTied(Event):
    """LG-D05 ``runoff``: a second private vote limited to ``tied``."""

    tied: tuple[PlayerId, ...]


@dataclass(frozen=True)
class SashOpened(Event):
    """LG-404, LG-D31: the dead Mayor ``holder`` names a successor before ``due``."""

    holder: PlayerId
    due: datetime


@dataclass(frozen=True)
class MayorChanged(Event):
    """LG-404: the sash passed (``by`` the dead Mayor, or None when drawn, LG-D31)."""

    mayor: PlayerId
    by: PlayerId | None


@dataclass(frozen=True)
class CouncilClosed(Event):
    """LG-214, LG-512..LG-516: the victim fixed at ``T_A`` and how a tie was settled."""

    victim: PlayerId | None
    how: str
    drawn_among: tuple[PlayerId, ...] = ()


@dataclass(frozen=True)
class PotionUsed(Event):
    """LG-350: ``potion`` is life or death; each can be used once."""

    potion: str


@dataclass(frozen=True)
class ElderProtectionUsed(Event):
    """LG-380: the Ancien survived the Wolves once."""


@dataclass(frozen=True)
class Charmed(Event):
    """LG-221: newly Charmed players."""

    players: tuple[PlayerId, ...]


@dataclass(frozen=True)
class TeamChanged(Event):
    """LG-227, LG-324: the thief's transformation (a change of team, not of card)."""

    player: PlayerId
    team: str


@dataclass(frozen=True)
class PowersLost(Event):
    """LG-385, LG-D19: these players lose their identity's powers for good."""

    players: tuple[PlayerId, ...]


@dataclass(frozen=True)
class IdiotRevealed(Event):
    """LG-446: the Village idiot's condition triggered and is public from now on."""

    player: PlayerId


@dataclass(frozen=True)
class LynchTied(Event):
    """LG-527, LG-D32: the Mayor must choose among ``tied``."""

    tied: tuple[PlayerId, ...]


@dataclass(frozen=True)
class LynchDecided(Event):
    """LG-250..LG-252: who the vote designated (None: no lynch) and how a tie was settled."""

    day: int
    designated: PlayerId | None
    how: str


EVENT_TYPES: tuple[type[Event], ...] = (
    IdiotChosen,
    BiteResolved,
    MayorElected,
    ElectionTied,
    SashOpened,
    MayorChanged,
    CouncilClosed,
    PotionUsed,
    ElderProtectionUsed,
    LoversFormed,
    Charmed,
    TeamChanged,
    PowersLost,
    IdiotRevealed,
    LynchTied,
    LynchDecided,
    TallyPosted,
)
for _event_type in EVENT_TYPES:  # built at every step (issue 23)
    quick_init(_event_type)

LoupGarouPhase = Literal["setup", "bite", "election", "runoff", "night", "day", "tiebreak", "over"]
"""The setup's bite and Mayor election (and its runoff), the nights, the days and their
tie-break by the Mayor (LG-004, LG-500); ``over`` once ended."""
LOUPGAROU_PHASES: tuple[LoupGarouPhase, ...] = get_args(LoupGarouPhase)


@dataclass(frozen=True)
class LoupGarouState(Village):
    """Everything the rules need; built only by :meth:`LoupGarou.evolve`."""

    phase: LoupGarouPhase = "setup"
    options: LoupGarouOptions = field(default_factory=LoupGarouOptions)
    idiot: PlayerId | None = None
    idiot_revealed: bool = False
    young_wolf: PlayerId | None = None
    mayor: PlayerId | None = None
    sash_holder: PlayerId | None = None
    sash_due: datetime | None = None
    lovers: tuple[PlayerId, ...] = ()
    charmed: frozenset[PlayerId] = frozenset()
    elder_used: bool = False
    life_used: bool = False
    death_used: bool = False
    powerless: frozenset[PlayerId] = frozenset()
    council: tuple[PlayerId, ...] = ()
    previous_council: tuple[PlayerId, ...] = ()
    council_closed: bool = False
    council_seq: int = 0
    victim: PlayerId | None = None
    tied: tuple[PlayerId, ...] = ()

    def team(self, team: str, *, alive: bool = True) -> list[PlayerId]:
        """The players of ``team`` in table order (the living ones only when ``alive``)."""
        seats = self.seats
        return [p for p in self.order if seats[p].team == team and (seats[p].alive or not alive)]

    def actions_of(self, verb: str) -> list[ActionSet]:
        """The pending actions of ``verb``, in arrival order: the order of ``actions`` itself,
        which :func:`_action_set` keeps (a replaced order moves to the end, LG-603), so no
        sort is needed (issue 23: a tenth of a night's close re-sorted them)."""
        return [a for (_, v), (_, a) in self.actions.items() if v == verb]

    def powered(self, player: PlayerId) -> bool:
        """LG-385: the identity's powers are still there (the Ancien's death took them)."""
        return player not in self.powerless

    def conditions(self, player: PlayerId) -> list[str]:
        """LG-100: the player's conditions, in the spec's order."""
        has = {
            "mayor": self.mayor == player,
            "lover": player in self.lovers,
            "charmed": player in self.charmed,
            "young_wolf": self.young_wolf == player,
            "idiot": self.idiot == player,
        }
        return [c for c in CONDITIONS if has[c]]

    def lover_of(self, player: PlayerId) -> PlayerId | None:
        """The other lover if ``player`` is one of the two, else None."""
        if player in self.lovers and len(self.lovers) == 2:
            return self.lovers[1] if self.lovers[0] == player else self.lovers[0]
        return None


def iso(moment: datetime | None) -> str | None:
    """A moment as the templates show it (None stays None)."""
    return moments.iso(moment) if moment is not None else None


def evolve(state: LoupGarouState, event: Event) -> LoupGarouState:
    """The state after ``event``."""
    fold = _BY_TYPE.get(type(event)) or _fold_of(type(event))
    return fold(state, event)  # type: ignore[no-any-return]


def _dealt(state: LoupGarouState, event: RolesDealt) -> LoupGarouState:
    seats = {
        p: Seat(p, event.roles[p], event.roles[p], INITIAL_TEAM.get(event.roles[p], VILLAGERS))
        for p in state.order
    }
    return replace(state, seats=seats)


def _idiot_chosen(state: LoupGarouState, event: IdiotChosen) -> LoupGarouState:
    return replace(state, idiot=event.player)


def _bite_resolved(state: LoupGarouState, event: BiteResolved) -> LoupGarouState:
    seats = dict(state.seats)
    young = None
    if event.outcome == "young_wolf" and event.target is not None:
        young = event.target
        seats[young] = replace(seats[young], team=WOLVES)
    wolves = tuple(p for p in state.order if seats[p].team == WOLVES and seats[p].alive)
    return replace(state, seats=seats, young_wolf=young, council=wolves)


def _phase_started(state: LoupGarouState, event: PhaseStarted) -> LoupGarouState:
    night = event.phase == "night"
    fresh = event.phase in ("night", "election", "runoff", "day")
    council = state.council
    if night:
        council = tuple(state.team(WOLVES))  # LG-510
    return replace(
        state,
        phase=phase_of(event.phase, LOUPGAROU_PHASES),
        number=event.number,
        deadlines=event.deadlines,
        actions={} if fresh else state.actions,
        votes={} if event.phase in ("election", "runoff", "day") else state.votes,
        previous_council=state.council if night else state.previous_council,
        council=council,
        council_closed=False if night else state.council_closed,
        victim=None if night else state.victim,
        tied=state.tied if event.phase in ("tiebreak", "runoff") else (),
        last_tally=None if event.phase == "day" else state.last_tally,
    )


def _action_set(state: LoupGarouState, event: ActionSet) -> LoupGarouState:
    # LG-603: RIEN says "nothing (more) from me"; ANNULER withdraws an order. The order is
    # taken out and put back last, so the mapping stays in arrival (``seq``) order, which
    # LoupGarouState.actions_of reads.
    actions = dict(state.actions)
    actions.pop((event.actor, event.verb), None)
    actions[(event.actor, event.verb)] = (state.seq + 1, event)
    return replace(state, actions=actions, seq=state.seq + 1)


def _mayor_elected(state: LoupGarouState, event: MayorElected) -> LoupGarouState:
    deadlines = {k: v for k, v in state.deadlines.items() if k != "election"}
    return replace(state, mayor=event.mayor, deadlines=deadlines, votes={})


def _tied(state: LoupGarouState, event: ElectionTied | LynchTied) -> LoupGarouState:
    return replace(state, tied=event.tied)


def _sash_opened(state: LoupGarouState, event: SashOpened) -> LoupGarouState:
    deadlines = {**state.deadlines}
    return replace(state, sash_holder=event.holder, sash_due=event.due, deadlines=deadlines)


def _mayor_changed(state: LoupGarouState, event: MayorChanged) -> LoupGarouState:
    return replace(state, mayor=event.mayor, sash_holder=None, sash_due=None)


def _council_closed(state: LoupGarouState, event: CouncilClosed) -> LoupGarouState:
    deadlines = {k: v for k, v in state.deadlines.items() if k != "council"}
    return replace(
        state,
        victim=event.victim,
        council_closed=True,
        council_seq=state.seq,
        deadlines=deadlines,
    )


def _potion_used(state: LoupGarouState, event: PotionUsed) -> LoupGarouState:
    if event.potion == "life":
        return replace(state, life_used=True)
    return replace(state, death_used=True)


def _elder_protected(state: LoupGarouState, event: ElderProtectionUsed) -> LoupGarouState:
    return replace(state, elder_used=True)


def _lovers_formed(state: LoupGarouState, event: LoversFormed) -> LoupGarouState:
    return replace(state, lovers=event.lovers)


def _charmed(state: LoupGarouState, event: Charmed) -> LoupGarouState:
    return replace(state, charmed=state.charmed | frozenset(event.players))


def _team_changed(state: LoupGarouState, event: TeamChanged) -> LoupGarouState:
    seats = dict(state.seats)
    seats[event.player] = replace(seats[event.player], team=event.team)
    return replace(state, seats=seats)


def _powers_lost(state: LoupGarouState, event: PowersLost) -> LoupGarouState:
    return replace(state, powerless=state.powerless | frozenset(event.players))


def _idiot_revealed(state: LoupGarouState, event: IdiotRevealed) -> LoupGarouState:
    return replace(state, idiot_revealed=True)


_EVOLVE = Evolve(
    [
        (Notice, unchanged),  # a message, folded by no rule: a third of the events (issue 23)
        *SHARED_FOLDS,
        (RolesDealt, _dealt),
        (IdiotChosen, _idiot_chosen),
        (BiteResolved, _bite_resolved),
        (PhaseStarted, _phase_started),
        (ActionSet, _action_set),
        (MayorElected, _mayor_elected),
        (ElectionTied, _tied),
        (SashOpened, _sash_opened),
        (MayorChanged, _mayor_changed),
        (CouncilClosed, _council_closed),
        (PotionUsed, _potion_used),
        (ElderProtectionUsed, _elder_protected),
        (LoversFormed, _lovers_formed),
        (Charmed, _charmed),
        (TeamChanged, _team_changed),
        (PowersLost, _powers_lost),
        (IdiotRevealed, _idiot_revealed),
        (LynchTied, _tied),
    ]
)
_BY_TYPE = _EVOLVE.by_type
_fold_of = _EVOLVE.fold_of


def evolve_all(events: Iterable[Event], state: LoupGarouState) -> LoupGarouState:
    """The state after ``events``, in order."""
    for event in events:
        state = evolve(state, event)
    return state
