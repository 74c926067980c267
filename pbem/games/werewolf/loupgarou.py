"""Loup-Garou, « règles pas du tout condensées » (16 players): ``docs/rules/loup-garou.md``.

The spec's rule IDs are cited where a line implements a decision that is not obvious.
Phases, each closed by its deadline (LG-604): ``bite`` -> ``election`` -> ``night`` (sub-phase A
until the ``council`` deadline, sub-phase B until ``night``, LG-213) -> ``day`` (-> ``tiebreak``)
-> ``night`` ... The dead Mayor's ``sash`` deadline runs beside them (LG-D31).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Literal

from pbem.core.commands import Command, CommandSpec, Player, Players, Text, Word, find_spec
from pbem.core.errors import IllegalNow, InvalidSyntax, ListClosed, SetupError
from pbem.core.events import (
    ActionCleared,
    ActionSet,
    Event,
    GameCreated,
    GameEnded,
    PhaseStarted,
    PlayerDied,
    RolesDealt,
    VoteSet,
    private,
    public,
)
from pbem.core.game import GameSpec, Rules
from pbem.core.ids import PlayerId
from pbem.core.match import fold
from pbem.core.options import options_to_json, parse_options
from pbem.core.outcome import Outcome, Termination
from pbem.core.resolve import Intent, Veto, resolve
from pbem.games.werewolf.base import (
    bold_name,
    deal,
    fold_shared,
    plurality,
    tally_params,
    weighted_plurality,
)

WOLF, MASTER, VILLAGER, THIEF = "werewolf", "master_wolf", "villager", "thief"
SEER, WITCH, GIRL, ELDER, PIPER = "seer", "witch", "little_girl", "elder", "pied_piper"
ROLES = (WOLF, MASTER, VILLAGER, THIEF, SEER, WITCH, GIRL, ELDER, PIPER)

# LG-010: the deck, one card per player.
DECK: Mapping[str, int] = {
    WOLF: 1,
    MASTER: 1,
    VILLAGER: 8,
    THIEF: 1,
    SEER: 1,
    WITCH: 1,
    GIRL: 1,
    ELDER: 1,
    PIPER: 1,
}

VILLAGERS, WOLVES, PIPER_SIDE, LOVERS = "villagers", "wolves", "pied_piper", "lovers"
# LG-011: the initial team of each identity (every other identity is a Villager).
INITIAL_TEAM: Mapping[str, str] = {WOLF: WOLVES, MASTER: WOLVES, PIPER: PIPER_SIDE}
# LG-D19: the identities whose powers the Ancien's death takes from a Villager.
POWERED = (SEER, WITCH, GIRL, THIEF)
# LG-224, LG-225: the priorities of the night's intents in the kernel's loop (lower first).
NIGHT_ORDER: Mapping[str, int] = {"wolves": 5, "poison": 6}
# Section 4.3 as a table: the night's steps in the order they resolve (the attacks step runs
# the kernel's loop on the wolves' and the potion's intents, ordered by NIGHT_ORDER).
NIGHT_STEPS = ("lovers", "charm", "scan", "ask", "attacks", "grief", "become")
# LG-115, LG-116: which sides each checkpoint examines, in priority order.
CHECKPOINTS: Mapping[str, tuple[str, ...]] = {
    "dawn": (LOVERS, PIPER_SIDE, WOLVES, VILLAGERS),
    "lynch": (LOVERS, WOLVES, VILLAGERS),
}
# LG-211, LG-321, LG-322: the thief's nights and the choices open on each.
THIEF_NIGHTS: Mapping[int, tuple[str, ...]] = {2: ("wolf",), 7: ("wolf", "villager")}
CONDITIONS = ("mayor", "lover", "charmed", "young_wolf", "idiot")

QUESTIONS: Mapping[str, tuple[str, ...]] = {  # LG-617, LG-618
    "wolves": ("LOUPS", "WOLVES", "LOUP", "WOLF", "1"),
    "seer": ("VOYANTE", "SEER", "2"),
    "piper": ("FLUTE", "PIPER", "JOUEUR DE FLUTE", "3"),
    "conditions": ("CONDITIONS", "CONDITION", "4"),
}
BECOME: Mapping[str, tuple[str, ...]] = {  # LG-621
    "wolf": ("LOUP", "WOLF", "LOUP-GAROU", "WEREWOLF"),
    "villager": ("VILLAGEOIS", "VILLAGER"),
}
# How a reply restates them (French, English).
QUESTION_LABELS: Mapping[str, tuple[str, str]] = {
    "wolves": ("LOUPS", "WOLVES"),
    "seer": ("VOYANTE", "SEER"),
    "piper": ("FLUTE", "PIPER"),
    "conditions": ("CONDITIONS", "CONDITIONS"),
}
BECOME_LABELS: Mapping[str, tuple[str, str]] = {
    "wolf": ("LOUP", "WOLF"),
    "villager": ("VILLAGEOIS", "VILLAGER"),
}
# LG-D42: words a nickname may not be (besides the command keywords the engine checks).
RESERVED = {fold(w) for words in (*QUESTIONS.values(), *BECOME.values()) for w in words}


@dataclass(frozen=True)
class LoupGarouOptions:
    """The configuration table of the spec's section 9, with its defaults."""

    custom_deck: tuple[str, ...] = ()
    election_concurrent_with_night1: bool = False
    bite_window: timedelta = timedelta(hours=24)
    election_window: timedelta = timedelta(hours=24)
    mayor_election_tie: Literal["random", "runoff"] = "random"
    wolves_list_detail: Literal["names_and_identities", "names_only", "names_and_status"] = (
        "names_and_identities"
    )
    night_council_duration: timedelta = timedelta(hours=12)
    night_witch_duration: timedelta = timedelta(hours=6)
    day_duration: timedelta = timedelta(hours=48)
    seer_result_timing: Literal["dawn", "immediate"] = "dawn"
    send_results_to_dead: bool = False
    thief_vote_weight: float = 0.5
    thief_weight_when_bitten: bool = True
    wolves_tie_fallback: Literal["random", "no_victim"] = "random"
    witch_self_poison: bool = False
    elder_told_when_witch_saves: bool = False
    notify_spied_when_empty: bool = True
    lovers_if_missing: Literal["none", "random"] = "none"
    charmed_know_each_other: bool = False
    parity_counts_piper: bool = False
    everyone_dead: Literal["draw"] = "draw"
    reveal_all_at_end: bool = True
    idiot_after_bite: bool = False
    sash_window: timedelta = timedelta(hours=6)
    mayor_tiebreak_window: timedelta = timedelta(hours=2)
    self_vote_allowed: bool = True
    vote_changes_allowed: bool = True
    tally_min_interval: timedelta = timedelta(minutes=15)
    list_closed_at_night: bool = True
    early_close: bool = False
    early_close_day: bool = False


# -- events of this game -------------------------------------------------------------------


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
class LoversFormed(Event):
    """LG-220, LG-368 (``drawn`` with ``lovers_if_missing`` = random, LG-D23)."""

    lovers: tuple[PlayerId, ...]
    drawn: bool = False


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


@dataclass(frozen=True)
class TallyPosted(Event):
    """LG-D34: a running tally went out (at most once per ``tally_min_interval``)."""

    at: datetime


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


# -- state -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Seat:
    """One player: the card (never changes, LG vocabulary), the team (may change), life."""

    name: PlayerId
    role: str
    team: str
    alive: bool = True
    cause: str | None = None


@dataclass(frozen=True)
class LoupGarouState:
    """Everything the rules need; built only by :meth:`LoupGarou.evolve`."""

    options: LoupGarouOptions = field(default_factory=LoupGarouOptions)
    lang: str = "fr"
    order: tuple[PlayerId, ...] = ()
    seats: Mapping[PlayerId, Seat] = field(default_factory=dict)
    phase: str = "setup"
    number: int = 0
    deadlines: Mapping[str, datetime] = field(default_factory=dict)
    actions: Mapping[tuple[PlayerId, str], tuple[int, ActionSet]] = field(default_factory=dict)
    seq: int = 0
    votes: Mapping[PlayerId, PlayerId] = field(default_factory=dict)
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
    last_tally: datetime | None = None
    outcome: Outcome | None = None

    def seat(self, name: PlayerId) -> Seat:
        return self.seats[name]

    def living(self) -> list[PlayerId]:
        return [p for p in self.order if self.seats[p].alive]

    def holders(self, role: str, *, alive: bool = True) -> list[PlayerId]:
        return [
            p
            for p in self.order
            if self.seats[p].role == role and (self.seats[p].alive or not alive)
        ]

    def team(self, team: str, *, alive: bool = True) -> list[PlayerId]:
        return [
            p
            for p in self.order
            if self.seats[p].team == team and (self.seats[p].alive or not alive)
        ]

    def action(self, actor: PlayerId, verb: str) -> ActionSet | None:
        found = self.actions.get((actor, verb))
        return found[1] if found else None

    def actions_of(self, verb: str) -> list[ActionSet]:
        """The pending actions of ``verb``, in arrival order."""
        return [
            a
            for (_, v), (_, a) in sorted(self.actions.items(), key=lambda kv: kv[1][0])
            if v == verb
        ]

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
        if player in self.lovers and len(self.lovers) == 2:
            return self.lovers[1] if self.lovers[0] == player else self.lovers[0]
        return None


