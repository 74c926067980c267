"""Lupus in Tabula (8 to 24 players): ``docs/rules/lupus-in-tabula.md``.

The spec's rule IDs are cited where a line of code implements a decision that is not obvious.
Phases: night -> debate -> round1 -> defence -> round2 -> night ... (LUP-D19), each closed by its
deadline (LUP-604); the night is one window resolved at ``T_end`` in the order of LUP-216.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Literal

from pbem.core.commands import Command, CommandSpec, Player, Text, find_spec
from pbem.core.errors import IllegalNow, InvalidSyntax, SetupError
from pbem.core.events import (
    ActionCleared,
    ActionSet,
    Event,
    GameCreated,
    GameEnded,
    PhaseStarted,
    PlayerDied,
    RoleChanged,
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
from pbem.games.werewolf.base import Seat, bold_name, deal, fold_shared, ranked, record_action

WOLF, VILLAGER, SEER, MEDIUM, POSSESSED = "werewolf", "villager", "seer", "medium", "possessed"
BODYGUARD, OWL, MASON, HAMSTER, MYTH = "bodyguard", "owl", "mason", "werehamster", "mythomaniac"

ROLES = (WOLF, VILLAGER, SEER, MEDIUM, POSSESSED, BODYGUARD, OWL, MASON, HAMSTER, MYTH)

# LUP-015: recommended minimum player count of each special character, in deck order.
SPECIAL_MINIMUM: Mapping[str, int] = {
    SEER: 8,
    MEDIUM: 9,
    POSSESSED: 10,
    BODYGUARD: 11,
    OWL: 12,
    MASON: 13,
    HAMSTER: 15,
    MYTH: 16,
}

# Night resolution order (LUP-216, LUP-D04); lower runs first.
NIGHT_ORDER: Mapping[str, int] = {"scan": 1, "protect": 2, "kill": 3, "nominate": 4, "copy": 5}

WEREWOLVES, VILLAGERS, HAMSTER_SIDE = "werewolves", "villagers", "werehamster"


@dataclass(frozen=True)
class LupusOptions:
    """The configuration table of the spec's section 9, with its defaults."""

    deck_mode: Literal["recommended", "custom"] = "recommended"
    specials: tuple[str, ...] = ()
    ghost_variant: bool = False
    night_duration: timedelta = timedelta(hours=18)
    seer_result_timing: Literal["dawn", "immediate"] = "dawn"
    wolves_tie: Literal["random", "no_victim"] = "random"
    wolves_may_target_wolf: bool = False
    seer_pair_agreement: Literal["last", "require_same"] = "last"
    owl_pick_announced: Literal["round1_end", "dawn"] = "round1_end"
    myth_if_missing: Literal["none", "random"] = "none"
    parity_counts_hamster: bool = False
    nomination_tie: Literal["random", "all_tied"] = "random"
    single_nominee: Literal["lynch", "no_lynch"] = "lynch"
    round2_tie: Literal["round1_then_random", "random", "no_lynch"] = "round1_then_random"
    vote_changes_allowed: bool = True
    self_vote_allowed: bool = True
    tally_min_interval: timedelta = timedelta(minutes=15)
    debate_duration: timedelta = timedelta(hours=24)
    round1_duration: timedelta = timedelta(hours=12)
    defence_duration: timedelta = timedelta(hours=6)
    round2_duration: timedelta = timedelta(hours=12)
    reveal_all_at_end: bool = True
    ghost_includes_probe_death: bool = True
    early_close: bool = False
    early_close_day: bool = False


# -- events of this game -------------------------------------------------------------------


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


@dataclass(frozen=True)
class TallyPosted(Event):
    """A running tally went out (LUP-D18: at most once per ``tally_min_interval``)."""

    at: datetime


EVENT_TYPES: tuple[type[Event], ...] = (NightResolved, Nominated, DayVerdict, TallyPosted)


# -- state -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class LupusState:
    """Everything the rules need; built only by :meth:`LupusInTabula.evolve`."""

    options: LupusOptions = field(default_factory=LupusOptions)
    lang: str = "fr"
    order: tuple[PlayerId, ...] = ()
    seats: Mapping[PlayerId, Seat] = field(default_factory=dict)
    phase: str = "setup"
    number: int = 0
    deadlines: Mapping[str, datetime] = field(default_factory=dict)
    actions: Mapping[tuple[PlayerId, str], tuple[int, ActionSet]] = field(default_factory=dict)
    seq: int = 0
    votes: Mapping[PlayerId, PlayerId] = field(default_factory=dict)
    round1_counts: Mapping[str, int] = field(default_factory=dict)
    nominees: tuple[PlayerId, ...] = ()
    owl_pick: PlayerId | None = None
    lynched: Mapping[int, PlayerId | None] = field(default_factory=dict)
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

    def action(self, actor: PlayerId, verb: str) -> ActionSet | None:
        found = self.actions.get((actor, verb))
        return found[1] if found else None

    def ghosts(self) -> list[PlayerId]:
        """Dead players who vote in round 1 (LUP-502, LUP-D22)."""
        if not self.options.ghost_variant:
            return []
        return [
            p
            for p in self.order
            if not self.seats[p].alive
            and (self.options.ghost_includes_probe_death or self.seats[p].cause != "probe")
        ]


