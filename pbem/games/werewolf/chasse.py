"""Chasse aux sorcières, the Charmed-themed werewolf (14 players, 16 cards):
``docs/rules/chasse-aux-sorcieres.md`` (the seed ``002_c7b8f4201bd74b8b.txt`` wins over it).

The spec's rule IDs are cited where a line implements a decision that is not obvious. A night is
a table of email sub-phases (CAS-220, CAS-221): Night 1 runs L, C, W1, W2 and later nights W1, W2;
each is closed by its deadline. W1 resolves steps 7-9 and the dawn steps 10-11 in the priority
order of :data:`NIGHT_STEPS` through the kernel's resolution loop. Days: one vote closed at
``T_day``; a tie opens a tie-break (CAS-D20), a Prue killed by the Demons or lynched opens a revenge
window (CAS-D18).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
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
    Actions,
    LeftoverChanged,
    PowerSpent,
    Seat,
    deal,
    exchange_with_leftover,
    fold_shared,
    ranked,
    record_action,
    swap_cards,
    weighted_plurality,
)

DEMON, INNOCENT, PHOEBE, PRUE, COOP = "demon", "innocent", "phoebe", "prue", "coop"
PIPER, PAIGE, LEO, BILLIE, COLE = "piper", "paige", "leo", "billie", "cole"
ROLES = (DEMON, INNOCENT, PHOEBE, PRUE, COOP, PIPER, PAIGE, LEO, BILLIE, COLE)

# CAS-010: the 16 cards for 14 players (CAS-002).
DECK: Mapping[str, int] = {
    DEMON: 4,
    PHOEBE: 1,
    PRUE: 1,
    COOP: 1,
    PIPER: 1,
    PAIGE: 1,
    LEO: 1,
    BILLIE: 1,
    COLE: 1,
    INNOCENT: 4,
}
PLAYERS = 14

DEMONS, GOOD, LOVERS = "demons", "good", "lovers"

# CAS-220, CAS-221: the email sub-phases of a night, in order.
NIGHT_ONE: tuple[str, ...] = ("L", "C", "W1", "W2")
LATER_NIGHT: tuple[str, ...] = ("W1", "W2")
NIGHT_PHASES = frozenset(NIGHT_ONE)
# CAS-D02: the option giving each sub-phase's duration.
DURATION_OF: Mapping[str, str] = {
    "L": "leo_duration",
    "C": "coop_duration",
    "W1": "w1_duration",
    "W2": "w2_duration",
}


def night_sequence(number: int) -> tuple[str, ...]:
    """CAS-220, CAS-221, CAS-226: the sub-phases of night ``number`` (always the same ones)."""
    return NIGHT_ONE if number == 1 else LATER_NIGHT


# The seed's step numbers are the resolution priorities (CAS-210..CAS-217, CAS-223, CAS-225).
NIGHT_STEPS: Mapping[str, int] = {
    "take": 4,
    "lovers": 5,
    "scan": 7,
    "kill": 8,
    "swap": 9,
    "burn": 10,
    "heal": 11,
}

# Which sub-phase collects which command, and which card may send it ("kill": the council).
SUBPHASE_OF: Mapping[str, str] = {
    "take": "L",
    "keep": "L",
    "lovers": "C",
    "scan": "W1",
    "kill": "W1",
    "swap": "W1",
    "burn": "W2",
    "heal": "W2",
}
CARD_OF: Mapping[str, str] = {
    "take": LEO,
    "keep": LEO,
    "lovers": COOP,
    "scan": PHOEBE,
    "swap": COLE,
    "burn": PIPER,
    "heal": PAIGE,
}
ONCE_PER_GAME = (PIPER, PAIGE)  # CAS-340, CAS-350; COLE's power ends too (CAS-394)

ROLE_WORDS: Mapping[str, tuple[str, ...]] = {
    DEMON: ("DEMON", "DÉMON", "DEMONS"),
    INNOCENT: ("INNOCENT", "SIMPLE INNOCENT"),
    PHOEBE: ("PHOEBE",),
    PRUE: ("PRUE",),
    COOP: ("COOP",),
    PIPER: ("PIPER",),
    PAIGE: ("PAIGE",),
    LEO: ("LEO", "LÉO"),
    BILLIE: ("BILLIE",),
    COLE: ("COLE",),
}


@dataclass(frozen=True)
class ChasseOptions:
    """The configuration table of the spec's section 8, with its defaults."""

    custom_deck: tuple[str, ...] = ()
    leo_duration: timedelta = timedelta(hours=6)
    coop_duration: timedelta = timedelta(hours=6)
    w1_duration: timedelta = timedelta(hours=12)
    w2_duration: timedelta = timedelta(hours=6)
    day_duration: timedelta = timedelta(hours=48)
    lovers_if_missing: Literal["none", "random"] = "none"
    lovers_told_partner_role: bool = False
    mixed_lovers_victory: Literal["survive_to_end", "last_two"] = "survive_to_end"
    council_submission: Literal["last", "first"] = "last"
    cole_target_told_swapper: bool = False
    attribute_piper_kill: bool = False
    prue_revenge_triggers: Literal["demons,lynch", "any"] = "demons,lynch"
    revenge_window: timedelta = timedelta(hours=4)
    penny_public: bool = True
    tie_order: Literal[
        "penny,last_lynched,random",
        "last_lynched,penny,random",
        "penny,random",
        "last_lynched,random",
        "random",
    ] = "penny,last_lynched,random"
    tiebreak_window: timedelta = timedelta(hours=2)
    tally_min_interval: timedelta = timedelta(minutes=15)
    everyone_dead: Literal["good", "draw"] = "good"
    reveal_all_at_end: bool = True
    list_closed_at_night: bool = True
    early_close: bool = False
    early_close_day: bool = False
    penny_player: str = ""
    """Not in the spec: fixes Penny's player (a transcript's deal); empty means drawn."""


# -- events of this game -------------------------------------------------------------------


@dataclass(frozen=True)
class PennyGiven(Event):
    """CAS-370, CAS-D19: the player whose vote counts double (drawn at setup)."""

    player: PlayerId


@dataclass(frozen=True)
class LoversFormed(Event):
    """CAS-330, CAS-D06: the two Lovers (``how``: ``coop`` or ``random``)."""

    lovers: tuple[PlayerId, ...]
    how: str = "coop"


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


@dataclass(frozen=True)
class TallyPosted(Event):
    """A running tally went out (CAS-D21: at most once per ``tally_min_interval``)."""

    at: datetime


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