@dataclass
class _Night:
    """A night being resolved: the state as its steps change it, and what the dawn reports."""

    rules: Rules[LoupGarouState]
    start: LoupGarouState
    rng: random.Random
    s: LoupGarouState = field(init=False)
    events: list[Event] = field(default_factory=list)
    lovers_formed: bool = False
    charm_targets: tuple[PlayerId, ...] = ()
    newly_charmed: tuple[PlayerId, ...] = ()
    scan: ActionSet | None = None
    question: ActionSet | None = None
    answer: dict[str, Any] | None = None
    spied: list[PlayerId] = field(default_factory=list)
    elder_escaped: list[PlayerId] = field(default_factory=list)
    elder_saved_by_witch: list[PlayerId] = field(default_factory=list)
    thief_result: tuple[PlayerId, str] | None = None

    def __post_init__(self) -> None:
        self.s = self.start

    def emit(self, *new: Event) -> None:
        for event in new:
            self.s = self.rules.evolve(self.s, event)
            self.events.append(event)


_PLAYER = (Player(),)
COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("bite", ("MORDRE",), ("BITE",), _PLAYER),  # LG-610
    CommandSpec("mayor", ("MAIRE",), ("MAYOR",), _PLAYER),  # LG-611
    CommandSpec("kill", ("TUER",), ("KILL",), _PLAYER),  # LG-612
    CommandSpec("pack", ("LOUPS",), ("PACK",), (Text(),)),  # LG-613
    CommandSpec("scan", ("SONDER",), ("SCAN",), _PLAYER),  # LG-614
    CommandSpec("save", ("SAUVER",), ("SAVE",), (Player(optional=True),)),  # LG-615
    CommandSpec("poison", ("EMPOISONNER",), ("POISON",), _PLAYER),  # LG-616
    CommandSpec(
        "ask",
        ("QUESTION",),
        ("ASK",),
        (Word(QUESTIONS, labels=QUESTION_LABELS), Player(optional=True)),
    ),  # LG-617, LG-618
    CommandSpec("lovers", ("AMOUREUX",), ("LOVERS",), (Players(2),)),  # LG-619
    CommandSpec("charm", ("ENVOUTER",), ("CHARM",), (Players(2, at_most=True),)),  # LG-620
    CommandSpec(
        "become", ("DEVENIR",), ("BECOME",), (Word(BECOME, labels=BECOME_LABELS),)
    ),  # LG-621
    CommandSpec("vote", ("VOTE", "VOTER"), ("VOTE",), _PLAYER, public=True),  # LG-622
    CommandSpec("unvote", ("RETIRER",), ("UNVOTE",), (), public=True),  # LG-623
    CommandSpec("decide", ("TRANCHER",), ("DECIDE",), _PLAYER, public=True),  # LG-624
    CommandSpec("sash", ("ECHARPE",), ("SASH",), _PLAYER),  # LG-625
)
# The night verbs and the identity that holds each (the council's are by team, LG-510).
NIGHT_ROLES: Mapping[str, str] = {
    "scan": SEER,
    "save": WITCH,
    "poison": WITCH,
    "ask": GIRL,
    "lovers": GIRL,
    "charm": PIPER,
    "become": THIEF,
}


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _deck(options: LoupGarouOptions, count: int) -> list[str]:
    """LG-010, LG-002, LG-D01: the 16-card deck, or a custom deck of one card per player."""
    if options.custom_deck:
        deck = list(options.custom_deck)
        unknown = sorted(set(deck) - set(ROLES))
        if unknown:
            raise SetupError(f"custom_deck: unknown role {unknown[0]!r}")
        if deck.count(MASTER) != 1:
            raise SetupError("custom_deck: exactly one master_wolf (LG-D01)")
        if len(deck) != count:
            raise SetupError(f"custom_deck: {len(deck)} cards for {count} players (LG-D01)")
        return deck
    if count != sum(DECK.values()):
        raise SetupError(f"Loup-Garou is played by exactly 16 players, not {count} (LG-002)")
    return [role for role, n in DECK.items() for _ in range(n)]