def faction(seat: Seat) -> str:
    """LUP-100..LUP-102: the side a player wins with (a converted Mythomaniac follows his card)."""
    if seat.role in (WOLF, POSSESSED):
        return WEREWOLVES
    if seat.role == HAMSTER:
        return HAMSTER_SIDE
    return VILLAGERS


def standard_deck(n: int) -> list[str]:
    """LUP-017: the recommended deck for ``n`` players (LUP-D01)."""
    wolves = 3 if n >= 16 else 2  # LUP-012, LUP-013
    specials = [role for role, minimum in SPECIAL_MINIMUM.items() if n >= minimum]
    specials = [s for role in specials for s in ([role, role] if role == MASON else [role])]
    return [WOLF] * wolves + specials + [VILLAGER] * (n - wolves - len(specials))


def custom_deck(n: int, specials: Sequence[str]) -> tuple[list[str], list[str]]:
    """LUP-D01 custom deck: validated; returns the deck and the below-minimum warnings."""
    counts = Counter(specials)
    for role, k in counts.items():
        if role not in SPECIAL_MINIMUM:
            raise SetupError(f"custom deck: {role!r} is not a special character")
        if role == MASON and k != 2:
            raise SetupError("custom deck: the Masons are always two cards (LUP-016)")
        if role != MASON and k > 1:
            raise SetupError(f"custom deck: at most one {role}")
    if SEER not in counts:
        raise SetupError("custom deck: the Seer is always in the deck (LUP-011)")
    wolves = 3 if n >= 16 else 2
    if wolves + len(specials) > n:
        raise SetupError(f"custom deck: {wolves + len(specials)} cards for {n} players")
    warnings = sorted(r for r in counts if n < SPECIAL_MINIMUM[r])
    order = list(SPECIAL_MINIMUM)
    ordered = sorted(specials, key=order.index)
    return [WOLF] * wolves + ordered + [VILLAGER] * (n - wolves - len(specials)), warnings


def deck_counts(deck: Sequence[str]) -> dict[str, int]:
    counts = Counter(deck)
    order = [WOLF, *SPECIAL_MINIMUM, VILLAGER]
    return {role: counts[role] for role in order if counts[role]}


_PLAYER = (Player(),)
COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("scan", ("SONDER",), ("SCAN", "PROBE"), _PLAYER),  # LUP-610
    CommandSpec("protect", ("PROTEGER",), ("PROTECT",), _PLAYER),  # LUP-611
    CommandSpec("kill", ("TUER",), ("KILL",), _PLAYER),  # LUP-612
    CommandSpec("pack", ("LOUPS",), ("PACK",), (Text(),)),  # LUP-613
    CommandSpec("seers", ("VOYANTS",), ("SEERS",), (Text(),)),  # LUP-614
    CommandSpec("nominate", ("NOMMER",), ("NOMINATE",), _PLAYER),  # LUP-615
    CommandSpec("copy", ("IMITER",), ("COPY", "IMITATE"), _PLAYER),  # LUP-616
    CommandSpec("vote", ("VOTE", "VOTER"), ("VOTE",), _PLAYER, public=True),  # LUP-617..619
    CommandSpec("unvote", ("RETIRER",), ("UNVOTE",), (), public=True),  # LUP-620
)

NIGHT_VERBS = {"scan": SEER, "protect": BODYGUARD, "kill": WOLF, "nominate": OWL, "copy": MYTH}


def _iso(moment: datetime) -> str:
    return moment.isoformat()