# -- state -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChasseState:
    """Everything the rules need; built only by :meth:`ChasseAuxSorcieres.evolve`."""

    options: ChasseOptions = field(default_factory=ChasseOptions)
    lang: str = "fr"
    order: tuple[PlayerId, ...] = ()
    seats: Mapping[PlayerId, Seat] = field(default_factory=dict)
    leftover: tuple[str, ...] = ()
    dealt_leftover: tuple[str, ...] = ()
    penny: PlayerId | None = None
    lovers: tuple[PlayerId, ...] = ()
    phase: str = "setup"
    number: int = 0
    deadlines: Mapping[str, datetime] = field(default_factory=dict)
    actions: Actions = field(default_factory=dict)
    seq: int = 0
    votes: Mapping[PlayerId, PlayerId] = field(default_factory=dict)
    victim: PlayerId | None = None
    spent: frozenset[str] = frozenset()
    lynched: tuple[PlayerId, ...] = ()
    tie: TieOpened | None = None
    revenge: RevengeOpened | None = None
    last_tally: datetime | None = None
    outcome: Outcome | None = None

    def seat(self, name: PlayerId) -> Seat:
        return self.seats[name]

    def alive(self, name: PlayerId) -> bool:
        return self.seats[name].alive

    def living(self) -> list[PlayerId]:
        return [p for p in self.order if self.seats[p].alive]

    def holders(self, role: str, *, alive: bool = True) -> list[PlayerId]:
        return [
            p
            for p in self.order
            if self.seats[p].role == role and (self.seats[p].alive or not alive)
        ]

    def holder(self, role: str) -> PlayerId | None:
        found = self.holders(role)
        return found[0] if found else None

    def action(self, actor: PlayerId, verb: str) -> ActionSet | None:
        found = self.actions.get((actor, verb))
        return found[1] if found else None

    def council(self) -> list[PlayerId]:
        """CAS-214, CAS-D10: the living Demons and Billie, in alphabetical order (so that the
        list's order never shows which one is Billie)."""
        members = [p for p in self.living() if self.seats[p].role in (DEMON, BILLIE)]
        return sorted(members, key=fold)

    def partner(self, player: PlayerId) -> PlayerId | None:
        if player in self.lovers:
            return next(p for p in self.lovers if p != player)
        return None

    def cole_active(self) -> bool:
        """CAS-394, CAS-395: the Cole power runs until Cole becomes a Demon or is eliminated."""
        return COLE not in self.spent and self.holder(COLE) is not None

    def weight(self, player: PlayerId) -> int:
        return 2 if player == self.penny else 1  # CAS-401


def faction(role: str) -> str:
    """CAS-014, CAS-015: a player's side is that of the card he holds."""
    return DEMONS if role == DEMON else GOOD


def deck_cards(deck: Mapping[str, int]) -> list[str]:
    return [role for role, n in deck.items() for _ in range(n)]


def _iso(moment: datetime) -> str:
    return moment.isoformat()


_PLAYER = (Player(),)
COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("take", ("PRENDRE",), ("TAKE",), (Word(ROLE_WORDS),)),  # CAS-610
    CommandSpec("keep", ("GARDER",), ("KEEP",)),  # CAS-611
    CommandSpec("lovers", ("AMOUREUX",), ("LOVERS",), (Players(2),)),  # CAS-612
    CommandSpec("scan", ("SONDER",), ("SCAN", "PROBE"), _PLAYER),  # CAS-613
    CommandSpec("kill", ("TUER",), ("KILL",), _PLAYER),  # CAS-614
    CommandSpec("council", ("CONSEIL",), ("COUNCIL",), (Text(),)),  # CAS-615
    CommandSpec("swap", ("ECHANGER",), ("SWAP",), _PLAYER),  # CAS-616
    CommandSpec("burn", ("BRULER",), ("BURN",), _PLAYER),  # CAS-617
    CommandSpec("heal", ("GUERIR",), ("HEAL",), (Player(optional=True),)),  # CAS-618
    CommandSpec("revenge", ("VENGEANCE",), ("REVENGE",), _PLAYER),  # CAS-619
    CommandSpec("vote", ("VOTE", "VOTER"), ("VOTE",), _PLAYER, public=True),  # CAS-620
    CommandSpec("unvote", ("RETIRER",), ("UNVOTE",), (), public=True),  # CAS-621
    CommandSpec("choose", ("DESIGNER",), ("CHOOSE",), _PLAYER, public=True),  # CAS-622
    CommandSpec("spare", ("SAUVER",), ("SPARE",), _PLAYER),  # CAS-623
)

# CAS-D30: nicknames may not be a role name.
RESERVED = (*(w for words in ROLE_WORDS.values() for w in words), "PENNY")