class LoupGarou(Rules[LoupGarouState]):
    """Loup-Garou, every rule LG-001..LG-760 with the spec's decisions as defaults."""

    id = "loup-garou"
    title = "Loup-Garou"
    options_type = LoupGarouOptions
    templates = "loupgarou"
    roles = ROLES
    commands = COMMANDS
    event_types = EVENT_TYPES
    reserved = tuple(sorted(RESERVED))  # LG-D42: the engine refuses them at setup too

    # -- state ----------------------------------------------------------------------------

    def new_state(self) -> LoupGarouState:
        return LoupGarouState()

    def evolve(self, state: LoupGarouState, event: Event) -> LoupGarouState:
        shared = fold_shared(state, event)
        if shared is not None:
            return shared
        match event:
            case GameCreated():
                return replace(
                    state,
                    options=parse_options(LoupGarouOptions, event.options),
                    lang=event.lang,
                    order=event.players,
                )
            case RolesDealt():
                seats = {
                    p: Seat(p, event.roles[p], INITIAL_TEAM.get(event.roles[p], VILLAGERS))
                    for p in state.order
                }
                return replace(state, seats=seats)
            case IdiotChosen():
                return replace(state, idiot=event.player)
            case BiteResolved():
                seats = dict(state.seats)
                young = None
                if event.outcome == "young_wolf" and event.target is not None:
                    young = event.target
                    seats[young] = replace(seats[young], team=WOLVES)
                wolves = tuple(p for p in state.order if seats[p].team == WOLVES and seats[p].alive)
                return replace(state, seats=seats, young_wolf=young, council=wolves)
            case PhaseStarted():
                night = event.phase == "night"
                fresh = event.phase in ("night", "election", "runoff", "day")
                council = state.council
                if night:
                    council = tuple(state.team(WOLVES))  # LG-510
                return replace(
                    state,
                    phase=event.phase,
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
            case ActionSet():
                # LG-603: RIEN says "nothing (more) from me"; ANNULER withdraws an order.
                actions = dict(state.actions)
                actions.pop((event.actor, event.verb), None)
                actions[(event.actor, event.verb)] = (state.seq + 1, event)
                return replace(state, actions=actions, seq=state.seq + 1)
            case MayorElected():
                deadlines = {k: v for k, v in state.deadlines.items() if k != "election"}
                return replace(state, mayor=event.mayor, deadlines=deadlines, votes={})
            case ElectionTied():
                return replace(state, tied=event.tied)
            case SashOpened():
                deadlines = {**state.deadlines}
                return replace(
                    state, sash_holder=event.holder, sash_due=event.due, deadlines=deadlines
                )
            case MayorChanged():
                return replace(state, mayor=event.mayor, sash_holder=None, sash_due=None)
            case CouncilClosed():
                deadlines = {k: v for k, v in state.deadlines.items() if k != "council"}
                return replace(
                    state,
                    victim=event.victim,
                    council_closed=True,
                    council_seq=state.seq,
                    deadlines=deadlines,
                )
            case PotionUsed():
                if event.potion == "life":
                    return replace(state, life_used=True)
                return replace(state, death_used=True)
            case ElderProtectionUsed():
                return replace(state, elder_used=True)
            case LoversFormed():
                return replace(state, lovers=event.lovers)
            case Charmed():
                return replace(state, charmed=state.charmed | frozenset(event.players))
            case TeamChanged():
                seats = dict(state.seats)
                seats[event.player] = replace(seats[event.player], team=event.team)
                return replace(state, seats=seats)
            case PowersLost():
                return replace(state, powerless=state.powerless | frozenset(event.players))
            case IdiotRevealed():
                return replace(state, idiot_revealed=True)
            case LynchTied():
                return replace(state, tied=event.tied)
            case TallyPosted():
                return replace(state, last_tally=event.at)
        return state

    # -- setup (LG-200..LG-207) --------------------------------------------------------------

    def setup(self, spec: GameSpec, now: datetime, rng: random.Random) -> list[Event]:
        options = parse_options(LoupGarouOptions, spec.options)
        if options.election_concurrent_with_night1 and options.mayor_election_tie == "runoff":
            raise SetupError(
                "a runoff needs its own window: not with election_concurrent_with_night1"
            )
        if spec.leftover:
            raise SetupError("Loup-Garou deals every card: no leftover")
        players = tuple(p.name for p in spec.players)
        for name in players:
            if fold(name) in RESERVED:
                raise SetupError(f"player name {name!r} is a reserved word (LG-D42)")
        deck = _deck(options, len(players))
        roles, _ = deal(players, deck, rng, spec.roles, ROLES)  # LG-012
        created = GameCreated(
            self.id,
            players,
            {p.name: p.lang for p in spec.players},
            options_to_json(options),
            spec.lang,
        )
        dealt = RolesDealt(roles)
        events: list[Event] = [created, dealt]
        if not options.idiot_after_bite:  # LG-013, LG-D30 (1): before the bite
            events.append(self._draw_idiot(roles, rng, players))
        bite_end = now + options.bite_window
        election_end = bite_end + options.election_window
        counts = Counter(deck)
        events.append(  # LG-700
            public(
                "loupgarou/opening",
                "setup",
                players=list(players),
                deck=[{"role": r, "count": counts[r]} for r in ROLES if counts[r]],
                bite_end=_iso(bite_end),
                election_end=_iso(election_end),
            )
        )
        for p in players:  # LG-701: identity only; the idiot is not told (LG-441)
            role = roles[p]
            events.append(
                private(
                    "loupgarou/role",
                    [p],
                    "setup",
                    role=role,
                    team=INITIAL_TEAM.get(role, VILLAGERS),
                    bite_end=_iso(bite_end) if role == MASTER else None,
                )
            )
        events.append(PhaseStarted("bite", 0, {"bite": bite_end}))  # LG-201
        return events

    @staticmethod
    def _draw_idiot(
        roles: Mapping[str, str], rng: random.Random, pool: Sequence[PlayerId]
    ) -> IdiotChosen:
        simple = [p for p in pool if roles[p] == VILLAGER]
        return IdiotChosen(rng.choice(simple) if simple else None)  # LG-D01: maybe none

    # -- deadlines ------------------------------------------------------------------------------

    def deadlines(self, state: LoupGarouState) -> Mapping[str, datetime]:
        if state.outcome is not None:
            return {}
        found = dict(state.deadlines)
        if state.sash_holder is not None and state.sash_due is not None:
            found["sash"] = state.sash_due
        return found

    def on_deadline(
        self, state: LoupGarouState, key: str, now: datetime, rng: random.Random
    ) -> list[Event]:
        if key not in self.deadlines(state):
            return []
        if key == "sash":
            return self._draw_successor(state, rng)
        match (state.phase, key):
            case ("bite", "bite"):
                return self._close_bite(state, now, rng)
            case ("election", "election") | ("runoff", "runoff") | ("night", "election"):
                return self._close_election(state, now, rng)
            case ("night", "council"):
                return self._close_council(state, rng)
            case ("night", "night"):
                events: list[Event] = []
                if "election" in state.deadlines:  # LG-D02: the Mayor is known by dawn
                    events = self._close_election(state, now, rng)
                    state = self.fold(events, state)
                if not state.council_closed:  # both deadlines at once: A closes first
                    closing = self._close_council(state, rng)
                    events += closing
                    state = self.fold(closing, state)
                return events + self._resolve_night(state, now, rng)
            case ("day", "day"):
                return self._close_day(state, now, rng)
            case ("tiebreak", "tiebreak"):
                return self._close_tiebreak(state, now, rng)
        return []

    def _close_bite(self, state: LoupGarouState, now: datetime, rng: random.Random) -> list[Event]:
        """LG-203, LG-204, LG-313..LG-317, LG-703, LG-704, then the election (LG-705)."""
        o = state.options
        events: list[Event] = []
        masters = state.holders(MASTER)
        chosen = next((a for m in masters if (a := state.action(m, "bite"))), None)
        target = chosen.targets[0] if chosen else None
        outcome = "none"
        if target is not None:
            seat = state.seat(target)
            if seat.team == WOLVES:
                outcome = "wolf"  # LG-313
            elif seat.role == ELDER:
                outcome = "elder"  # LG-317, LG-384
            else:
                outcome = "young_wolf"  # LG-314, LG-315, LG-316
        resolved = BiteResolved(target, outcome)
        events.append(resolved)
        after = self.evolve(state, resolved)
        if o.idiot_after_bite:  # LG-D30 alternative: among the Simple villageois still Villagers
            pool = [p for p in after.order if after.seat(p).team == VILLAGERS]
            idiot = self._draw_idiot({p: after.seat(p).role for p in after.order}, rng, pool)
            events.append(idiot)
            after = self.evolve(after, idiot)
        if outcome == "young_wolf" and target is not None:  # LG-703
            events.append(
                private("loupgarou/bitten", [target], "setup", role=state.seat(target).role)
            )
        elif outcome == "elder" and target is not None:
            events.append(private("loupgarou/elder_bitten", [target], "setup"))
            events.append(private("loupgarou/master_elder", masters, "setup", elder=target))
        wolves = after.team(WOLVES)
        for wolf in wolves:  # LG-204, LG-704, LG-D04
            events.append(
                private(
                    "loupgarou/wolves_list",
                    [wolf],
                    "setup",
                    wolves=self._wolf_list(after, wolves),
                    detail=o.wolves_list_detail,
                )
            )
        if o.election_concurrent_with_night1:  # LG-D02 alternative: during Night 1
            end = now + o.night_council_duration + o.night_witch_duration
            events.append(public("loupgarou/election_open", "setup", deadline=_iso(end)))
            return events + self._start_night(after, 1, now, {"election": end})
        end = now + o.election_window
        events.append(PhaseStarted("election", 0, {"election": end}))
        events.append(public("loupgarou/election_open", "setup", deadline=_iso(end)))  # LG-705
        return events

    def _wolf_list(self, state: LoupGarouState, wolves: Sequence[PlayerId]) -> list[dict[str, str]]:
        """LG-D04: each Wolf's name, card and pack status."""
        out = []
        for w in wolves:
            role = state.seat(w).role
            if role == MASTER:
                status = "master"
            elif role == WOLF:
                status = "wolf"
            elif state.young_wolf == w:
                status = "young_wolf"
            else:
                status = "thief"
            out.append({"name": w, "role": role, "status": status})
        return out

    def _close_election(
        self, state: LoupGarouState, now: datetime, rng: random.Random
    ) -> list[Event]:
        """LG-502..LG-506, LG-D05, LG-D06, then Night 1 (LG-207)."""
        o = state.options
        votes = dict(state.votes)
        top = plurality(votes)
        drawn: tuple[PlayerId, ...] = ()
        if state.phase == "runoff" and not top:
            top = list(state.tied)  # nobody voted again: draw among the tied
        if len(top) > 1 and o.mayor_election_tie == "runoff" and state.phase == "election":
            tied = tuple(p for p in state.order if p in top)
            end = now + o.election_window
            return [
                ElectionTied(tied),
                PhaseStarted("runoff", 0, {"runoff": end}),
                public(
                    "loupgarou/election_runoff",
                    "setup",
                    votes=[{"voter": p, "target": votes.get(p)} for p in state.order],
                    counts=tally_params(votes)["counts"],
                    tied=list(tied),
                    deadline=_iso(end),
                ),
            ]
        if len(top) == 1:
            mayor = top[0]
        else:  # LG-D05: a tie, or no vote at all, is drawn
            pool = [p for p in state.order if p in top] if top else list(state.order)
            drawn = tuple(pool)
            mayor = rng.choice(pool)
        elected = MayorElected(mayor, {p: votes.get(p) for p in state.order}, drawn)
        after = self.evolve(state, elected)
        events: list[Event] = [
            elected,
            public(
                "loupgarou/election_result",
                "setup",
                votes=[{"voter": p, "target": votes.get(p)} for p in state.order],
                counts=tally_params(votes)["counts"],
                drawn_among=list(drawn),
                mayor=mayor,
            ),
        ]
        if state.phase == "night":  # LG-D02 alternative: the night goes on
            return events
        return events + self._start_night(after, 1, now)

    # -- nights ---------------------------------------------------------------------------------

    def _start_night(
        self,
        state: LoupGarouState,
        number: int,
        now: datetime,
        extra: Mapping[str, datetime] | None = None,
    ) -> list[Event]:
        """LG-210, LG-710, LG-711: the public announcement, then the private prompts."""
        o = state.options
        t_a = now + o.night_council_duration
        t_end = t_a + o.night_witch_duration
        thread = f"night-{number}"
        started = PhaseStarted("night", number, {"council": t_a, "night": t_end, **(extra or {})})
        events: list[Event] = [
            started,
            public(
                "loupgarou/night_start", thread, number=number, council=_iso(t_a), end=_iso(t_end)
            ),
        ]
        s = self.evolve(state, started)
        council = list(s.council)
        joined = [p for p in council if p not in s.previous_council and s.seat(p).role == THIEF]
        left = [
            p
            for p in s.previous_council
            if p not in council and s.seat(p).alive and s.seat(p).role == THIEF
        ]
        for member in council:  # LG-711, LG-D38, LG-D40
            events.append(
                private(
                    "loupgarou/council_prompt",
                    [member],
                    thread,
                    number=number,
                    wolves=self._wolf_list(s, council),
                    detail=o.wolves_list_detail,
                    joined=[j for j in joined if j != member],
                    left=left,
                    welcome=member in joined,
                    deadline=_iso(t_a),
                    end=_iso(t_end),
                )
            )
        for seer in s.holders(SEER):
            if s.powered(seer):
                events.append(private("loupgarou/seer_prompt", [seer], thread, end=_iso(t_end)))
        for girl in s.holders(GIRL):
            if s.powered(girl):
                events.append(
                    private(
                        "loupgarou/girl_prompt",
                        [girl],
                        thread,
                        matchmaking=number == 2,
                        end=_iso(t_end),
                    )
                )
        for piper in s.holders(PIPER):  # LG-394: the Piper never loses his power
            events.append(private("loupgarou/piper_prompt", [piper], thread, end=_iso(t_end)))
        for witch in s.holders(WITCH):
            if s.powered(witch) and not (s.life_used and s.death_used):
                events.append(
                    private(
                        "loupgarou/witch_prompt",
                        [witch],
                        thread,
                        life=not s.life_used,
                        death=not s.death_used,
                        council=_iso(t_a),
                        end=_iso(t_end),
                    )
                )
        for thief in s.holders(THIEF):
            choices = self._thief_choices(s, thief)
            if choices:
                events.append(
                    private(
                        "loupgarou/thief_prompt",
                        [thief],
                        thread,
                        number=number,
                        choices=list(choices),
                        end=_iso(t_end),
                    )
                )
        return events

    def _thief_choices(self, s: LoupGarouState, thief: PlayerId) -> tuple[str, ...]:
        """LG-321, LG-322, LG-316, LG-331, LG-D37: what the thief may ask tonight."""
        if s.phase != "night" or s.young_wolf == thief or not s.seat(thief).alive:
            return ()
        allowed = THIEF_NIGHTS.get(s.number, ())
        team = s.seat(thief).team
        out: list[str] = []
        if "wolf" in allowed and team == VILLAGERS and s.powered(thief):
            out.append("wolf")
        if "villager" in allowed and team == WOLVES:
            out.append("villager")
        return tuple(out)

    def _close_council(self, state: LoupGarouState, rng: random.Random) -> list[Event]:
        """LG-214, LG-512..LG-516, LG-D07..LG-D09, LG-713, LG-714."""
        o = state.options
        thread = f"night-{state.number}"
        council = list(state.council)
        votes = {a.actor: a.targets[0] for a in state.actions_of("kill") if a.actor in council}
        weights = {
            p: o.thief_vote_weight
            for p in council
            if state.seat(p).role == THIEF and (o.thief_weight_when_bitten or state.young_wolf != p)
        }
        top, _ = weighted_plurality(votes, weights)
        drawn: tuple[PlayerId, ...] = ()
        victim: PlayerId | None = None
        how = "none"
        if len(top) == 1:
            victim, how = top[0], "majority"
        elif top:
            master_vote = next(
                (votes[m] for m in council if state.seat(m).role == MASTER and m in votes), None
            )
            if master_vote in top:  # LG-513, LG-318
                victim, how = master_vote, "master"
            elif o.wolves_tie_fallback == "random":  # LG-514, LG-D08
                drawn = tuple(p for p in state.order if p in top)
                victim, how = rng.choice(drawn), "draw"
            else:
                how = "tie_no_victim"
        closed = CouncilClosed(victim, how, drawn)
        events: list[Event] = [closed]
        if council:
            events.append(  # LG-713
                private(
                    "loupgarou/council_result",
                    council,
                    thread,
                    victim=victim,
                    how=how,
                    drawn_among=list(drawn),
                )
            )
        for witch in state.holders(WITCH):  # LG-351, LG-714, LG-D14 (1)
            if state.powered(witch) and not (state.life_used and state.death_used):
                events.append(
                    private(
                        "loupgarou/witch_victim",
                        [witch],
                        thread,
                        victim=victim,
                        life=not state.life_used,
                        death=not state.death_used,
                        end=_iso(state.deadlines.get("night")),
                    )
                )
        return events

    def _resolve_night(
        self, state: LoupGarouState, now: datetime, rng: random.Random
    ) -> list[Event]:
        """LG-215, LG-220..LG-229: the steps of NIGHT_STEPS in order, then the dawn (LG-230)."""
        night = _Night(self, state, rng)
        steps: Mapping[str, Callable[[_Night], None]] = {
            "lovers": self._night_lovers,
            "charm": self._night_charm,
            "scan": self._night_scan,
            "ask": self._night_ask,
            "attacks": self._night_attacks,
            "grief": self._night_grief,
            "become": self._night_become,
        }
        for step in NIGHT_STEPS:
            steps[step](night)
        return self._dawn(night, now)

    # -- the night's steps, in the order of NIGHT_STEPS (section 4.3) -----------------------

    def _night_lovers(self, night: _Night) -> None:
        """Step 1 (LG-220, LG-368, LG-D23): the Lovers, Night 2 only, before any death."""
        s = night.s
        if s.number != 2 or s.lovers:
            return
        pick = next(iter(s.actions_of("lovers")), None)
        if pick is not None:
            night.emit(LoversFormed(pick.targets))
        elif s.options.lovers_if_missing == "random":
            girls = [g for g in s.holders(GIRL) if s.powered(g)]
            if girls and len(s.living()) >= 2:
                drawn = sorted(night.rng.sample(s.living(), 2), key=s.order.index)
                night.emit(LoversFormed(tuple(drawn), True))
        night.lovers_formed = bool(night.s.lovers)

    def _night_charm(self, night: _Night) -> None:
        """Step 2 (LG-221, LG-D25): charms; re-charming has no new effect."""
        charm = next(iter(night.s.actions_of("charm")), None)
        night.charm_targets = charm.targets if charm else ()
        night.newly_charmed = tuple(t for t in night.charm_targets if t not in night.s.charmed)
        if night.newly_charmed:
            night.emit(Charmed(night.newly_charmed))

    def _night_scan(self, night: _Night) -> None:
        """Step 3 (LG-222, LG-341): the seer's result is the scanned player's card."""
        night.scan = next(iter(night.s.actions_of("scan")), None)

    def _night_ask(self, night: _Night) -> None:
        """Step 4 (LG-223, LG-D21): the little girl's answer, with the night's final choices."""
        night.question = next(iter(night.s.actions_of("ask")), None)
        if night.question is not None:
            scanned = night.scan.targets[0] if night.scan else None
            night.answer, night.spied = self._answer(
                night.s, night.question, scanned, night.charm_targets
            )

    def _night_attacks(self, night: _Night) -> None:
        """Steps 5 and 6 (LG-224, LG-225, LG-D15): the kernel's loop with two veto hooks."""
        s = night.s
        save = next(iter(s.actions_of("save")), None)
        poison = next(iter(s.actions_of("poison")), None)
        poisoned = poison.targets[0] if poison else None
        victim = s.victim
        if save is not None:
            night.emit(PotionUsed("life"))
        if poison is not None:
            night.emit(PotionUsed("death"))
        intents: list[Intent] = []
        if victim is not None:
            cause = "wolves_and_poison" if victim == poisoned else "wolves"
            intents.append(Intent("kill", victim, cause, NIGHT_ORDER["wolves"]))
        if poisoned is not None and poisoned != victim:
            intents.append(Intent("kill", poisoned, "poison", NIGHT_ORDER["poison"]))

        def life_potion(st: LoupGarouState, intent: Intent) -> Veto | None:
            # LG-224, LG-352: the life potion saves the Wolves' victim (LG-357: first).
            saved = save is not None and intent.target == victim and intent.cause == "wolves"
            return Veto("life_potion") if saved else None

        def elder(st: LoupGarouState, intent: Intent) -> Veto | None:
            # LG-380, LG-383: only the Wolves' attack, only once.
            seat = st.seat(intent.target)
            if intent.cause == "wolves" and seat.role == ELDER and not st.elder_used:
                return Veto("elder", (ElderProtectionUsed(),))
            return None

        def die(st: LoupGarouState, intent: Intent) -> list[Event]:
            return [PlayerDied(intent.target, intent.cause)] if st.seat(intent.target).alive else []

        result = resolve(
            night.s, f"night-{s.number}", intents, [life_potion, elder], die, self.evolve
        )
        night.events += result.events
        night.s = result.state
        for intent, hook in result.vetoed.items():
            if hook == "elder":
                night.elder_escaped.append(intent.target)
            elif hook == "life_potion" and night.s.seat(intent.target).role == ELDER:
                night.elder_saved_by_witch.append(intent.target)  # LG-357, LG-D17

    def _night_grief(self, night: _Night) -> None:
        """Step 7 (LG-226, LG-422): Lovers die of grief."""
        night.emit(*self._grief(night.s))

    def _night_become(self, night: _Night) -> None:
        """Step 8 (LG-227, LG-324..LG-327, LG-D37): the thief's change, if he is alive."""
        for request in night.s.actions_of("become"):
            s = night.s
            thief = request.actor
            if not s.seat(thief).alive:
                continue
            if request.word == "wolf" and s.seat(thief).team == VILLAGERS:
                night.emit(TeamChanged(thief, WOLVES))
                night.thief_result = (thief, "wolf")
            elif request.word == "villager" and s.seat(thief).team == WOLVES:
                if s.team(WOLVES) == [thief]:
                    night.thief_result = (thief, "last_wolf")
                else:
                    night.emit(TeamChanged(thief, VILLAGERS))
                    night.thief_result = (thief, "villager")

    def _dawn(self, night: _Night, now: datetime) -> list[Event]:
        """LG-230..LG-235: private notices first, the announcement, the Ancien, checkpoint (a)."""
        state, o, n = night.start, night.start.options, night.start.number
        thread = f"day-{n}"
        events = night.events
        dead = [e.player for e in events if isinstance(e, PlayerDied)]  # LG-D16: in order
        # Step 9: the Ancien's death strips the Villagers at the start of the debates (LG-228).
        elder_dead = any(state.seat(p).role == ELDER for p in dead)
        s = night.s

        def reached(who: Sequence[PlayerId]) -> list[PlayerId]:
            return [p for p in who if o.send_results_to_dead or s.seat(p).alive]  # LG-D12

        scan = night.scan
        if scan is not None and o.seer_result_timing == "dawn":
            to = reached([scan.actor])
            if to:  # LG-720, LG-343
                target = scan.targets[0]
                role = state.seat(target).role
                events.append(
                    private("loupgarou/seer_result", to, thread, target=target, role=role)
                )
        question, answer = night.question, night.answer
        if question is not None and answer is not None:
            to = reached([question.actor])
            if to:  # LG-721
                events.append(private("loupgarou/girl_answer", to, thread, **answer))
            empty = not answer["names"] and answer["question"] != "conditions"
            # LG-D21: never the girl herself; LG-722, LG-366, LG-367: one text for all.
            subjects = [p for p in night.spied if s.seat(p).alive and p != question.actor]
            if subjects and (o.notify_spied_when_empty or not empty):
                events.append(private("loupgarou/spied", subjects, thread))
        charmed_now = [p for p in night.newly_charmed if s.seat(p).alive]
        if charmed_now and not o.charmed_know_each_other:  # LG-723, LG-425, LG-D26
            events.append(private("loupgarou/charmed", charmed_now, thread, others=[]))
        for p in charmed_now if o.charmed_know_each_other else []:
            others = [q for q in s.order if q in s.charmed and q != p and s.seat(q).alive]
            events.append(private("loupgarou/charmed", [p], thread, others=others))
        if night.lovers_formed:  # LG-724, LG-D24
            for lover in s.lovers:
                other = s.lover_of(lover)
                if s.seat(lover).alive and other is not None:
                    role = s.seat(other).role
                    events.append(
                        private("loupgarou/lovers", [lover], thread, other=other, role=role)
                    )
        told = night.elder_escaped + (
            night.elder_saved_by_witch if o.elder_told_when_witch_saves else []
        )
        for escaped in told:  # LG-725, LG-381, LG-D17
            if s.seat(escaped).alive:
                events.append(private("loupgarou/elder_escaped", [escaped], thread))
        if night.thief_result is not None:  # LG-726
            thief, result = night.thief_result
            events.append(private("loupgarou/thief_result", [thief], thread, result=result))
        lost: list[PlayerId] = []
        if elder_dead:  # LG-727, LG-D19
            lost = [p for p in s.team(VILLAGERS) if s.powered(p)]
            affected = [p for p in lost if s.seat(p).role in POWERED]
            if affected:
                events.append(private("loupgarou/powers_lost", affected, thread, when="today"))
        # The dawn announcement (LG-730) opens the debates (LG-240): the loss happens now.
        t_day = now + o.day_duration
        mayor_died = s.mayor is not None and s.mayor in dead
        ending = self._checkpoint(s, "dawn")  # LG-235
        events.append(
            public(
                "loupgarou/dawn",
                thread,
                day=n,
                dead=[self._reveal(s, p) for p in dead],
                elder_dead=elder_dead,
                mayor_dead=s.mayor if mayor_died else None,
                deadline=None if ending else _iso(t_day),
            )
        )
        if lost:
            night.emit(PowersLost(tuple(lost)))  # LG-234, LG-386
        if ending:
            return events + ending
        if mayor_died and s.mayor is not None:  # LG-233, LG-D31
            due = max(min(now + o.sash_window, t_day - timedelta(hours=1)), now)
            night.emit(SashOpened(s.mayor, due))
            events.append(private("loupgarou/sash_prompt", [s.mayor], thread, deadline=_iso(due)))
        events.append(PhaseStarted("day", n, {"day": t_day}))
        return events

    def _answer(
        self,
        s: LoupGarouState,
        question: ActionSet,
        scanned: PlayerId | None,
        charm_targets: Sequence[PlayerId],
    ) -> tuple[dict[str, Any], list[PlayerId]]:
        """LG-361..LG-366, LG-D21: the answer and who is spied on."""
        kind = question.word or ""
        if kind == "wolves":  # LG-361: the victim fixed at T_A, never the Wolves' names
            names = [s.victim] if s.victim else []
            return {"question": kind, "names": names, "conditions": []}, list(s.council)
        if kind == "seer":  # LG-362
            seers = s.holders(SEER, alive=False)
            names = [scanned] if scanned else []
            return {"question": kind, "names": names, "conditions": []}, [
                p for p in seers if s.seat(p).alive
            ]
        if kind == "piper":  # LG-363
            pipers = s.holders(PIPER, alive=False)
            return {"question": kind, "names": list(charm_targets), "conditions": []}, [
                p for p in pipers if s.seat(p).alive
            ]
        target = question.targets[0]  # LG-364: after this night's lovers and charms
        return {"question": kind, "names": [target], "conditions": s.conditions(target)}, [target]

    def _grief(self, state: LoupGarouState) -> list[Event]:
        """LG-422: a Lover dies of grief when the other has died, until nothing changes."""
        events: list[Event] = []
        s = state
        changed = True
        while changed:
            changed = False
            for lover in s.lovers:
                other = s.lover_of(lover)
                if other is not None and not s.seat(other).alive and s.seat(lover).alive:
                    death = PlayerDied(lover, "grief")
                    events.append(death)
                    s = self.evolve(s, death)
                    changed = True
        return events

    def _reveal(self, s: LoupGarouState, player: PlayerId) -> dict[str, Any]:
        """LG-100: identity, team and conditions at the moment of death."""
        seat = s.seat(player)
        return {
            "name": player,
            "cause": seat.cause,
            "role": seat.role,
            "team": seat.team,
            "conditions": s.conditions(player),
            "lover": s.lover_of(player) if seat.cause == "grief" else None,
        }

    # -- victory (LG-110..LG-118) ---------------------------------------------------------------

    def _winner(
        self, s: LoupGarouState, checkpoint: str
    ) -> tuple[str | None, tuple[PlayerId, ...]] | None:
        living = s.living()
        if not living:
            return None, ()  # LG-D27 (5): everyone dead, no winner
        o = s.options
        for side in CHECKPOINTS[checkpoint]:
            if side == LOVERS:  # LG-113, LG-424
                if len(s.lovers) == 2 and sorted(living) == sorted(s.lovers):
                    return LOVERS, tuple(s.lovers)
            elif side == PIPER_SIDE:  # LG-112, LG-393 (checkpoint (a) only, LG-115)
                for piper in s.holders(PIPER):
                    if all(p in s.charmed for p in living if p != piper):
                        return PIPER_SIDE, (piper,)  # LG-D28: the Piper alone
            elif side == WOLVES:  # LG-111, LG-D27
                wolves = [p for p in living if s.seat(p).team == WOLVES]
                counted = [
                    p
                    for p in living
                    if s.seat(p).team == VILLAGERS
                    or (o.parity_counts_piper and s.seat(p).team == PIPER_SIDE)
                ]
                if wolves and len(wolves) >= len(counted):
                    return WOLVES, tuple(s.team(WOLVES, alive=False))
            elif side == VILLAGERS and not any(s.seat(p).team == WOLVES for p in living):
                return VILLAGERS, tuple(s.team(VILLAGERS, alive=False))  # LG-110
        return None

    def _checkpoint(self, s: LoupGarouState, checkpoint: str) -> list[Event]:
        """LG-114..LG-117, LG-760: the end of the game, or []."""
        won = self._winner(s, checkpoint)
        if won is None:
            return []
        side, winners = won
        termination = Termination.VICTORY if side else Termination.NO_WINNER
        reveal = [{**self._reveal(s, p), "alive": s.seat(p).alive} for p in s.order]  # LG-D29
        return [
            GameEnded(termination.value, side, winners),
            public(
                "loupgarou/victory",
                "end",
                side=side,
                winners=list(winners),
                reveal=reveal if s.options.reveal_all_at_end else [],
            ),
        ]

    # -- days (LG-240..LG-256) ------------------------------------------------------------------

    def _draw_successor(self, state: LoupGarouState, rng: random.Random) -> list[Event]:
        """LG-D31: no sash sent in time: a random living player becomes Mayor."""
        living = state.living()
        if state.sash_holder is None or not living:
            return []
        chosen = rng.choice(living)
        return [
            MayorChanged(chosen, None),
            public(
                "loupgarou/new_mayor",
                f"day-{state.number}",
                mayor=chosen,
                by=None,
                former=state.sash_holder,
            ),
        ]

    def _close_day(self, state: LoupGarouState, now: datetime, rng: random.Random) -> list[Event]:
        """LG-250, LG-251, LG-742: the final tally, then the tie-break or the lynch."""
        o = state.options
        thread = f"day-{state.number}"
        events: list[Event] = []
        s = state
        if s.sash_holder is not None:  # LG-D31: never a tie-break without a Mayor
            drawn = self._draw_successor(s, rng)
            events += drawn
            s = self.fold(drawn, s)
        votes = {v: t for v, t in s.votes.items() if s.seat(v).alive and s.seat(t).alive}
        top = plurality(votes)
        mayor = s.mayor if s.mayor is not None and s.seat(s.mayor).alive else None
        tie = len(top) > 1 and mayor is not None
        end = now + o.mayor_tiebreak_window
        events.append(
            public(
                "loupgarou/final_tally",
                thread,
                day=s.number,
                tied=[p for p in s.order if p in top] if tie else [],
                mayor=mayor,
                deadline=_iso(end) if tie else None,
                **tally_params(votes),
            )
        )
        if tie and mayor is not None:  # LG-527, LG-D32
            tied = tuple(p for p in s.order if p in top)
            events += [
                LynchTied(tied),
                PhaseStarted("tiebreak", s.number, {"tiebreak": end}),
                private(
                    "loupgarou/tiebreak_prompt",
                    [mayor],
                    thread,
                    tied=list(tied),
                    deadline=_iso(end),
                ),
            ]
            return events
        if len(top) > 1:  # no living Mayor at all (cannot happen with a living player)
            return events + self._lynch(s, rng.choice(top), "draw", now)
        return events + self._lynch(s, top[0] if top else None, "majority" if top else "none", now)

    def _close_tiebreak(
        self, state: LoupGarouState, now: datetime, rng: random.Random
    ) -> list[Event]:
        """LG-D32: no answer -> the tied player the Mayor voted for, else a draw."""
        own = state.votes.get(state.mayor) if state.mayor else None
        if own in state.tied:
            return self._lynch(state, own, "mayor_vote", now)
        return self._lynch(state, rng.choice(state.tied), "draw", now)

    def _lynch(
        self, state: LoupGarouState, designated: PlayerId | None, how: str, now: datetime
    ) -> list[Event]:
        """LG-252..LG-256: idiot, grief, the Ancien, the announcement, checkpoint (b)."""
        o = state.options
        thread = f"day-{state.number}"
        events: list[Event] = []
        s = state

        def emit(*new: Event) -> None:
            nonlocal s
            for event in new:
                s = self.evolve(s, event)
                events.append(event)

        emit(LynchDecided(s.number, designated, how))
        idiot = False
        if designated is not None:
            mayor = s.mayor if s.mayor is not None and s.seat(s.mayor).alive else None
            if (
                s.idiot == designated
                and not s.idiot_revealed
                and mayor is not None
                and designated != mayor  # LG-448
            ):  # LG-252, LG-445..LG-447
                idiot = True
                emit(IdiotRevealed(designated), PlayerDied(mayor, "burned"))
            else:
                emit(PlayerDied(designated, "lynch"))
            emit(*self._grief(s))  # LG-253
        dead = [e.player for e in events if isinstance(e, PlayerDied)]
        elder_dead = any(s.seat(p).role == ELDER for p in dead)
        lost: list[PlayerId] = []
        if elder_dead:  # LG-254, LG-386: at once by day
            lost = [p for p in s.team(VILLAGERS) if s.powered(p)]
        mayor_died = s.mayor is not None and s.mayor in dead
        ending = self._checkpoint(s, "lynch")  # LG-256
        events.append(
            public(
                "loupgarou/lynch",
                thread,
                day=s.number,
                designated=designated,
                how=how,
                idiot=idiot,
                dead=[self._reveal(s, p) for p in dead],
                elder_dead=elder_dead,
                mayor_dead=s.mayor if mayor_died else None,
            )
        )
        if lost:
            emit(PowersLost(tuple(lost)))
            affected = [p for p in lost if s.seat(p).role in POWERED]
            if affected:  # LG-727
                events.append(private("loupgarou/powers_lost", affected, thread, when="now"))
        if ending:
            return events + ending
        if mayor_died and s.mayor is not None:  # LG-255, LG-740
            due = now + o.sash_window
            emit(SashOpened(s.mayor, due))
            events.append(private("loupgarou/sash_prompt", [s.mayor], thread, deadline=_iso(due)))
        return events + self._start_night(s, s.number + 1, now)

    # -- commands ---------------------------------------------------------------------------

    def decide(
        self,
        state: LoupGarouState,
        actor: PlayerId,
        command: Command,
        now: datetime,
        channel: str,
    ) -> list[Event]:
        if state.outcome is not None:
            raise IllegalNow("game_over")  # LG-760
        verb = command.verb
        seat = state.seat(actor)
        if verb == "sash":
            return self._decide_sash(state, actor, command)
        if not seat.alive:
            raise IllegalNow("dead")  # LG-606, LG-241
        if verb in ("vote", "unvote"):
            return self._decide_vote(state, actor, command, now, channel)
        if verb == "decide":
            return self._decide_tiebreak(state, actor, command, now)
        if verb == "cancel":
            return self._decide_cancel(state, actor, command, now, channel)
        if verb == "pass":  # LG-603
            if state.phase not in ("bite", "election", "runoff", "night"):
                raise IllegalNow("nothing_to_pass")
            return [ActionSet(actor, "pass")]
        if verb == "bite":
            return self._decide_bite(state, actor, command)
        if verb == "mayor":
            if not self._election_open(state):
                raise IllegalNow("election_closed")  # LG-503
            target = command.targets[0]
            if state.phase == "runoff" and target not in state.tied:
                raise IllegalNow("not_tied", name=target, tied=list(state.tied))
            return [VoteSet("mayor", actor, target, state.seq + 1)]  # LG-501
        if state.phase != "night":
            raise IllegalNow("night_only")
        if verb in ("kill", "pack"):
            return self._decide_council(state, actor, command)
        role = NIGHT_ROLES[verb]
        if seat.role != role:
            raise IllegalNow("not_your_role")
        if role != PIPER and not state.powered(actor):
            raise IllegalNow("no_powers")  # LG-385, LG-D19
        handler = {
            "scan": self._decide_scan,
            "save": self._decide_save,
            "poison": self._decide_poison,
            "ask": self._decide_ask,
            "lovers": self._decide_lovers,
            "charm": self._decide_charm,
            "become": self._decide_become,
        }[verb]
        return handler(state, actor, command)

    @staticmethod
    def _election_open(state: LoupGarouState) -> bool:
        return state.phase in ("election", "runoff") or "election" in state.deadlines

    def _living_target(self, state: LoupGarouState, target: PlayerId) -> None:
        if not state.seat(target).alive:
            raise IllegalNow("target_not_living", name=target)  # LG-607

    def _decide_bite(self, state: LoupGarouState, actor: PlayerId, command: Command) -> list[Event]:
        """LG-610, LG-311, LG-D03."""
        if state.seat(actor).role != MASTER:
            raise IllegalNow("not_your_role")
        if state.phase != "bite":
            raise IllegalNow("bite_closed")
        target = command.targets[0]
        self._living_target(state, target)
        if target == actor:
            raise IllegalNow("not_yourself")
        return [ActionSet(actor, "bite", (target,))]

    def _decide_council(
        self, state: LoupGarouState, actor: PlayerId, command: Command
    ) -> list[Event]:
        """LG-612, LG-613, LG-712: the council's votes and chat, relayed to the council."""
        if actor not in state.council:
            raise IllegalNow("not_in_council")  # LG-510
        thread = f"night-{state.number}"
        if command.verb == "pack":
            others = [w for w in state.council if w != actor]
            if not others:
                raise IllegalNow("alone_in_council")
            return [private("loupgarou/pack_chat", others, thread, sender=actor, text=command.text)]
        if state.council_closed:
            raise IllegalNow("council_closed")  # LG-213, LG-516
        target = command.targets[0]
        self._living_target(state, target)  # LG-511, LG-D10: any living player
        return [
            ActionSet(actor, "kill", (target,)),
            private(
                "loupgarou/kill_relay", list(state.council), thread, voter=actor, target=target
            ),
        ]

    def _decide_scan(self, state: LoupGarouState, actor: PlayerId, command: Command) -> list[Event]:
        """LG-614, LG-340, LG-D13, LG-D11 (``seer_result_timing``)."""
        target = command.targets[0]
        self._living_target(state, target)
        if target == actor:
            raise IllegalNow("not_yourself")
        if state.options.seer_result_timing == "immediate":
            if state.action(actor, "scan") is not None:
                raise IllegalNow("already_final")
            return [
                ActionSet(actor, "scan", (target,)),
                private(
                    "loupgarou/seer_result",
                    [actor],
                    f"night-{state.number}",
                    target=target,
                    role=state.seat(target).role,
                ),
            ]
        return [ActionSet(actor, "scan", (target,))]

    def _decide_save(self, state: LoupGarouState, actor: PlayerId, command: Command) -> list[Event]:
        """LG-615, LG-352, LG-D14 (2)."""
        if state.life_used:
            raise IllegalNow("potion_used")
        if not state.council_closed:
            raise IllegalNow("victim_not_known", opens=_iso(state.deadlines.get("council")))
        if state.victim is None:
            raise IllegalNow("no_victim")
        if command.targets and command.targets[0] != state.victim:
            raise IllegalNow("not_the_victim", name=command.targets[0])
        poisoned = state.action(actor, "poison")
        if poisoned is not None and poisoned.targets[0] == state.victim:
            raise IllegalNow("save_and_poison")
        return [ActionSet(actor, "save", (state.victim,))]

    def _decide_poison(
        self, state: LoupGarouState, actor: PlayerId, command: Command
    ) -> list[Event]:
        """LG-616, LG-353, LG-D14 (3)."""
        if state.death_used:
            raise IllegalNow("potion_used")
        target = command.targets[0]
        self._living_target(state, target)
        if target == actor and not state.options.witch_self_poison:
            raise IllegalNow("not_yourself")
        saved = state.action(actor, "save")
        if saved is not None and saved.targets[0] == target:
            raise IllegalNow("save_and_poison")
        return [ActionSet(actor, "poison", (target,))]

    def _decide_ask(self, state: LoupGarouState, actor: PlayerId, command: Command) -> list[Event]:
        """LG-617, LG-618, LG-360, LG-D22: one question a night, the last one counts."""
        if command.word == "conditions":
            if not command.targets:
                raise InvalidSyntax("missing_name")
            self._living_target(state, command.targets[0])
        elif command.targets:
            raise InvalidSyntax("question_no_name")
        return [ActionSet(actor, "ask", command.targets, command.word)]

    def _decide_lovers(
        self, state: LoupGarouState, actor: PlayerId, command: Command
    ) -> list[Event]:
        """LG-619, LG-368, LG-D23."""
        if state.number != 2:
            raise IllegalNow("night2_only")
        for target in command.targets:
            self._living_target(state, target)
        return [ActionSet(actor, "lovers", command.targets)]

    def _decide_charm(
        self, state: LoupGarouState, actor: PlayerId, command: Command
    ) -> list[Event]:
        """LG-620, LG-390, LG-391, LG-D25."""
        for target in command.targets:
            self._living_target(state, target)
            if target == actor:
                raise IllegalNow("not_yourself")
        others = [p for p in state.living() if p != actor]
        if len(command.targets) < min(2, len(others)):
            raise InvalidSyntax("missing_names", count=2)
        return [ActionSet(actor, "charm", command.targets)]

    def _decide_become(
        self, state: LoupGarouState, actor: PlayerId, command: Command
    ) -> list[Event]:
        """LG-621, LG-321..LG-323, LG-316, LG-331, LG-D37."""
        if state.young_wolf == actor:
            raise IllegalNow("thief_bitten")  # LG-316, LG-D37 (3)
        if state.number not in THIEF_NIGHTS:
            raise IllegalNow("thief_nights")  # LG-323
        word = command.word or ""
        if word not in THIEF_NIGHTS[state.number]:
            raise IllegalNow("thief_night2_wolf")  # LG-321: Night 2 is for becoming a Wolf
        team = state.seat(actor).team
        if word == "wolf" and team == WOLVES:
            raise IllegalNow("already_wolf")
        if word == "villager" and team == VILLAGERS:
            raise IllegalNow("already_villager")
        return [ActionSet(actor, "become", (), word)]

    def _decide_sash(self, state: LoupGarouState, actor: PlayerId, command: Command) -> list[Event]:
        """LG-625, LG-404, LG-D31: the only command of a dead player (LG-606)."""
        if state.sash_holder != actor:
            raise IllegalNow("no_sash" if state.seat(actor).alive else "dead")
        target = command.targets[0]
        self._living_target(state, target)
        return [
            MayorChanged(target, actor),
            public(
                "loupgarou/new_mayor", f"day-{state.number}", mayor=target, by=actor, former=actor
            ),
        ]

    def _decide_tiebreak(
        self, state: LoupGarouState, actor: PlayerId, command: Command, now: datetime
    ) -> list[Event]:
        """LG-624, LG-402, LG-D32: the Mayor's choice is published and the lynch follows."""
        if state.phase != "tiebreak":
            raise IllegalNow("no_tiebreak")
        if state.mayor != actor:
            raise IllegalNow("not_mayor")
        target = command.targets[0]
        if target not in state.tied:
            raise IllegalNow("not_tied", name=target, tied=list(state.tied))
        return self._lynch(state, target, "mayor", now)

    def _decide_cancel(
        self,
        state: LoupGarouState,
        actor: PlayerId,
        command: Command,
        now: datetime,
        channel: str,
    ) -> list[Event]:
        """LG-603, LG-626: ``ANNULER <mot-clé>``."""
        found = find_spec(command.text.split(), self.all_commands)
        if found is None:
            raise InvalidSyntax("cancel_what")
        verb = found[0].verb
        if verb == "vote":
            return self._decide_vote(state, actor, Command("unvote"), now, "list")
        if verb == "mayor":
            if not self._election_open(state) or actor not in state.votes:
                raise IllegalNow("nothing_to_cancel")
            return [VoteSet("mayor", actor, None, state.seq + 1)]
        if verb == "kill" and state.council_closed:
            raise IllegalNow("council_closed")
        if state.action(actor, verb) is None:
            raise IllegalNow("nothing_to_cancel")
        return [ActionCleared(actor, verb)]

    def _decide_vote(
        self,
        state: LoupGarouState,
        actor: PlayerId,
        command: Command,
        now: datetime,
        channel: str,
    ) -> list[Event]:
        """LG-520..LG-526, LG-622, LG-623, LG-D33, LG-D34."""
        o = state.options
        if state.phase != "day":
            raise IllegalNow("no_vote_now")  # LG-526
        if channel != "list":
            raise IllegalNow("vote_on_list")  # LG-521
        previous = state.votes.get(actor)
        if previous is not None and not o.vote_changes_allowed:
            raise IllegalNow("vote_final")
        if command.verb == "unvote":
            if previous is None:
                raise IllegalNow("no_vote_to_withdraw")
            target: PlayerId | None = None
        else:
            target = command.targets[0]
            self._living_target(state, target)
            if target == actor and not o.self_vote_allowed:
                raise IllegalNow("not_yourself")
        vote = VoteSet("lynch", actor, target, state.seq + 1)
        events: list[Event] = [vote]
        last = state.last_tally
        if last is None or now - last >= o.tally_min_interval:  # LG-525, LG-741
            after = self.evolve(state, vote)
            events += [
                TallyPosted(now),
                public(
                    "loupgarou/tally",
                    f"day-{state.number}",
                    day=state.number,
                    **tally_params(after.votes),
                ),
            ]
        return events

    # -- reading ------------------------------------------------------------------------------

    def outcome(self, state: LoupGarouState) -> Outcome | None:
        return state.outcome

    def names(self, state: LoupGarouState) -> Sequence[PlayerId]:
        return state.order

    def summary(self, state: LoupGarouState) -> dict[str, Any]:
        return {
            "game": self.id,
            "status": "finished" if state.outcome else "running",
            "phase": state.phase,
            "day": state.number,
            "winners": list(state.outcome.winners) if state.outcome else [],
            "side": state.outcome.side if state.outcome else None,
            "mayor": state.mayor,
            "players": [
                {
                    "name": p,
                    "role": s.role,
                    "team": s.team,
                    "alive": s.alive,
                    "conditions": state.conditions(p),
                }
                for p in state.order
                for s in [state.seat(p)]
            ],
        }

    def status(self, state: LoupGarouState, actor: PlayerId) -> dict[str, Any]:
        """LG-627: only what ``actor`` already knows."""
        seat = state.seat(actor)
        known = []
        for c in state.conditions(actor):
            if c == "idiot" and not state.idiot_revealed:
                continue  # LG-441
            known.append(c)
        wolves: list[PlayerId] = []
        if seat.team == WOLVES and actor in state.council and state.phase != "bite":
            wolves = [w for w in state.council if w != actor]
        pending = [
            {"verb": a.verb, "word": a.word or "", "targets": list(a.targets)}
            for (who, _), (_, a) in state.actions.items()
            if who == actor and a.verb != "pass"
        ]
        lover = state.lover_of(actor)
        return {
            "role": seat.role,
            "team": seat.team,
            "alive": seat.alive,
            "conditions": known,
            "lover": lover,
            "lover_role": state.seat(lover).role if lover else None,
            "wolves": wolves,
            "phase": state.phase,
            "number": state.number,
            "deadlines": {k: _iso(v) for k, v in self.deadlines(state).items()},
            "pending": pending,
            "vote": state.votes.get(actor) if state.phase != "tiebreak" else None,
            "living": state.living(),
            "mayor": state.mayor,
        }

    def available(self, state: LoupGarouState, actor: PlayerId) -> list[CommandSpec]:
        seat = state.seat(actor)
        allowed = {"help", "status"}
        if state.outcome is None:
            if state.sash_holder == actor:
                allowed.add("sash")
            if seat.alive:
                allowed |= self._allowed_alive(state, actor)
        return [c for c in self.all_commands if c.verb in allowed]

    def _allowed_alive(self, state: LoupGarouState, actor: PlayerId) -> set[str]:
        seat = state.seat(actor)
        allowed: set[str] = set()
        phase = state.phase
        if phase == "bite":
            allowed.add("pass")
            if seat.role == MASTER:
                allowed.add("bite")
        if self._election_open(state):
            allowed |= {"mayor", "pass", "cancel"}
        if phase == "night":
            allowed |= {"pass", "cancel"}
            if actor in state.council:
                allowed.add("pack")
                if not state.council_closed:
                    allowed.add("kill")
            powered = state.powered(actor)
            if seat.role == SEER and powered:
                allowed.add("scan")
            if seat.role == WITCH and powered:
                if not state.death_used:
                    allowed.add("poison")
                if not state.life_used and state.council_closed and state.victim:
                    allowed.add("save")
            if seat.role == GIRL and powered:
                allowed.add("ask")
                if state.number == 2:
                    allowed.add("lovers")
            if seat.role == PIPER:
                allowed.add("charm")
            if seat.role == THIEF and self._thief_choices(state, actor):
                allowed.add("become")
        elif phase == "day":
            allowed |= {"vote", "unvote", "cancel"}
        elif phase == "tiebreak" and state.mayor == actor:
            allowed.add("decide")
        return allowed

    def changeable_until(
        self, state: LoupGarouState, actor: PlayerId, verb: str
    ) -> datetime | None:
        """LG-602: the deadline that closes this verb (the council's for TUER, LG-213)."""
        deadlines = self.deadlines(state)
        key = {
            "kill": "council",
            "bite": "bite",
            "mayor": "runoff" if state.phase == "runoff" else "election",
            "vote": "day",
            "unvote": "day",
        }.get(verb, "night" if state.phase == "night" else None)
        if key is not None and key in deadlines:
            return deadlines[key]
        return min(deadlines.values()) if deadlines else None

    def final(self, state: LoupGarouState, actor: PlayerId, verb: str) -> bool:
        """A sash, a tie-break, an immediate scan, a vote when changes are off, are final."""
        if verb in ("sash", "decide"):
            return True
        if verb in ("vote", "unvote"):
            return not state.options.vote_changes_allowed
        return verb == "scan" and state.options.seer_result_timing == "immediate"

    def on_post(
        self,
        state: LoupGarouState,
        actor: PlayerId,
        lines: Sequence[str],
        now: datetime,
        *,
        moderated: bool = True,
    ) -> list[Event]:
        """LG-D35: by day the living debate; a dead player's post is refused (never relayed), and
        with ``list_closed_at_night`` a post at night waits for the morning (a relaying daemon
        holds it; commands in it are ignored)."""
        if state.outcome is not None or state.phase == "setup":
            return []
        if not state.seat(actor).alive:
            raise IllegalNow("dead")
        if state.options.list_closed_at_night and state.phase == "night":
            raise ListClosed("night_silence")
        return []

    def bold_command(
        self, state: LoupGarouState, actor: PlayerId, bold: Sequence[str]
    ) -> Command | None:
        """LG-521: the forum convention, a name in bold in a public post is a vote."""
        name = bold_name(state.order, bold)
        if name is None:
            return None
        verb = "decide" if state.phase == "tiebreak" and state.mayor == actor else "vote"
        return Command(verb, (name,))

    def ready_to_close(self, state: LoupGarouState) -> str | None:
        """LG-D43: close early only when every living player has acted (never by default)."""
        o = state.options
        if state.outcome is not None:
            return None
        if o.early_close and state.phase in ("bite", "election", "runoff", "night"):
            if state.phase in ("election", "runoff"):
                acted = set(state.votes) | {a for a, v in state.actions if v == "pass"}
            elif state.phase == "night" and state.council_closed:
                acted = {a for (a, _), (seq, _) in state.actions.items() if seq > state.council_seq}
            else:
                acted = {a for a, _ in state.actions}
            if set(state.living()) <= acted:
                if state.phase == "night":
                    return "night" if state.council_closed else "council"
                return state.phase
        if state.phase == "day" and o.early_close_day and set(state.living()) <= set(state.votes):
            return "day"
        return None

    def side_of(self, state: LoupGarouState, player: PlayerId) -> str | None:
        return state.seats[player].team

    def awaiting(self, state: LoupGarouState) -> frozenset[PlayerId]:
        if state.phase == "bite":
            return frozenset(p for p in state.holders(MASTER) if not state.action(p, "bite"))
        if state.phase in ("election", "runoff"):
            return frozenset(p for p in state.living() if p not in state.votes)
        if state.phase == "night" and not state.council_closed:
            return frozenset(p for p in state.council if not state.action(p, "kill"))
        if state.phase == "day":
            return frozenset(p for p in state.living() if p not in state.votes)
        if state.phase == "tiebreak" and state.mayor:
            return frozenset([state.mayor])
        return frozenset()


__all__ = ["LoupGarou", "LoupGarouOptions", "LoupGarouState"]