class LupusInTabula(Rules[LupusState]):
    """Lupus in Tabula, every rule LUP-001..LUP-750 with the spec's decisions as defaults."""

    id = "lupus-in-tabula"
    title = "Lupus in Tabula"
    options_type = LupusOptions
    templates = "lupus"
    roles = ROLES
    commands = COMMANDS
    event_types = EVENT_TYPES

    # -- state ----------------------------------------------------------------------------

    def new_state(self) -> LupusState:
        return LupusState()

    def evolve(self, state: LupusState, event: Event) -> LupusState:
        shared = fold_shared(state, event)
        if shared is not None:
            return shared
        match event:
            case GameCreated():
                return replace(
                    state,
                    options=parse_options(LupusOptions, event.options),
                    lang=event.lang,
                    order=event.players,
                )
            case RolesDealt():
                seats = {p: Seat(p, event.roles[p], event.roles[p]) for p in state.order}
                return replace(state, seats=seats)
            case PhaseStarted():
                fresh_night = event.phase == "night"
                return replace(
                    state,
                    phase=event.phase,
                    number=event.number,
                    deadlines=event.deadlines,
                    actions={} if fresh_night else state.actions,
                    votes={} if event.phase in ("round1", "round2") else state.votes,
                    nominees=() if fresh_night else state.nominees,
                    owl_pick=state.owl_pick if event.phase != "night" else None,
                    last_tally=None if event.phase in ("round1", "round2") else state.last_tally,
                )
            case ActionSet():
                actions = record_action(state.actions, state.seq + 1, event)
                return replace(state, actions=actions, seq=state.seq + 1)
            case NightResolved():
                return replace(state, owl_pick=event.owl_pick)
            case Nominated():
                counts = dict(event.counts)
                return replace(state, nominees=event.nominees, round1_counts=counts)
            case DayVerdict():
                return replace(state, lynched={**state.lynched, event.day: event.lynched})
            case TallyPosted():
                return replace(state, last_tally=event.at)
        return state

    # -- setup ------------------------------------------------------------------------------

    def setup(self, spec: GameSpec, now: datetime, rng: random.Random) -> list[Event]:
        options = parse_options(LupusOptions, spec.options)
        names = tuple(p.name for p in spec.players)
        n = len(names)
        if not 8 <= n <= 24:  # LUP-010, LUP-D02
            raise SetupError(f"Lupus in Tabula needs 8 to 24 players, not {n} (LUP-010)")
        warnings: list[str] = []
        if spec.roles is not None:
            # A fixed deal is a custom deck: it must respect LUP-D01 like any other.
            specials = [r for r in spec.roles.values() if r in SPECIAL_MINIMUM]
            unknown = sorted({r for r in spec.roles.values() if r not in ROLES})
            if unknown:
                raise SetupError(f"roles: unknown role {unknown[0]!r} for {self.id}")
            deck, warnings = custom_deck(n, specials)
        elif options.deck_mode == "custom":
            deck, warnings = custom_deck(n, options.specials)
        elif options.specials:
            raise SetupError("option 'specials' needs deck_mode = custom (LUP-D01)")
        else:
            deck = standard_deck(n)
        if spec.leftover:
            raise SetupError("Lupus in Tabula deals every card: no leftover cards")
        roles, _ = deal(names, deck, rng, spec.roles, ROLES)
        created = GameCreated(
            self.id,
            names,
            {p.name: p.lang for p in spec.players},
            options_to_json(options),
            spec.lang,
        )
        events: list[Event] = [created, RolesDealt(roles)]
        state = self.fold(events)
        o = options
        events.append(
            public(
                "lupus/opening",
                "opening",
                players=list(names),
                deck=deck_counts(deck),
                warnings=warnings,
                ghost_variant=o.ghost_variant,
                durations={
                    "night": o.night_duration.total_seconds(),
                    "debate": o.debate_duration.total_seconds(),
                    "round1": o.round1_duration.total_seconds(),
                    "defence": o.defence_duration.total_seconds(),
                    "round2": o.round2_duration.total_seconds(),
                },
            )
        )
        for p in names:  # LUP-701: own role only; wolves not yet told each other.
            events.append(
                private(
                    "lupus/role",
                    [p],
                    "opening",
                    role=roles[p],
                    faction=faction(state.seat(p)),
                    immediate=o.seer_result_timing == "immediate",  # LUP-701, LUP-D04
                )
            )
        events += self._start_night(state, 1, now)
        return events

    # -- phases -------------------------------------------------------------------------------

    def _start_night(self, state: LupusState, number: int, now: datetime) -> list[Event]:
        end = now + state.options.night_duration
        thread = f"night-{number}"
        started = PhaseStarted("night", number, {"night": end})
        events: list[Event] = [
            started,
            public("lupus/night_start", thread, number=number, deadline=_iso(end)),
        ]
        state = self.evolve(state, started)
        wolves = state.holders(WOLF)
        for wolf in wolves:  # LUP-711, LUP-D05: the list every night
            events.append(
                private(
                    "lupus/wolves_prompt",
                    [wolf],
                    thread,
                    wolves=wolves,
                    deadline=_iso(end),
                    tie=state.options.wolves_tie,  # the prompt states the tie rule in force
                )
            )
        seers = state.holders(SEER)
        for seer in seers:
            events.append(
                private(
                    "lupus/seer_prompt",
                    [seer],
                    thread,
                    partners=[s for s in seers if s != seer],
                    deadline=_iso(end),
                    # LUP-D04, LUP-D07: the prompt states the options in force.
                    immediate=state.options.seer_result_timing == "immediate",
                    require_same=state.options.seer_pair_agreement == "require_same",
                )
            )
        for role in (BODYGUARD, OWL):
            for holder in state.holders(role):
                events.append(private(f"lupus/{role}_prompt", [holder], thread, deadline=_iso(end)))
        if number == 1:  # LUP-360, LUP-D12
            masons = state.holders(MASON)
            for mason in masons:
                others = [m for m in masons if m != mason]
                events.append(private("lupus/masons", [mason], thread, others=others))
        if number == 2:  # LUP-380
            for myth in state.holders(MYTH):
                events.append(private("lupus/myth_prompt", [myth], thread, deadline=_iso(end)))
        if number >= 2:  # LUP-320, LUP-D10
            for medium in state.holders(MEDIUM):
                lynched = state.lynched.get(number - 1)
                was_wolf = lynched is not None and state.seat(lynched).role == WOLF
                events.append(
                    private(
                        "lupus/medium_result",
                        [medium],
                        thread,
                        day=number - 1,
                        lynched=lynched,
                        was_wolf=was_wolf,
                    )
                )
        return events

    def deadlines(self, state: LupusState) -> Mapping[str, datetime]:
        return state.deadlines

    def on_deadline(
        self, state: LupusState, key: str, now: datetime, rng: random.Random
    ) -> list[Event]:
        if key not in state.deadlines or state.outcome is not None:
            return []
        match state.phase:
            case "night":
                return self._resolve_night(state, now, rng)
            case "debate":
                return self._open_round(state, "round1", now)
            case "round1":
                return self._close_round1(state, now, rng)
            case "defence":
                return self._open_round(state, "round2", now)
            case "round2":
                return self._close_round2(state, now, rng)
        return []

    def _resolve_night(self, state: LupusState, now: datetime, rng: random.Random) -> list[Event]:
        o = state.options
        day = state.number
        thread = f"day-{day}"
        events: list[Event] = []

        # LUP-D05: the council's victim, a tie broken by a recorded draw.
        kill_votes = Counter(
            a.targets[0]
            for (actor, verb), (_, a) in state.actions.items()
            if verb == "kill" and state.seat(actor).role == WOLF
        )
        top = ranked(kill_votes)
        drawn: tuple[PlayerId, ...] = ()
        victim: PlayerId | None = None
        if top and len(top[0]) == 1:
            victim = top[0][0]
        elif top and o.wolves_tie == "random":
            drawn = tuple(top[0])
            victim = rng.choice(drawn)

        probe = self._night_probe(state)
        owl = next(
            (a.targets[0] for (_, v), (_, a) in state.actions.items() if v == "nominate"), None
        )
        myth_choice = self._myth_choice(state, rng)

        resolved = NightResolved(victim, drawn, probe, owl)
        intents: list[Intent] = []
        if probe is not None and state.seat(probe).role == HAMSTER:
            intents.append(Intent("kill", probe, "probe", NIGHT_ORDER["scan"]))  # LUP-372
        if victim is not None:
            intents.append(Intent("kill", victim, "wolves", NIGHT_ORDER["kill"]))
        protected = {a.targets[0] for (_, v), (_, a) in state.actions.items() if v == "protect"}

        def bodyguard(s: LupusState, intent: Intent) -> Veto | None:
            # LUP-341, LUP-D09: only against the wolves, not against the Seer's probe.
            return (
                Veto("bodyguard")
                if intent.cause == "wolves" and intent.target in protected
                else None
            )

        def werehamster(s: LupusState, intent: Intent) -> Veto | None:
            is_hamster = s.seat(intent.target).role == HAMSTER
            return (
                Veto("werehamster") if intent.cause == "wolves" and is_hamster else None
            )  # LUP-371

        def die(s: LupusState, intent: Intent) -> list[Event]:
            return [PlayerDied(intent.target, intent.cause)] if s.seat(intent.target).alive else []

        after = self.evolve(state, resolved)
        result = resolve(after, "night", intents, [bodyguard, werehamster], die, self.evolve)
        events += [resolved, *result.events]
        after = result.state

        # LUP-381, LUP-D14: the Mythomaniac takes the role after the attacks (so a victim of
        # Night 2 dies unchanged) and acts in it from Night 3.
        myth_notices: list[Event] = []
        if myth_choice is not None:
            myth, target = myth_choice
            became = state.seat(target).role if state.seat(target).role in (WOLF, SEER) else None
            if after.seat(myth).alive:
                partners = [p for p in (after.holders(became) if became else []) if p != myth]
                if became:
                    change = RoleChanged(myth, became)
                    events.append(change)
                    after = self.evolve(after, change)
                    if partners:
                        myth_notices.append(
                            private("lupus/myth_joined", partners, thread, myth=myth, role=became)
                        )
                myth_notices.insert(
                    0,
                    private(
                        "lupus/myth_result",
                        [myth],
                        thread,
                        target=target,
                        became=became,
                        partners=partners,
                    ),
                )

        # Dawn, private first (LUP-720..LUP-722), then public (LUP-730).
        if probe is not None and o.seer_result_timing == "dawn":
            seers = [s for s in state.holders(SEER) if after.seat(s).alive]  # LUP-D06
            if seers:
                events.append(
                    private(
                        "lupus/seer_result",
                        seers,
                        thread,
                        target=probe,
                        is_wolf=state.seat(probe).role == WOLF,
                    )
                )
        events += myth_notices
        council = [w for w in state.holders(WOLF) if after.seat(w).alive]
        if council:
            events.append(
                private(
                    "lupus/wolves_victim", council, thread, victim=victim, drawn_among=list(drawn)
                )
            )
        dead = sorted((p for p in state.living() if not after.seat(p).alive), key=fold)
        events += self._after_deaths(
            after,
            now,
            "lupus/dawn",
            thread,
            dead=dead,
            # LUP-D11 (2), (4): announced at dawn only if it stands (a dead designee lapses).
            owl=owl if o.owl_pick_announced == "dawn" and owl and after.seat(owl).alive else None,
        )
        return events

    def _night_probe(self, state: LupusState) -> PlayerId | None:
        """LUP-D07: the pair's probe is the last one received (or agreed, ``require_same``)."""
        probes = sorted(
            (seq, a)
            for (actor, v), (seq, a) in state.actions.items()
            if v == "scan" and state.seat(actor).role == SEER
        )
        if not probes:
            return None
        if (
            state.options.seer_pair_agreement == "require_same"
            and len({a.targets[0] for _, a in probes}) > 1
        ):
            return None
        return probes[-1][1].targets[0]

    def _myth_choice(
        self, state: LupusState, rng: random.Random
    ) -> tuple[PlayerId, PlayerId] | None:
        if state.number != 2:
            return None
        for myth in state.holders(MYTH):
            chosen = state.action(myth, "copy")
            if chosen is not None:
                return myth, chosen.targets[0]
            if state.options.myth_if_missing == "random":  # LUP-D14
                others = [p for p in state.living() if p != myth]
                return myth, rng.choice(others)
        return None

    def _after_deaths(
        self, state: LupusState, now: datetime, template: str, thread: str, **params: Any
    ) -> list[Event]:
        """Announce, then check victory (LUP-114) and either end or move on."""
        ended = self._victory(state)
        if state.phase == "night":
            nxt = "debate"
            o = state.options
            t_debate = now + o.debate_duration
            t_r1 = t_debate + o.round1_duration
            t_def = t_r1 + o.defence_duration
            t_r2 = t_def + o.round2_duration
            schedule = {
                "debate": _iso(t_debate),
                "round1": _iso(t_r1),
                "defence": _iso(t_def),
                "round2": _iso(t_r2),
            }
            events: list[Event] = [
                public(
                    template,
                    thread,
                    day=state.number,
                    schedule=None if ended else schedule,
                    **params,
                )
            ]
            if ended:
                return events + ended
            return [*events, PhaseStarted(nxt, state.number, {nxt: t_debate})]
        events = [public(template, thread, day=state.number, **params)]
        if ended:
            return events + ended
        return events + self._start_night(state, state.number + 1, now)

    def _victory(self, state: LupusState) -> list[Event]:
        """LUP-110..LUP-113, LUP-D15, LUP-D26: the end of the game, or []."""
        living = [state.seat(p) for p in state.living()]
        wolves = sum(1 for s in living if s.role == WOLF)
        hamster_alive = any(s.role == HAMSTER for s in living)
        others = sum(
            1
            for s in living
            if s.role != WOLF and (s.role != HAMSTER or state.options.parity_counts_hamster)
        )
        if not living:
            return self._end(state, Termination.NO_WINNER, None)
        if wolves >= 1 and wolves >= others:
            side = WEREWOLVES
        elif wolves == 0:
            side = VILLAGERS
        else:
            return []
        if hamster_alive:
            side = HAMSTER_SIDE  # LUP-112, LUP-374
        return self._end(state, Termination.VICTORY, side)

    def _end(self, state: LupusState, termination: Termination, side: str | None) -> list[Event]:
        winners = tuple(
            p for p in state.order if side is not None and faction(state.seat(p)) == side
        )
        reveal = [
            {
                "name": p,
                "role": state.seat(p).role,
                "dealt": state.seat(p).dealt,
                "alive": state.seat(p).alive,
            }
            for p in state.order
        ]
        return [
            GameEnded(termination.value, side, winners),
            public(
                "lupus/victory",
                "end",
                side=side,
                winners=list(winners),
                reveal=reveal if state.options.reveal_all_at_end else [],
            ),
        ]

    def _open_round(self, state: LupusState, ballot: str, now: datetime) -> list[Event]:
        o = state.options
        end = now + (o.round1_duration if ballot == "round1" else o.round2_duration)
        thread = f"day-{state.number}"
        started = PhaseStarted(ballot, state.number, {ballot: end})
        if ballot == "round1":  # LUP-740
            voters = state.living() + state.ghosts()
            notice = public(
                "lupus/round1_open",
                thread,
                day=state.number,
                deadline=_iso(end),
                ghosts=state.ghosts(),
                voters=len(voters),
                changes=o.vote_changes_allowed,  # LUP-D18: say whether a vote is final
            )
        else:  # LUP-742
            voters = [p for p in state.living() if p not in state.nominees]
            notice = public(
                "lupus/round2_open",
                thread,
                day=state.number,
                deadline=_iso(end),
                nominees=list(state.nominees),
                voters=voters,
            )
        return [started, notice]

    def _tally_params(self, state: LupusState) -> dict[str, Any]:
        ghosts = set(state.ghosts())
        votes = [{"voter": v, "target": t, "ghost": v in ghosts} for v, t in state.votes.items()]
        counts = Counter(state.votes.values())
        return {
            "votes": votes,
            "counts": [
                {"name": n, "count": c} for g in ranked(counts) for n in g for c in [counts[n]]
            ],
        }

    def _close_round1(self, state: LupusState, now: datetime, rng: random.Random) -> list[Event]:
        o = state.options
        thread = f"day-{state.number}"
        counts = Counter(t for t in state.votes.values() if state.seat(t).alive)
        owl = state.owl_pick if state.owl_pick and state.seat(state.owl_pick).alive else None
        slots = 2 - (1 if owl else 0)
        chosen: list[PlayerId] = []
        draws: list[dict[str, Any]] = []
        pool = {p: c for p, c in counts.items() if p != owl and c >= 1}  # LUP-D16
        for group in ranked(pool):
            room = slots - len(chosen)
            if room <= 0:
                break
            ordered = [p for p in state.order if p in group]
            if len(ordered) <= room or o.nomination_tie == "all_tied":
                chosen += ordered
            else:
                picked = rng.sample(ordered, room)
                draws.append({"among": ordered, "chosen": [p for p in ordered if p in picked]})
                chosen += [p for p in ordered if p in picked]
                break
        nominees = ([owl] if owl else []) + chosen
        nominated = Nominated(
            tuple(nominees), owl, {str(k): v for k, v in counts.items()}, tuple(draws)
        )
        after = self.evolve(state, nominated)
        params = self._tally_params(state)
        events: list[Event] = [nominated]
        if len(nominees) >= 2:
            end = now + o.defence_duration
            events.append(
                public(
                    "lupus/round1_result",
                    thread,
                    day=state.number,
                    nominees=nominees,
                    owl=owl,
                    draws=draws,
                    lynched=None,
                    outcome="defence",
                    deadline=_iso(end),
                    **params,
                )
            )
            return [*events, PhaseStarted("defence", state.number, {"defence": end})]
        if len(nominees) == 1 and o.single_nominee == "lynch":
            lynched: PlayerId | None = nominees[0]
            how = "single"
        else:
            lynched, how = None, "nobody" if not nominees else "single_spared"
        events.append(DayVerdict(state.number, lynched, how))
        if lynched:
            events.append(PlayerDied(lynched, "lynch"))
        after = self.fold(events[1:], after)
        return events + self._after_deaths(
            after,
            now,
            "lupus/round1_result",
            thread,
            nominees=nominees,
            owl=owl,
            draws=draws,
            lynched=lynched,
            outcome=how,
            deadline=None,
            **params,
        )

    def _close_round2(self, state: LupusState, now: datetime, rng: random.Random) -> list[Event]:
        o = state.options
        thread = f"day-{state.number}"
        counts = Counter(t for t in state.votes.values() if t in state.nominees)
        top = [
            p
            for p in state.nominees
            if counts[p] == max((counts[n] for n in state.nominees), default=0)
        ]
        drawn: tuple[PlayerId, ...] = ()
        how = "majority"
        lynched: PlayerId | None
        if len(top) == 1:
            lynched = top[0]
        elif o.round2_tie == "no_lynch":
            lynched, how = None, "tie_no_lynch"
        else:
            tied = top
            if o.round2_tie == "round1_then_random":  # LUP-D17
                best = max(state.round1_counts.get(p, 0) for p in tied)
                tied = [p for p in tied if state.round1_counts.get(p, 0) == best]
            if len(tied) == 1:
                lynched, how = tied[0], "round1"
            else:
                drawn = tuple(tied)
                lynched, how = rng.choice(tied), "draw"
        verdict = DayVerdict(state.number, lynched, how, drawn)
        events: list[Event] = [verdict]
        if lynched:
            events.append(PlayerDied(lynched, "lynch"))
        after = self.fold(events, state)
        return events + self._after_deaths(
            after,
            now,
            "lupus/round2_result",
            thread,
            lynched=lynched,
            how=how,
            drawn_among=list(drawn),
            nominees=list(state.nominees),
            **self._tally_params(state),
        )

    # -- commands ---------------------------------------------------------------------------

    def decide(
        self, state: LupusState, actor: PlayerId, command: Command, now: datetime, channel: str
    ) -> list[Event]:
        if state.outcome is not None or state.phase == "over":
            raise IllegalNow("game_over")  # LUP-750
        verb = command.verb
        seat = state.seat(actor)
        if verb == "cancel" and self._cancelled_verb(command) == "vote":
            # LUP-603, LUP-620: CANCEL VOTE is UNVOTE, on the channel and at the time it came
            # (a ghost withdraws privately; a living voter is sent to the list).
            return self._decide_vote(state, actor, Command("unvote"), now, channel)
        if verb in ("vote", "unvote"):
            return self._decide_vote(state, actor, command, now, channel)
        if not seat.alive:
            raise IllegalNow("dead")  # LUP-607
        if verb == "pass":
            if state.phase != "night":
                raise IllegalNow("nothing_to_pass")
            self._check_probe_not_final(state, actor)
            return [ActionSet(actor, "pass")]
        if verb == "cancel":
            return self._decide_cancel(state, actor, command)
        if state.phase != "night":
            raise IllegalNow("night_only")
        if verb == "pack":  # LUP-613: a night relay among the werewolves
            if seat.role != WOLF:
                raise IllegalNow("not_your_role")
            others = [w for w in state.holders(WOLF) if w != actor]
            if not others:
                raise IllegalNow("nobody_to_hear")  # the relay would reach nobody
            thread = f"night-{state.number}"
            return [private("lupus/pack_chat", others, thread, sender=actor, text=command.text)]
        if verb == "seers":  # LUP-614, LUP-D07
            seers = state.holders(SEER)
            if seat.role != SEER or len(seers) < 2:
                raise IllegalNow("no_second_seer" if seat.role == SEER else "not_your_role")
            others = [s for s in seers if s != actor]
            return [
                private(
                    "lupus/seers_chat",
                    others,
                    f"night-{state.number}",
                    sender=actor,
                    text=command.text,
                )
            ]
        role = NIGHT_VERBS[verb]
        if seat.role != role:
            raise IllegalNow("not_your_role")
        if verb == "copy" and state.number != 2:
            raise IllegalNow("night2_only")  # LUP-380
        target = command.targets[0]
        if not state.seat(target).alive:
            raise IllegalNow("target_not_living", name=target)
        if target == actor and verb in ("scan", "protect", "copy"):
            raise IllegalNow("not_yourself")  # LUP-610, LUP-611, LUP-616
        if (
            verb == "kill"
            and state.seat(target).role == WOLF
            and not state.options.wolves_may_target_wolf
        ):
            raise IllegalNow(
                "target_is_partner", name=target
            )  # LUP-D05: the wolves know each other
        thread = f"night-{state.number}"
        events: list[Event] = [ActionSet(actor, verb, (target,))]
        if verb == "scan":
            events = self._decide_scan(state, actor, target, thread)
        elif verb == "kill":  # LUP-712
            others = [w for w in state.holders(WOLF) if w != actor]
            if others:
                events.append(
                    private("lupus/wolf_vote_relay", others, thread, voter=actor, target=target)
                )
        return events

    def _decide_scan(
        self, state: LupusState, actor: PlayerId, target: PlayerId, thread: str
    ) -> list[Event]:
        seers = state.holders(SEER)
        others = [s for s in seers if s != actor]
        if state.options.seer_result_timing == "immediate":
            # LUP-D04 alternative: the first valid probe of the night is final and answered.
            if any(state.action(s, "scan") for s in seers):
                raise IllegalNow("already_final")
            is_wolf = state.seat(target).role == WOLF
            return [
                ActionSet(actor, "scan", (target,)),
                private("lupus/seer_result", seers, thread, target=target, is_wolf=is_wolf),
            ]
        events: list[Event] = [ActionSet(actor, "scan", (target,))]
        if others:  # LUP-712: each probe relayed to the other Seer
            events.append(private("lupus/seer_relay", others, thread, sender=actor, target=target))
        return events

    def _cancelled_verb(self, command: Command) -> str:
        found = find_spec(command.text.split(), self.all_commands)
        if found is None:
            raise InvalidSyntax("cancel_what")
        return found[0].verb

    def _check_probe_not_final(self, state: LupusState, actor: PlayerId) -> None:
        # LUP-D04 (seer_result_timing = immediate): the first probe is final and already
        # answered, so neither PASS nor CANCEL SCAN may withdraw it (and open a second one).
        if state.options.seer_result_timing == "immediate" and state.action(actor, "scan"):
            raise IllegalNow("already_final")

    def _decide_cancel(self, state: LupusState, actor: PlayerId, command: Command) -> list[Event]:
        verb = self._cancelled_verb(command)
        if state.phase != "night":
            raise IllegalNow("night_only")  # LUP-603, LUP-604: night actions end with the night
        if state.action(actor, verb) is None:
            raise IllegalNow("nothing_to_cancel")
        if verb == "scan":
            self._check_probe_not_final(state, actor)
        return [ActionCleared(actor, verb)]

    def _decide_vote(
        self, state: LupusState, actor: PlayerId, command: Command, now: datetime, channel: str
    ) -> list[Event]:
        o = state.options
        seat = state.seat(actor)
        phase = state.phase
        if not seat.alive and actor not in state.ghosts():
            raise IllegalNow("dead")  # LUP-607: said first, whatever the phase
        if phase == "debate":
            raise IllegalNow("voting_not_open", opens=_iso(state.deadlines["debate"]))  # LUP-D19
        if phase == "defence":
            raise IllegalNow("round2_not_open", opens=_iso(state.deadlines["defence"]))
        if phase not in ("round1", "round2"):
            raise IllegalNow("no_vote_now")
        ghost = not seat.alive
        if ghost:
            if phase == "round2" or actor not in state.ghosts():
                raise IllegalNow(
                    "dead" if actor not in state.ghosts() else "ghost_round2"
                )  # LUP-408, LUP-607
            if channel == "list":
                raise IllegalNow("ghost_vote_private")  # LUP-D22
        elif channel != "list":
            raise IllegalNow("vote_on_list")  # LUP-617: votes are public
        if phase == "round2" and actor in state.nominees:
            raise IllegalNow("nominee_no_vote")  # LUP-408
        previous = state.votes.get(actor)
        if previous is not None and not o.vote_changes_allowed:
            raise IllegalNow("vote_final")  # LUP-D18
        if command.verb == "unvote":
            if previous is None:
                raise IllegalNow("no_vote_to_withdraw")
            target: PlayerId | None = None
        else:
            target = command.targets[0]
            if not state.seat(target).alive:
                raise IllegalNow("target_not_living", name=target)
            if phase == "round2" and target not in state.nominees:
                raise IllegalNow("not_a_nominee", name=target, nominees=list(state.nominees))
            if target == actor and not o.self_vote_allowed:
                raise IllegalNow("not_yourself")
        vote = VoteSet(phase, actor, target, state.seq + 1)
        events: list[Event] = [vote]
        last = state.last_tally
        if last is None or now - last >= o.tally_min_interval:  # LUP-D18 running tally
            after = self.evolve(state, vote)
            events += [
                TallyPosted(now),
                public(
                    "lupus/tally",
                    f"day-{state.number}",
                    day=state.number,
                    ballot=phase,
                    **self._tally_params(after),
                ),
            ]
        return events

    # -- reading ------------------------------------------------------------------------------

    def outcome(self, state: LupusState) -> Outcome | None:
        return state.outcome

    def names(self, state: LupusState) -> Sequence[PlayerId]:
        return state.order

    def summary(self, state: LupusState) -> dict[str, Any]:
        return {
            "game": self.id,
            "status": "finished" if state.outcome else "running",
            "phase": state.phase,
            "day": state.number,
            "winners": list(state.outcome.winners) if state.outcome else [],
            "side": state.outcome.side if state.outcome else None,
            "players": [
                {"name": p, "role": s.role, "team": faction(s), "alive": s.alive}
                for p in state.order
                for s in [state.seat(p)]
            ],
        }

    def status(self, state: LupusState, actor: PlayerId) -> dict[str, Any]:
        """LUP-622: own role, partners he knows, phase, deadlines, pending, living, nominees."""
        seat = state.seat(actor)
        partners: list[PlayerId] = []
        if seat.role == WOLF:
            partners = [w for w in state.holders(WOLF, alive=False) if w != actor]
        elif seat.role == MASON:
            partners = [m for m in state.holders(MASON, alive=False) if m != actor]
        elif seat.role == SEER:
            partners = [s for s in state.holders(SEER, alive=False) if s != actor]
        pending = [
            {"verb": a.verb, "targets": list(a.targets)}
            for (who, _), (_, a) in state.actions.items()
            if who == actor
        ]
        vote = state.votes.get(actor)
        return {
            "role": seat.role,
            "faction": faction(seat),
            "alive": seat.alive,
            "partners": partners,
            "phase": state.phase,
            "number": state.number,
            "deadlines": {k: _iso(v) for k, v in state.deadlines.items()},
            "pending": pending,
            "vote": vote,
            "living": state.living(),
            "nominees": list(state.nominees),
        }

    def available(self, state: LupusState, actor: PlayerId) -> list[CommandSpec]:
        seat = state.seat(actor)
        allowed = {"help", "status"}
        if state.phase == "night" and seat.alive:
            allowed |= {"pass", "cancel"} | {v for v, r in NIGHT_VERBS.items() if r == seat.role}
            if seat.role == WOLF:
                allowed.add("pack")
            if seat.role == SEER and len(state.holders(SEER)) > 1:
                allowed.add("seers")
            if state.number != 2:
                allowed.discard("copy")
        if state.phase == "round1" and (seat.alive or actor in state.ghosts()):
            allowed |= {"vote", "unvote"}
        if state.phase == "round2" and seat.alive and actor not in state.nominees:
            allowed |= {"vote", "unvote"}  # LUP-408: neither nominees nor ghosts vote in round 2
        return [c for c in self.all_commands if c.verb in allowed]

    def on_post(
        self,
        state: LupusState,
        actor: PlayerId,
        lines: Sequence[str],
        now: datetime,
        *,
        moderated: bool = True,
    ) -> list[Event]:
        """LUP-005, LUP-505, LUP-D22: the eliminated take no further part in the debates, and
        "posts of ghosts and dead players on the list are held if the daemon moderates the
        list": a relaying daemon refuses them (never distributed), with the reason in private.

        On an external list the post has reached everyone already: its commands are refused
        one by one instead (LUP-607), which tells a ghost to vote privately."""
        if not moderated or state.outcome is not None or state.phase == "over":
            return []
        if actor in state.seats and not state.seat(actor).alive:
            # a ghost's only act is his private round-1 vote (LUP-D22): say so
            raise IllegalNow("ghost_vote_private" if actor in state.ghosts() else "dead")
        return []

    def bold_command(
        self, state: LupusState, actor: PlayerId, bold: Sequence[str]
    ) -> Command | None:
        """The forum convention: a name in bold in a public post is a vote."""
        name = bold_name(state.order, bold)
        return Command("vote", (name,)) if name else None

    def final(self, state: LupusState, actor: PlayerId, verb: str) -> bool:
        """LUP-D18, LUP-D04: a vote when changes are off, an immediate probe, are final."""
        if verb in ("vote", "unvote"):
            return not state.options.vote_changes_allowed
        return verb == "scan" and state.options.seer_result_timing == "immediate"

    def ready_to_close(self, state: LupusState) -> str | None:
        """LUP-D29: close early only when everyone has acted (never by default)."""
        o = state.options
        if state.phase == "night" and o.early_close:
            acted = {actor for actor, _ in state.actions}
            return "night" if set(state.living()) <= acted else None
        if state.phase in ("round1", "round2") and o.early_close_day:
            return state.phase if not self.awaiting(state) else None
        return None

    def side_of(self, state: LupusState, player: PlayerId) -> str | None:
        return faction(state.seat(player))

    def awaiting(self, state: LupusState) -> frozenset[PlayerId]:
        if state.phase == "night":
            acted = {actor for actor, _ in state.actions}
            powered = [p for p in state.living() if state.seat(p).role in NIGHT_VERBS.values()]
            powered = [p for p in powered if state.seat(p).role != MYTH or state.number == 2]
            return frozenset(p for p in powered if p not in acted)
        if state.phase == "round1":
            return frozenset(p for p in state.living() + state.ghosts() if p not in state.votes)
        if state.phase == "round2":
            return frozenset(
                p for p in state.living() if p not in state.nominees and p not in state.votes
            )
        return frozenset()


__all__ = ["LupusInTabula", "LupusOptions", "LupusState", "standard_deck"]