class ChasseAuxSorcieres(Rules[ChasseState]):
    """Chasse aux sorcières: every rule CAS-001..CAS-750 with the spec's decisions as defaults."""

    id = "chasse-aux-sorcieres"
    title = "Chasse aux sorcières"
    options_type = ChasseOptions
    templates = "chasse"
    roles = ROLES
    commands = COMMANDS
    event_types = EVENT_TYPES
    reserved = RESERVED

    # -- state ----------------------------------------------------------------------------

    def new_state(self) -> ChasseState:
        return ChasseState()

    def evolve(self, state: ChasseState, event: Event) -> ChasseState:
        shared = fold_shared(state, event)
        if shared is not None and isinstance(event, GameEnded):
            return replace(shared, revenge=None, tie=None)  # CAS-105: pending windows end
        if shared is not None:
            return shared
        match event:
            case GameCreated():
                return replace(
                    state,
                    options=parse_options(ChasseOptions, event.options),
                    lang=event.lang,
                    order=event.players,
                )
            case RolesDealt():
                seats = {p: Seat(p, event.roles[p], event.roles[p]) for p in state.order}
                return replace(
                    state, seats=seats, leftover=event.leftover, dealt_leftover=event.leftover
                )
            case PennyGiven():
                return replace(state, penny=event.player)
            case PhaseStarted():
                return replace(
                    state,
                    phase=event.phase,
                    number=event.number,
                    deadlines=event.deadlines,
                    actions={} if event.phase in NIGHT_PHASES else state.actions,
                    victim=None if event.phase in ("L", "W1") else state.victim,
                    votes={} if event.phase == "day" else state.votes,
                    last_tally=None if event.phase == "day" else state.last_tally,
                    tie=state.tie if event.phase == "tiebreak" else None,
                )
            case ActionSet():
                actions = record_action(state.actions, state.seq + 1, event)
                return replace(state, actions=actions, seq=state.seq + 1)
            case LeftoverChanged():
                return replace(state, leftover=event.leftover)
            case PowerSpent():
                return replace(state, spent=state.spent | {event.card})
            case LoversFormed():
                return replace(state, lovers=event.lovers)
            case VictimFixed():
                return replace(state, victim=event.victim)
            case Verdict():
                lynched = state.lynched + ((event.lynched,) if event.lynched else ())
                return replace(state, lynched=lynched, tie=None)
            case TieOpened():
                return replace(state, tie=event)
            case RevengeOpened():
                return replace(state, revenge=event)
            case RevengeClosed():
                return replace(state, revenge=None)
            case TallyPosted():
                return replace(state, last_tally=event.at)
        return state

    # -- setup ------------------------------------------------------------------------------

    def setup(self, spec: GameSpec, now: datetime, rng: random.Random) -> list[Event]:
        options = parse_options(ChasseOptions, spec.options)
        names = tuple(p.name for p in spec.players)
        n = len(names)
        for name in names:  # CAS-D30
            if fold(name) in {fold(w) for w in RESERVED}:
                raise SetupError(f"player name {name!r} is a role name (CAS-D30)")
        if options.custom_deck:  # CAS-D01
            unknown = sorted({r for r in options.custom_deck if r not in ROLES})
            if unknown:
                raise SetupError(f"custom_deck: unknown role {unknown[0]!r}")
            if len(options.custom_deck) != n + 2 or DEMON not in options.custom_deck:
                raise SetupError(
                    f"custom_deck: {n + 2} cards with at least one demon are needed for {n} "
                    "players (CAS-D01)"
                )
            deck = list(options.custom_deck)
        else:
            if n != PLAYERS:  # CAS-002, CAS-D01
                raise SetupError(
                    f"Chasse aux sorcières is played by exactly {PLAYERS} players, not {n} "
                    "(CAS-002; give custom_deck for another count)"
                )
            deck = deck_cards(DECK)
        if spec.leftover is not None and spec.roles is None:
            # The cards set aside are fixed; the others are dealt at random (CAS-012).
            rest = list(deck)
            for card in spec.leftover:
                if card not in rest:
                    raise SetupError(f"leftover: {card!r} is not a card of the deck")
                rest.remove(card)
            if len(rest) != n:
                raise SetupError(
                    f"leftover: {len(deck) - n} cards are set aside, not {len(spec.leftover)}"
                )
            deck = rest + list(spec.leftover)
            roles, _ = deal(names, rest, rng)
            leftover = tuple(sorted(spec.leftover))
        else:
            roles, leftover = deal(names, deck, rng, spec.roles, ROLES)  # CAS-012
        if spec.leftover is not None and tuple(sorted(spec.leftover)) != leftover:
            raise SetupError(
                f"leftover: the deal leaves {', '.join(leftover)}, not "
                f"{', '.join(sorted(spec.leftover))}"
            )
        if options.penny_player:
            if options.penny_player not in names:
                raise SetupError(f"penny_player: {options.penny_player!r} is not a player")
            penny = PlayerId(options.penny_player)
        else:
            penny = rng.choice(names)  # CAS-D19: uniformly among all players
        created = GameCreated(
            self.id,
            names,
            {p.name: p.lang for p in spec.players},
            options_to_json(options),
            spec.lang,
        )
        events: list[Event] = [created, RolesDealt(roles, leftover), PennyGiven(penny)]
        state = self.fold(events)
        o = options
        counts = Counter(deck)
        events.append(  # CAS-200, CAS-700, CAS-016
            public(
                "chasse/opening",
                "opening",
                players=list(names),
                deck={r: counts[r] for r in DECK if counts[r]},  # in the seed's order
                cards=len(deck),
                undealt=len(deck) - n,
                penny=penny if o.penny_public else None,
                durations={
                    **{p: getattr(o, d).total_seconds() for p, d in DURATION_OF.items()},
                    "day": o.day_duration.total_seconds(),
                },
            )
        )
        for p in names:  # CAS-201, CAS-701: own card only (CAS-013)
            role = roles[p]
            events.append(private("chasse/role", [p], "opening", role=role, faction=faction(role)))
        events.append(private("chasse/penny", [penny], "opening"))  # CAS-702
        return events + self._start_night(state, 1, now)  # CAS-202, CAS-703

    @staticmethod
    def _leo_forced(state: ChasseState) -> bool:
        return len(state.leftover) == 2 and all(c == DEMON for c in state.leftover)  # CAS-362

    # -- deadlines -----------------------------------------------------------------------------

    def deadlines(self, state: ChasseState) -> Mapping[str, datetime]:
        if state.outcome is not None:
            return {}
        out = dict(state.deadlines)
        if state.revenge is not None:
            out["revenge"] = state.revenge.until
        return out

    def changeable_until(self, state: ChasseState, actor: PlayerId, verb: str) -> datetime | None:
        """The reply's "until": the vote's T_day even while a revenge window is open."""
        pending = self.deadlines(state)
        if verb == "revenge" and "revenge" in pending:
            return pending["revenge"]
        own = dict(state.deadlines) if state.deadlines else dict(pending)
        return min(own.values()) if own else None

    def on_post(
        self,
        state: ChasseState,
        actor: PlayerId,
        lines: Sequence[str],
        now: datetime,
        *,
        moderated: bool = True,
    ) -> list[Event]:
        """CAS-005, CAS-D28: the dead may no longer communicate (refused, never relayed), and
        with ``list_closed_at_night`` nobody posts on the list at night: such a post is refused,
        or held until day by a daemon that relays the list."""
        if state.outcome is not None or state.phase == "setup":
            return []
        if not state.alive(actor):
            raise IllegalNow("dead")
        if state.options.list_closed_at_night and state.phase in NIGHT_PHASES:
            raise ListClosed("night_silence")  # a relaying daemon holds it until day
        return []

    def final(self, state: ChasseState, actor: PlayerId, verb: str) -> bool:
        """CAS-D18, CAS-D20: a revenge and a tie-break decision take effect at once."""
        return verb in ("revenge", "choose", "spare")

    def on_deadline(
        self, state: ChasseState, key: str, now: datetime, rng: random.Random
    ) -> list[Event]:
        if state.outcome is not None or key not in self.deadlines(state):
            return []
        if key == "revenge":
            return self._revenge_closed(state, now)
        if state.phase in NIGHT_PHASES:
            return self._close_subphase(state, now, rng)
        match state.phase:
            case "day":
                return self._close_day(state, now, rng)
            case "tiebreak":
                return self._close_tiebreak(state, now, rng)
        return []

    # -- the night, driven by the sub-phase tables ---------------------------------------------

    def _start_night(self, state: ChasseState, number: int, now: datetime) -> list[Event]:
        """CAS-202, CAS-238, CAS-703, CAS-712: "Night N falls" with every sub-phase deadline."""
        schedule: dict[str, str] = {}
        end = now
        for phase in night_sequence(number):
            end += getattr(state.options, DURATION_OF[phase])
            schedule[phase] = _iso(end)
        notice = public("chasse/night_start", f"night-{number}", number=number, schedule=schedule)
        first = night_sequence(number)[0]
        return [notice, *self._start_subphase(state, first, number, now)]

    def _start_subphase(
        self, state: ChasseState, phase: str, number: int, now: datetime
    ) -> list[Event]:
        end = now + getattr(state.options, DURATION_OF[phase])
        started = PhaseStarted(phase, number, {phase: end})
        state = self.evolve(state, started)
        prompts = {
            "L": self._prompt_l,
            "C": self._prompt_c,
            "W1": self._prompt_w1,
            "W2": self._prompt_w2,
        }[phase]
        return [started, *prompts(state, f"night-{number}", _iso(end))]

    def _close_subphase(self, state: ChasseState, now: datetime, rng: random.Random) -> list[Event]:
        """Resolve the sub-phase whose deadline passed, then start the next one (or the dawn)."""
        sequence = night_sequence(state.number)
        if state.phase == sequence[-1]:
            return self._dawn(state, now)  # CAS-225
        resolvers = {"L": self._resolve_l, "C": self._resolve_c, "W1": self._resolve_w1}
        events = resolvers[state.phase](state, rng)
        after = self.fold(events, state)
        nxt = sequence[sequence.index(state.phase) + 1]
        return events + self._start_subphase(after, nxt, state.number, now)

    # -- prompts at the start of each sub-phase ---------------------------------------------------

    def _prompt_l(self, state: ChasseState, thread: str, deadline: str) -> list[Event]:
        leo = state.holder(LEO)
        if leo is None:  # CAS-366: the sub-phase runs all the same (CAS-226)
            return []
        return [  # CAS-210, CAS-360, CAS-710
            private(
                "chasse/leo_prompt",
                [leo],
                thread,
                leftover=list(state.leftover),
                forced=self._leo_forced(state),
                deadline=deadline,
            )
        ]

    def _prompt_c(self, state: ChasseState, thread: str, deadline: str) -> list[Event]:
        coop = state.holder(COOP)  # after Léo's exchange (CAS-222, CAS-X02)
        if coop is None:
            return []
        return [private("chasse/coop_prompt", [coop], thread, deadline=deadline)]  # CAS-717

    def _prompt_w1(self, state: ChasseState, thread: str, deadline: str) -> list[Event]:
        events: list[Event] = []
        phoebe = state.holder(PHOEBE)
        if phoebe is not None:  # CAS-213, CAS-713
            events.append(private("chasse/phoebe_prompt", [phoebe], thread, deadline=deadline))
        council = state.council()
        for member in council:  # CAS-214, CAS-302, CAS-381, CAS-D10: one list for all
            events.append(
                private(
                    "chasse/council_prompt",
                    [member],
                    thread,
                    council=council,
                    billie=state.seat(member).role == BILLIE,
                    deadline=deadline,
                )
            )
        cole = state.holder(COLE)
        if cole is not None and state.cole_active():  # CAS-215, CAS-395
            events.append(private("chasse/cole_prompt", [cole], thread, deadline=deadline))
        return events

    def _prompt_w2(self, state: ChasseState, thread: str, deadline: str) -> list[Event]:
        """CAS-224, CAS-716: Piper and Paige (after the swap) learn the victim."""
        events: list[Event] = []
        for card in (PIPER, PAIGE):  # CAS-341, CAS-345, CAS-351, CAS-355
            holder = state.holder(card)
            if holder is not None and card not in state.spent:
                events.append(
                    private(
                        f"chasse/{card}_prompt",
                        [holder],
                        thread,
                        victim=state.victim,
                        self_victim=state.victim == holder,
                        deadline=deadline,
                    )
                )
        return events

    # -- resolutions -------------------------------------------------------------------------------

    def _resolve_l(self, state: ChasseState, rng: random.Random) -> list[Event]:
        """CAS-222, CAS-361..CAS-366, CAS-D04: Léo's choice applies at ``T_L``."""
        leo = state.holder(LEO)
        if leo is None:
            return []
        events: list[Event] = []
        taken = state.action(leo, "take")
        card = taken.word if taken is not None else None
        if card is None and self._leo_forced(state):
            card = DEMON  # CAS-362, CAS-D04: forced, the two cards are identical
        if card is not None and card in state.leftover:
            events += exchange_with_leftover(state.leftover, leo, LEO, card)  # CAS-364
        events.append(  # CAS-711
            private("chasse/leo_result", [leo], "night-1", role=card or LEO, changed=bool(card))
        )
        return events

    def _resolve_c(self, state: ChasseState, rng: random.Random) -> list[Event]:
        """CAS-223, CAS-330..CAS-334, CAS-D06: the Lovers are formed and told at ``T_C``."""
        events: list[Event] = []
        coop = state.holder(COOP)
        chosen = state.action(coop, "lovers") if coop is not None else None
        lovers: tuple[PlayerId, ...] = ()
        how = "coop"
        if chosen is not None and all(state.alive(p) for p in chosen.targets):
            lovers = chosen.targets
        elif state.options.lovers_if_missing == "random" and len(state.living()) >= 2:
            lovers, how = tuple(rng.sample(state.living(), 2)), "random"
        if lovers:
            events.append(LoversFormed(lovers, how))
            for lover in lovers:  # CAS-212, CAS-718
                partner = next(p for p in lovers if p != lover)
                role = state.seat(partner).role if state.options.lovers_told_partner_role else None
                events.append(
                    private("chasse/lovers", [lover], "night-1", partner=partner, role=role)
                )
        return events

    def _council_victim(self, state: ChasseState) -> tuple[PlayerId | None, tuple[PlayerId, ...]]:
        """CAS-410, CAS-D09: the last (or first) name received from a council member."""
        council = set(state.council())
        names = sorted(
            (seq, a)
            for (actor, verb), (seq, a) in state.actions.items()
            if verb == "kill" and actor in council and state.alive(a.targets[0])
        )
        if not names:
            return None, ()
        seq_action = names[-1] if state.options.council_submission == "last" else names[0]
        return seq_action[1].targets[0], tuple(a.actor for _, a in names)

    def _resolve_w1(self, state: ChasseState, rng: random.Random) -> list[Event]:
        """CAS-223: step 7 (Phoebe, before the swap), step 8 (the victim), step 9 (Cole)."""
        number = state.number
        thread = f"night-{number}"
        victim, senders = self._council_victim(state)
        intents: list[Intent] = []
        phoebe = state.holder(PHOEBE)
        probe = state.action(phoebe, "scan") if phoebe is not None else None
        if phoebe is not None and probe is not None:
            intents.append(
                Intent("scan", probe.targets[0], "phoebe", NIGHT_STEPS["scan"], (phoebe,))
            )
        if victim is not None:
            intents.append(Intent("victim", victim, "council", NIGHT_STEPS["kill"], senders))
        cole = state.holder(COLE)
        swap = state.action(cole, "swap") if cole is not None and state.cole_active() else None
        if cole is not None and swap is not None:
            intents.append(Intent("swap", swap.targets[0], "cole", NIGHT_STEPS["swap"], (cole,)))

        def living_target(s: ChasseState, intent: Intent) -> Veto | None:
            return None if s.alive(intent.target) else Veto("target_dead")

        def effect(s: ChasseState, intent: Intent) -> list[Event]:
            target = intent.target
            if intent.kind == "scan":  # CAS-315, CAS-715, CAS-D13
                role = s.seat(target).role
                return [
                    private("chasse/phoebe_result", intent.actors, thread, target=target, role=role)
                ]
            if intent.kind == "victim":
                return [VictimFixed(number, target)]
            return self._swap(s, intent.actors[0], target, thread)

        events: list[Event] = []
        if victim is None:  # CAS-304: no name, no victim
            events.append(VictimFixed(number, None))
            state = self.evolve(state, events[0])
        council = state.council()
        result = resolve(state, f"night-{number}-W1", intents, [living_target], effect, self.evolve)
        events += result.events
        if council:  # CAS-715: the council learns the victim fixed (or none)
            events.append(private("chasse/council_victim", council, thread, victim=victim))
        return events

    def _swap(
        self, state: ChasseState, cole: PlayerId, target: PlayerId, thread: str
    ) -> list[Event]:
        """CAS-391..CAS-397, CAS-D11, CAS-D12: the cards are exchanged after step 8."""
        roles = {p: state.seat(p).role for p in state.order}
        got = roles[target]
        events: list[Event] = list(swap_cards(roles, cole, target))
        ended = got == DEMON  # CAS-394: Cole became a Demon, the power stops for good
        if ended:
            events.append(PowerSpent(COLE))
        events.append(
            private(
                "chasse/cole_result",
                [cole],
                thread,
                role=got,
                target=target,
                spent=got in state.spent,  # CAS-D07: a spent power moves with its card
            )
        )
        events.append(
            private(
                "chasse/cole_target",
                [target],
                thread,
                swapper=cole if state.options.cole_target_told_swapper else None,
                ended=ended,
            )
        )
        return events

    # -- dawn -----------------------------------------------------------------------------------

    def _dawn(self, state: ChasseState, now: datetime) -> list[Event]:
        """CAS-225, CAS-230..CAS-235: Piper's kill, Paige's heal, then the morning."""
        o = state.options
        day = state.number
        thread = f"day-{day}"
        events: list[Event] = []
        piper = state.holder(PIPER)
        paige = state.holder(PAIGE)
        burn = state.action(piper, "burn") if piper and PIPER not in state.spent else None
        heal = state.action(paige, "heal") if paige and PAIGE not in state.spent else None
        # CAS-D16 (4): usage lines for the powers unused at dusk whose card is not revealed.
        revealed = {state.seat(p).role for p in state.order if not state.alive(p)}
        lines = {
            card: (used is not None)
            for card, used in ((PIPER, burn), (PAIGE, heal))
            if card not in state.spent and card not in revealed
        }
        if burn is not None:
            events.append(PowerSpent(PIPER))  # CAS-340: once per game
        if heal is not None:
            events.append(PowerSpent(PAIGE))  # CAS-350: once per game
        intents: list[Intent] = []
        if state.victim is not None:
            intents.append(Intent("kill", state.victim, "demons", NIGHT_STEPS["kill"]))
        burned = burn.targets[0] if burn is not None else None
        if burn is not None and burned is not None:
            intents.append(Intent("kill", burned, "piper", NIGHT_STEPS["burn"], (burn.actor,)))

        def paige_heals(s: ChasseState, intent: Intent) -> Veto | None:
            # CAS-343, CAS-353, CAS-D15: Paige heals the Demons' victim only.
            return Veto("paige") if heal is not None and intent.cause == "demons" else None

        def die(s: ChasseState, intent: Intent) -> list[Event]:
            return [PlayerDied(intent.target, intent.cause)] if s.alive(intent.target) else []

        after = self.fold(events, state)
        result = resolve(after, f"night-{day}", intents, [paige_heals], die, self.evolve)
        events += result.events
        after = result.state
        grief = self._grief(after)  # CAS-234, CAS-335
        events += grief
        after = self.fold(grief, after)
        dead = sorted(
            (p for p in state.living() if not after.alive(p) and after.seat(p).cause != "grief"),
            key=fold,
        )
        params: dict[str, Any] = {
            "day": day,
            "dead": [{"name": p, "role": after.seat(p).role} for p in dead],
            "grief": self._grief_params(grief, after),
            "lines": lines,
            "burned": burned if o.attribute_piper_kill else None,
        }
        prue = self._prue_trigger(state, after, ("demons",))  # CAS-235, CAS-320, CAS-D17
        ended = self._victory(after)  # CAS-104, CAS-D22 (a)
        if ended:  # CAS-721, CAS-105: no day, no revenge
            return [
                *events,
                public("chasse/dawn", thread, deadline=None, revenge=None, **params),
                *ended,
            ]
        t_day = now + o.day_duration
        events.append(PhaseStarted("day", day, {"day": t_day}))
        revenge_until = now + o.revenge_window if prue else None
        events.append(
            public(
                "chasse/dawn",
                thread,
                deadline=_iso(t_day),
                revenge={"prue": prue, "until": _iso(revenge_until)}
                if prue and revenge_until
                else None,
                **params,
            )
        )
        if prue and revenge_until:
            events += self._open_revenge(prue, revenge_until, "dawn", thread)
        return events

    def _grief(self, state: ChasseState) -> list[Event]:
        """CAS-335: a Lover whose partner is dead dies of grief at once."""
        if len(state.lovers) != 2:
            return []
        a, b = state.lovers
        if state.alive(a) and not state.alive(b):
            return [PlayerDied(a, "grief")]
        if state.alive(b) and not state.alive(a):
            return [PlayerDied(b, "grief")]
        return []

    @staticmethod
    def _grief_params(grief: Sequence[Event], state: ChasseState) -> list[dict[str, Any]]:
        return [
            {
                "name": e.player,
                "role": state.seat(e.player).role,
                "partner": state.partner(e.player),
            }
            for e in grief
            if isinstance(e, PlayerDied)
        ]

    def _prue_trigger(
        self, before: ChasseState, after: ChasseState, causes: tuple[str, ...]
    ) -> PlayerId | None:
        """CAS-320, CAS-325, CAS-D17: a Prue eliminated by the Demons or lynched retaliates."""
        wanted = causes if after.options.prue_revenge_triggers == "demons,lynch" else None
        for p in before.living():
            seat = after.seat(p)
            if not seat.alive and seat.role == PRUE and (wanted is None or seat.cause in wanted):
                return p
        return None

    def _open_revenge(
        self, prue: PlayerId, until: datetime, after: str, thread: str
    ) -> list[Event]:
        return [  # CAS-321, CAS-722, CAS-D18
            RevengeOpened(prue, until, after),
            private("chasse/revenge_prompt", [prue], thread, deadline=_iso(until), after=after),
        ]

    def _revenge_closed(self, state: ChasseState, now: datetime) -> list[Event]:
        """CAS-324, CAS-D29: no answer, no revenge; after a lynch the night follows."""
        assert state.revenge is not None
        thread = f"day-{state.number}"
        events: list[Event] = [
            RevengeClosed(state.revenge.prue, None),
            public(
                "chasse/revenge", thread, prue=state.revenge.prue, target=None, role=None, grief=[]
            ),
        ]
        if state.revenge.after == "lynch":  # CAS-239
            return events + self._start_night(self.fold(events, state), state.number + 1, now)
        return events

    # -- day ------------------------------------------------------------------------------------

    def _valid_votes(self, state: ChasseState) -> dict[PlayerId, PlayerId]:
        """CAS-D18, CAS-D21: votes by or for a player eliminated during the day are void."""
        return {v: t for v, t in state.votes.items() if state.alive(v) and state.alive(t)}

    def _tally_params(self, state: ChasseState) -> dict[str, Any]:
        votes = self._valid_votes(state)
        _, totals = weighted_plurality(votes, {v: state.weight(v) for v in votes})  # CAS-401
        counts = {p: int(n) for p, n in totals.items()}
        return {
            "votes": [
                {"voter": v, "target": t, "weight": state.weight(v)} for v, t in votes.items()
            ]
            if state.options.penny_public
            else [],
            "counts": [{"name": p, "count": counts[p]} for g in ranked(counts) for p in g],
        }

    def _close_day(self, state: ChasseState, now: datetime, rng: random.Random) -> list[Event]:
        """CAS-403..CAS-407, CAS-D20, CAS-D21."""
        events: list[Event] = []
        if state.revenge is not None:  # a revenge window outlasting the day closes first
            closed = self._revenge_closed(state, now)
            events += closed
            state = self.fold(closed, state)
        votes = self._valid_votes(state)
        leading, _ = weighted_plurality(votes, {v: state.weight(v) for v in votes})
        tally = self._tally_params(state)
        if not leading:  # CAS-404
            return events + self._lynch(state, now, None, "nobody", (), None, tally)
        top = [p for p in state.order if p in leading]  # CAS-403: relative majority
        if len(top) == 1:  # CAS-403
            return events + self._lynch(state, now, top[0], "majority", (), None, tally)
        for rule in state.options.tie_order.split(","):  # CAS-405..CAS-407, CAS-D20
            if rule == "penny" and state.penny and state.alive(state.penny):
                return events + self._open_tie(state, now, tuple(top), state.penny, "choose", tally)
            if rule == "last_lynched" and state.lynched:
                mode = "spare" if len(top) == 2 else "choose"
                return events + self._open_tie(
                    state, now, tuple(top), state.lynched[-1], mode, tally
                )
            if rule == "random":
                break
        return events + self._lynch(state, now, rng.choice(top), "draw", tuple(top), None, tally)

    def _open_tie(
        self,
        state: ChasseState,
        now: datetime,
        tied: tuple[PlayerId, ...],
        breaker: PlayerId,
        mode: str,
        tally: Mapping[str, Any],
    ) -> list[Event]:
        """CAS-731: the tie is announced and the tie-breaker asked (CAS-D20 window)."""
        until = now + state.options.tiebreak_window
        thread = f"day-{state.number}"
        penny = breaker == state.penny and state.alive(breaker)
        return [
            PhaseStarted("tiebreak", state.number, {"tiebreak": until}),
            TieOpened(tied, breaker, mode, until, dict(tally)),
            public(
                "chasse/tie",
                thread,
                day=state.number,
                tied=list(tied),
                breaker=breaker,
                penny=penny,
                mode=mode,
                deadline=_iso(until),
                **tally,
            ),
            private(
                "chasse/tie_prompt",
                [breaker],
                thread,
                tied=list(tied),
                mode=mode,
                penny=penny,
                deadline=_iso(until),
            ),
        ]

    def _close_tiebreak(self, state: ChasseState, now: datetime, rng: random.Random) -> list[Event]:
        """CAS-D20, CAS-D29: no answer from the tie-breaker, a random draw among the tied."""
        assert state.tie is not None
        tied = state.tie.tied
        return self._lynch(state, now, rng.choice(tied), "draw", tied, None, state.tie.tally)

    def _lynch(
        self,
        state: ChasseState,
        now: datetime,
        lynched: PlayerId | None,
        how: str,
        tied: tuple[PlayerId, ...],
        decided_by: PlayerId | None,
        tally: Mapping[str, Any],
    ) -> list[Event]:
        """CAS-237, CAS-409, CAS-732: the lynch, grief, victory, Prue's revenge, the night."""
        thread = f"day-{state.number}"
        events: list[Event] = [Verdict(state.number, lynched, how, tied, decided_by)]
        if lynched is not None:
            events.append(PlayerDied(lynched, "lynch"))
        after = self.fold(events, state)
        grief = self._grief(after)
        events += grief
        after = self.fold(grief, after)
        prue = self._prue_trigger(state, after, ("lynch",))
        ended = self._victory(after)  # CAS-D22 (c)
        until = now + state.options.revenge_window
        events.append(
            public(
                "chasse/lynch",
                thread,
                day=state.number,
                lynched=lynched,
                role=after.seat(lynched).role if lynched else None,
                how=how,
                tied=list(tied),
                decided_by=decided_by,
                grief=self._grief_params(grief, after),
                revenge=_iso(until) if prue and not ended else None,
                **tally,
            )
        )
        if ended:
            return events + ended
        if prue:  # CAS-239: the night waits for the revenge
            return [
                *events,
                PhaseStarted("revenge", state.number, {}),
                *self._open_revenge(prue, until, "lynch", thread),
            ]
        return events + self._start_night(after, state.number + 1, now)

    # -- victory --------------------------------------------------------------------------------

    def _mixed(self, state: ChasseState) -> bool:
        """CAS-D08 (1): the Lovers are mixed when exactly one holds a Démon card."""
        if len(state.lovers) != 2:
            return False
        return sum(1 for p in state.lovers if state.seat(p).role == DEMON) == 1

    def _victory(self, state: ChasseState) -> list[Event]:
        """CAS-101..CAS-104, CAS-D08, CAS-D23: the end of the game, or []."""
        living = state.living()
        demons = [p for p in living if state.seat(p).role == DEMON]
        good = [p for p in living if state.seat(p).role != DEMON]
        mixed_alive = self._mixed(state) and all(state.alive(p) for p in state.lovers)
        side: str | None
        if not living:  # CAS-D23
            side = GOOD if state.options.everyone_dead == "good" else None
        elif state.options.mixed_lovers_victory == "last_two" and mixed_alive:
            if len(living) != 2:
                return []
            side = LOVERS
        elif not demons:  # CAS-101
            side = GOOD
        elif len(good) <= 1:  # CAS-102
            side = LOVERS if mixed_alive else DEMONS  # CAS-103, CAS-336, CAS-D08 (3)
        else:
            return []
        return self._end(state, side)

    def _end(self, state: ChasseState, side: str | None) -> list[Event]:
        """CAS-750, CAS-D25, CAS-D26."""
        mixed = set(state.lovers) if self._mixed(state) else set()
        if side == LOVERS:
            winners = tuple(p for p in state.order if p in state.lovers)
        elif side is None:
            winners = ()
        else:
            winners = tuple(
                p
                for p in state.order
                if faction(state.seat(p).role) == side and p not in mixed  # CAS-D08 (5)
            )
        termination = Termination.VICTORY if side else Termination.NO_WINNER
        reveal = [
            {
                "name": p,
                "role": state.seat(p).role,
                "dealt": state.seat(p).dealt,
                "alive": state.alive(p),
            }
            for p in state.order
        ]
        full = state.options.reveal_all_at_end
        return [
            GameEnded(termination.value, side, winners),
            public(
                "chasse/victory",
                "end",
                side=side,
                winners=list(winners),
                reveal=reveal if full else [],
                lovers=list(state.lovers) if full else [],
                penny=state.penny if full else None,
                leftover=list(state.leftover) if full else [],
            ),
        ]

    # -- commands -------------------------------------------------------------------------------

    def decide(
        self, state: ChasseState, actor: PlayerId, command: Command, now: datetime, channel: str
    ) -> list[Event]:
        if state.outcome is not None or state.phase in ("over", "setup"):
            raise IllegalNow("game_over")  # CAS-750
        verb = command.verb
        seat = state.seat(actor)
        if verb == "revenge":
            return self._decide_revenge(state, actor, command, now)
        if verb in ("choose", "spare"):
            return self._decide_tiebreak(state, actor, command, now, channel)
        if not seat.alive:
            raise IllegalNow("dead")  # CAS-005, CAS-606, CAS-D28
        if verb in ("vote", "unvote"):
            return self._decide_vote(state, actor, command, now, channel)
        if verb == "pass":  # CAS-603, CAS-624
            if state.phase not in NIGHT_PHASES:
                raise IllegalNow("nothing_to_pass")
            return [ActionSet(actor, "pass")]
        if verb == "cancel":
            return self._decide_cancel(state, actor, command, now)
        if verb == "council":
            return self._decide_council(state, actor, command)
        return self._decide_night(state, actor, command)

    def _decide_night(self, state: ChasseState, actor: PlayerId, command: Command) -> list[Event]:
        verb = command.verb
        seat = state.seat(actor)
        thread = f"night-{state.number}"
        # The actor's own card first: a refusal never tells him anything he does not know.
        if verb == "kill":
            if actor not in state.council():
                raise IllegalNow("not_your_role")
        elif seat.role != CARD_OF[verb]:
            raise IllegalNow("not_your_role")
        if verb in ("burn", "heal") and seat.role in state.spent:
            raise IllegalNow("power_used")  # CAS-345, CAS-355
        if verb == "swap" and not state.cole_active():
            raise IllegalNow("power_used")  # CAS-394
        if state.phase != SUBPHASE_OF[verb] or (
            SUBPHASE_OF[verb] in ("L", "C") and state.number != 1
        ):
            raise IllegalNow("subphase_only", when=SUBPHASE_OF[verb])  # CAS-604
        if verb == "take":  # CAS-610, CAS-361
            assert command.word is not None
            if command.word not in state.leftover:
                raise IllegalNow("not_a_leftover", leftover=list(state.leftover))
            cleared = [ActionCleared(actor, "keep")] if state.action(actor, "keep") else []
            return [*cleared, ActionSet(actor, "take", (), command.word)]
        if verb == "keep":  # CAS-611, CAS-362, CAS-363
            if self._leo_forced(state):
                raise IllegalNow("leo_must_take")
            cleared = [ActionCleared(actor, "take")] if state.action(actor, "take") else []
            return [*cleared, ActionSet(actor, "keep")]
        if verb == "heal":  # CAS-618, CAS-D15
            if state.victim is None:
                raise IllegalNow("no_victim_tonight")
            if command.targets and command.targets[0] != state.victim:
                raise IllegalNow("not_demons_victim", name=command.targets[0])
            return [ActionSet(actor, "heal", (state.victim,))]
        for target in command.targets:
            if not state.alive(target):
                raise IllegalNow("target_not_living", name=target)  # CAS-605
        if verb == "lovers":  # CAS-612, CAS-331
            return [ActionSet(actor, "lovers", command.targets)]
        target = command.targets[0]
        if target == actor:
            raise IllegalNow("not_yourself")  # CAS-613, CAS-614, CAS-616, CAS-617
        if verb == "burn" and target == state.victim:
            raise IllegalNow("target_is_victim", name=target)  # CAS-617, CAS-D14
        events: list[Event] = [ActionSet(actor, verb, (target,))]
        if verb == "kill":  # CAS-714, CAS-D09: relayed to the whole council
            events.append(
                private(
                    "chasse/council_relay", state.council(), thread, sender=actor, target=target
                )
            )
        return events

    def _decide_council(self, state: ChasseState, actor: PlayerId, command: Command) -> list[Event]:
        """CAS-615, CAS-D28: the council's relay, open during the night only."""
        if actor not in state.council():
            raise IllegalNow("not_your_role")
        if state.phase not in NIGHT_PHASES or state.phase in ("L", "C"):
            raise IllegalNow("subphase_only", when="W")
        others = [p for p in state.council() if p != actor]
        if not others:
            return []
        return [
            private(
                "chasse/council_chat",
                others,
                f"night-{state.number}",
                sender=actor,
                text=command.text,
            )
        ]

    def _decide_cancel(
        self, state: ChasseState, actor: PlayerId, command: Command, now: datetime
    ) -> list[Event]:
        """CAS-603: ``ANNULER <mot-clé>`` withdraws the pending command of that kind."""
        found = find_spec(command.text.split(), self.all_commands)
        if found is None:
            raise InvalidSyntax("cancel_what")
        verb = found[0].verb
        if verb == "vote":
            return self._decide_vote(state, actor, Command("unvote"), now, "list")
        if verb == "keep":
            verb = "take"
        if state.action(actor, verb) is None:
            raise IllegalNow("nothing_to_cancel")
        return [ActionCleared(actor, verb)]

    def _decide_vote(
        self, state: ChasseState, actor: PlayerId, command: Command, now: datetime, channel: str
    ) -> list[Event]:
        """CAS-400..CAS-402, CAS-620, CAS-621, CAS-D21."""
        if state.phase != "day":
            raise IllegalNow("no_vote_now")
        if channel != "list":
            raise IllegalNow("vote_on_list")  # CAS-400: votes are public
        previous = state.votes.get(actor)
        target: PlayerId | None
        if command.verb == "unvote":
            if previous is None or not state.alive(previous):
                raise IllegalNow("no_vote_to_withdraw")
            target = None
        else:
            target = command.targets[0]
            if not state.alive(target):
                raise IllegalNow("target_not_living", name=target)
        vote = VoteSet("day", actor, target, state.seq + 1)
        events: list[Event] = [vote]
        last = state.last_tally
        if last is None or now - last >= state.options.tally_min_interval:  # CAS-730
            after = self.evolve(state, vote)
            events += [
                TallyPosted(now),
                public(
                    "chasse/tally",
                    f"day-{state.number}",
                    day=state.number,
                    **self._tally_params(after),
                ),
            ]
        return events

    def _decide_revenge(
        self, state: ChasseState, actor: PlayerId, command: Command, now: datetime
    ) -> list[Event]:
        """CAS-319..CAS-323, CAS-619, CAS-D18: published at once, then grief and victory."""
        pending = state.revenge
        if pending is None or pending.prue != actor:
            raise IllegalNow("dead" if not state.alive(actor) else "no_revenge_now")
        target = command.targets[0]
        if not state.alive(target):
            raise IllegalNow("target_not_living", name=target)
        thread = f"day-{state.number}"
        events: list[Event] = [RevengeClosed(actor, target), PlayerDied(target, "revenge")]
        after = self.fold(events, state)
        grief = self._grief(after)
        events += grief
        after = self.fold(grief, after)
        events.append(
            public(
                "chasse/revenge",
                thread,
                prue=actor,
                target=target,
                role=after.seat(target).role,
                grief=self._grief_params(grief, after),
            )
        )
        ended = self._victory(after)  # CAS-104, CAS-D22 (b)
        if ended:
            return events + ended
        if pending.after == "lynch":  # CAS-239
            return events + self._start_night(after, state.number + 1, now)
        return events

    def _decide_tiebreak(
        self, state: ChasseState, actor: PlayerId, command: Command, now: datetime, channel: str
    ) -> list[Event]:
        """CAS-405..CAS-408, CAS-622, CAS-623, CAS-D20."""
        tie = state.tie
        if tie is None or state.phase != "tiebreak" or tie.breaker != actor:
            raise IllegalNow("dead" if not state.alive(actor) else "not_tiebreaker")
        if channel == "list" and not state.alive(actor):
            raise IllegalNow("dead")  # CAS-D28: the dead answer privately
        if command.verb != ("choose" if tie.mode == "choose" else "spare"):
            raise IllegalNow("tiebreak_mode", mode=tie.mode)
        target = command.targets[0]
        if target not in tie.tied:
            raise IllegalNow("not_tied", name=target, tied=list(tie.tied))  # CAS-408
        lynched = target if tie.mode == "choose" else next(p for p in tie.tied if p != target)
        how = "penny" if actor == state.penny and state.alive(actor) else "last_lynched"
        return self._lynch(state, now, lynched, how, tie.tied, actor, tie.tally)

    # -- reading --------------------------------------------------------------------------------

    def outcome(self, state: ChasseState) -> Outcome | None:
        return state.outcome

    def names(self, state: ChasseState) -> Sequence[PlayerId]:
        return state.order

    def conditions(self, state: ChasseState, player: PlayerId) -> list[str]:
        out = []
        if player in state.lovers:
            out.append("lover")
        if player == state.penny:
            out.append("penny")
        return out

    def summary(self, state: ChasseState) -> dict[str, Any]:
        return {
            "game": self.id,
            "status": "finished" if state.outcome else "running",
            "phase": state.phase,
            "day": state.number,
            "winners": list(state.outcome.winners) if state.outcome else [],
            "side": state.outcome.side if state.outcome else None,
            "leftover": list(state.leftover),
            "lovers": list(state.lovers),
            "penny": state.penny,
            "players": [
                {
                    "name": p,
                    "role": s.role,
                    "team": faction(s.role),
                    "alive": s.alive,
                    "conditions": self.conditions(state, p),
                }
                for p in state.order
                for s in [state.seat(p)]
            ],
        }

    def status(self, state: ChasseState, actor: PlayerId) -> dict[str, Any]:
        """CAS-625: own card, faction, Lover partner, Penny, phase, deadlines, pending, living."""
        seat = state.seat(actor)
        pending = [
            {"verb": a.verb, "targets": list(a.targets), "word": a.word}
            for (who, _), (_, a) in state.actions.items()
            if who == actor
        ]
        return {
            "role": seat.role,
            "faction": faction(seat.role),
            "alive": seat.alive,
            "partner": state.partner(actor),
            "penny": state.penny if (state.options.penny_public or actor == state.penny) else None,
            "is_penny": actor == state.penny,
            "phase": state.phase,
            "number": state.number,
            "deadlines": {k: _iso(v) for k, v in self.deadlines(state).items()},
            "pending": pending,
            "vote": state.votes.get(actor),
            "living": state.living(),
        }

    def available(self, state: ChasseState, actor: PlayerId) -> list[CommandSpec]:
        seat = state.seat(actor)
        allowed = {"help", "status"}
        if state.outcome is None:
            if state.revenge is not None and state.revenge.prue == actor:
                allowed.add("revenge")
            if state.phase == "tiebreak" and state.tie and state.tie.breaker == actor:
                allowed.add("choose" if state.tie.mode == "choose" else "spare")
            if seat.alive and state.phase in NIGHT_PHASES:
                allowed |= {"pass", "cancel"}
                for verb, card in CARD_OF.items():
                    if seat.role == card and SUBPHASE_OF[verb] == state.phase:
                        allowed.add(verb)
                if "keep" in allowed and self._leo_forced(state):
                    allowed.discard("keep")
                if actor in state.council() and state.phase in ("W1", "W2"):
                    allowed.add("council")
                    if state.phase == "W1":
                        allowed.add("kill")
                if seat.role in state.spent or (seat.role == COLE and not state.cole_active()):
                    allowed -= {"burn", "heal", "swap"}
                if state.victim is None:
                    allowed.discard("heal")
            if seat.alive and state.phase == "day":
                allowed |= {"vote", "unvote"}
        return [c for c in self.all_commands if c.verb in allowed]

    def bold_command(
        self, state: ChasseState, actor: PlayerId, bold: Sequence[str]
    ) -> Command | None:
        """The forum convention: a name in bold in a public post is a vote (CAS-620)."""
        if state.phase != "day":
            return None
        names = {fold(n): n for n in state.order}
        found = list(
            dict.fromkeys(names[fold(b.strip())] for b in bold if fold(b.strip()) in names)
        )
        if not found:
            return None
        if len(found) > 1:
            raise InvalidSyntax("several_bold_names", names=found)
        return Command("vote", (PlayerId(found[0]),))

    def ready_to_close(self, state: ChasseState) -> str | None:
        """CAS-D31: early closing only when every living player has acted or passed."""
        o = state.options
        if state.phase in NIGHT_PHASES and o.early_close:
            acted = {actor for actor, _ in state.actions}
            return state.phase if set(state.living()) <= acted else None
        if state.phase == "day" and o.early_close_day:
            return "day" if set(state.living()) <= set(self._valid_votes(state)) else None
        return None

    def side_of(self, state: ChasseState, player: PlayerId) -> str | None:
        return faction(state.seat(player).role)

    def awaiting(self, state: ChasseState) -> frozenset[PlayerId]:
        if state.phase in NIGHT_PHASES:
            acted = {actor for actor, _ in state.actions}
            expected = {
                p
                for p in state.living()
                if any(
                    c.verb not in ("help", "status", "pass", "cancel", "council")
                    for c in self.available(state, p)
                )
            }
            return frozenset(expected - acted)
        if state.phase == "day":
            return frozenset(p for p in state.living() if p not in state.votes)
        return frozenset()


__all__ = ["ChasseAuxSorcieres", "ChasseOptions", "ChasseState"]
