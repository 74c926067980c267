"""Lupus in Tabula (8 to 24 players): ``docs/rules/lupus-in-tabula.md``.

The spec's rule IDs are cited where a line of code implements a decision that is not obvious.
Phases: night -> debate -> round1 -> defence -> round2 -> night ... (LUP-D19), each closed by its
deadline (LUP-604); the night is one window resolved at ``T_end`` in the order of LUP-216.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from pbem.core.commands import Command, CommandSpec
from pbem.core.errors import CommandError, IllegalNow, SetupError, refuse
from pbem.core.events import (
    ActionCleared,
    ActionSet,
    Event,
    GameCreated,
    RolesDealt,
    private,
    public,
)
from pbem.core.folded import Batch
from pbem.core.game import GameSpec
from pbem.core.ids import PlayerId
from pbem.core.moments import iso
from pbem.core.options import options_to_json, parse_options
from pbem.core.roles import Action
from pbem.games.lupus import day, night, nightfall
from pbem.games.lupus.commands import COMMANDS
from pbem.games.lupus.deck import custom_deck, deck_counts, standard_deck
from pbem.games.lupus.options import LupusOptions
from pbem.games.lupus.roles import (
    CARDS,
    KNOW_EACH_OTHER,
    NIGHT_VERBS,
    ROLE_TABLE,
    ROLES,
    SEER,
    SPECIAL_MINIMUM,
    WOLF,
    acts_on_night,
    faction,
)
from pbem.games.lupus.state import EVENT_TYPES, LupusState, evolve
from pbem.games.village.cards import deal
from pbem.games.village.rules import VillageRules
from pbem.games.village.voting import bold_name

_ACTIONS: dict[str, Action] = {}
"""Each night verb's action: :func:`~pbem.core.roles.action_of` (the first card owning it),
read at every night command."""
for _role in ROLE_TABLE:
    for _action in _role.actions:
        _ACTIONS.setdefault(_action.verb, _action)


_ALWAYS = frozenset({"help", "status"})
_VOTING = _ALWAYS | {"vote", "unvote"}
_QUIET_PHASES = frozenset({"debate", "defence"})
"""The phases in which every player may send only HELP and STATUS (LUP-400, LUP-D19)."""
_NIGHT_VERBS: dict[tuple[str, int, bool, bool, str, bool], frozenset[str]] = {}
"""(card, night number, a second living Seer, a second living werewolf, the night's
immediate probes, an order standing) -> the verbs offered that night."""

_BALLOT = _ALWAYS | {"vote"}
"""A voter with no vote standing: nothing to withdraw yet (LUP-620: « has a vote »)."""


def _night_verbs(
    role: str, number: int, seers: bool, pack: bool, probes: str, standing: bool
) -> frozenset[str]:
    """The verbs a living ``role`` may send on night ``number`` (LUP-380: some only then).
    ``probes``: ``open``, ``closed`` once a Seer's immediate probe is made, ``mine`` once it
    is his own (LUP-D04: final, so neither another probe nor a PASS is taken). ``standing``:
    an order of his stands, that ANNULER would withdraw (LUP-603: else it has nothing to)."""
    verbs = _ALWAYS | ({"pass", "cancel"} if standing else {"pass"})
    verbs |= {a.verb for a in CARDS[role].actions if not a.nights or number in a.nights}
    if pack:  # LUP-613: the pack's relay, while another werewolf lives to hear it
        verbs |= {"pack"}
    if seers:  # LUP-614, LUP-D07: the Seers' relay
        verbs |= {"seers"}
    if probes != "open":
        verbs -= {"scan", "pass"} if probes == "mine" else {"scan"}
    return verbs


def _acting(state: LupusState) -> frozenset[PlayerId]:
    """Who has a night order standing tonight, that ANNULER withdraws (LUP-603)."""
    return frozenset([who for who, _ in state.actions])


def _cancellable(state: LupusState, actor: PlayerId) -> bool:
    """Whether ANNULER has something of ``actor``'s to withdraw: a vote (ANNULER VOTE,
    LUP-620) or a night order standing (LUP-603)."""
    return actor in state.votes or (state.phase == "night" and actor in _acting(state))


def _probes(state: LupusState, actor: PlayerId) -> str:
    """The night's immediate probes as ``actor``, a Seer, is offered them (LUP-D04)."""
    if not night.probe_made(state):
        return "open"
    return "mine" if state.action(actor, "scan") else "closed"


def _ballot_verbs(state: LupusState, actor: PlayerId) -> frozenset[str]:
    """A voter's verbs in a round: UNVOTE once he has a vote to withdraw (LUP-620), neither
    once his vote is final (LUP-D18: changes off)."""
    if actor not in state.votes:
        return _BALLOT
    return _VOTING if state.options.vote_changes_allowed else _ALWAYS


_PASSES: dict[PlayerId, ActionSet] = {}
"""A name -> his PASS (frozen: one event for every night he passes, as a log read back)."""


def _passed(actor: PlayerId) -> ActionSet:
    """``ActionSet(actor, "pass")``, kept per name (bounded at 1,024): a third of a night's
    commands (LUP-603)."""
    found = _PASSES.get(actor)
    if found is None:
        if len(_PASSES) >= 1024:  # a table's names change from game to game
            _PASSES.clear()
        found = _PASSES[actor] = ActionSet(actor, "pass")
    return found


_BOLD_VOTES: dict[PlayerId, Command] = {}
"""A name -> the vote of his name in bold (:meth:`LupusInTabula.bold_command`)."""

_OPTIONS_JSON: list[tuple[LupusOptions, dict[str, Any]]] = []
"""The options of the last game set up and their JSON mapping."""


def _options_json(options: LupusOptions) -> dict[str, Any]:
    """``options_to_json(options)``, kept for the last options: games set up alike share one
    options object (:func:`~pbem.core.options.parse_options`), and so one mapping, which no
    one changes (an event is read only); its fold then finds those options parsed already
    (issue 23: a balance run sets up thousands of games alike)."""
    if not _OPTIONS_JSON or _OPTIONS_JSON[0][0] is not options:
        _OPTIONS_JSON[:] = [(options, options_to_json(options))]
    return _OPTIONS_JSON[0][1]


class LupusInTabula(VillageRules[LupusState]):
    """Lupus in Tabula, every rule LUP-001..LUP-750 with the spec's decisions as defaults."""

    id = "lupus-in-tabula"
    title = "Lupus in Tabula"
    options_type = LupusOptions
    templates = "lupus"
    roles = ROLES
    commands = COMMANDS
    event_types = EVENT_TYPES
    state_type = LupusState
    fold_event = staticmethod(evolve)
    _last_acting: tuple[LupusState, frozenset[PlayerId]] | None = None

    @classmethod
    def check_options(cls, options: Any) -> None:
        """LUP-D01: ``specials`` name a custom deck's characters: refused with the standard
        deck, which deals its own."""
        if options.specials and options.deck_mode != "custom":
            raise SetupError("option 'specials' needs deck_mode = custom (LUP-D01)")

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
        else:
            self.check_options(options)  # a fixed deal above is its own deck: never asked there
            deck = standard_deck(n)
        if spec.leftover:
            raise SetupError("Lupus in Tabula deals every card: no leftover cards")
        roles, _ = deal(names, deck, rng, spec.roles, ROLES)
        created = GameCreated(
            self.id,
            names,
            {p.name: p.lang for p in spec.players},
            _options_json(options),
            spec.lang,
        )
        batch = Batch(self.new_state(), evolve)
        state = batch.add(created, RolesDealt(roles))
        o = options
        batch.add(
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
        batch.add(  # LUP-701: own role only; wolves not yet told each other.
            *(
                private(
                    "lupus/role",
                    [p],
                    "opening",
                    role=roles[p],
                    faction=faction(state.seats[p]),
                    immediate=o.seer_result_timing == "immediate",  # LUP-701, LUP-D04
                )
                for p in names
            )
        )
        nightfall.start_night(batch, 1, now)
        return batch.events

    def deadlines(self, state: LupusState) -> Mapping[str, datetime]:
        return state.deadlines

    def on_deadline(
        self, state: LupusState, key: str, now: datetime, rng: random.Random
    ) -> list[Event]:
        if key not in state.deadlines or state.outcome is not None:
            return []
        match state.phase:
            case "night":
                return night.resolve_night(state, now, rng)
            case "debate":
                return day.open_round(state, "round1", now)
            case "round1":
                return day.close_round1(state, now, rng)
            case "defence":
                return day.open_round(state, "round2", now)
            case "round2":
                return day.close_round2(state, now, rng)
        return []

    def decide(
        self, state: LupusState, actor: PlayerId, command: Command, now: datetime, channel: str
    ) -> list[Event]:
        if state.outcome is not None or state.phase == "over":
            raise IllegalNow("game_over")  # LUP-750
        verb = command.verb
        seat = state.seats[actor]
        if (
            verb == "cancel"
            and command.text
            and self.cancelled_verb(command, state, actor) == "vote"
        ):
            # LUP-603, LUP-620: CANCEL VOTE is UNVOTE, on the channel and at the time it came
            # (a ghost withdraws privately; a living voter is sent to the list).
            return day.decide_vote(state, actor, Command("unvote"), now, channel)
        if verb in ("vote", "unvote"):
            return day.decide_vote(state, actor, command, now, channel)
        if not seat.alive:
            raise IllegalNow("dead")  # LUP-607
        if verb == "pass":
            if state.phase != "night":
                raise IllegalNow("nothing_to_pass")
            if state.options.seer_result_timing == "immediate":  # most PASSes: no probe to keep
                self._check_probe_not_final(state, actor)
            return [_passed(actor)]
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
        refuse(self._action_refusal(state, actor, command))
        target = command.targets[0]
        thread = f"night-{state.number}"
        events: list[Event] = [ActionSet(actor, verb, (target,))]
        if verb == "scan":
            events = night.decide_scan(state, actor, target, thread)
        elif verb == "kill":  # LUP-712
            others = [w for w in state.holders(WOLF) if w != actor]
            if others:
                events.append(
                    private("lupus/wolf_vote_relay", others, thread, voter=actor, target=target)
                )
        return events

    def allows(
        self, state: LupusState, actor: PlayerId, command: Command, now: datetime, channel: str
    ) -> bool:
        """:meth:`decide`'s verdict, without making its events (issue 23): a vote's running
        tally, a night action's relays."""
        verb = command.verb
        if state.outcome is None and state.phase != "over":
            if verb in ("vote", "unvote"):
                return day.vote_refused(state, actor, command, channel) is None
            if verb in NIGHT_VERBS:  # LUP-D04: an immediate probe is final once made
                refused = self._action_refused(state, actor, command) is not None
                return not refused and not (verb == "scan" and night.probe_made(state))
        return super().allows(state, actor, command, now, channel)

    def decision(
        self, state: LupusState, actor: PlayerId, command: Command, now: datetime, channel: str
    ) -> list[Event]:
        """:meth:`decide`'s events, [] where it refuses, a vote's refusal found without
        raising it (issue 23: a third of the bots' commands are refused, most of them UNVOTEs
        with no vote to withdraw, LUP-620)."""
        if command.verb in ("vote", "unvote") and state.outcome is None and state.phase != "over":
            if day.vote_refused(state, actor, command, channel) is not None:
                return []
            return day.vote_events(state, actor, command, now)
        try:
            return self.decide(state, actor, command, now, channel)
        except CommandError:  # Lupus refuses a command whole: never in part
            return []

    def offers_nothing(self, state: LupusState) -> bool:
        """LUP-400, LUP-D19: the debate and the defence take no command (HELP and STATUS
        only, :meth:`available_verbs`)."""
        return state.phase in _QUIET_PHASES

    def refused_to_all(self, state: LupusState, command: Command, channel: str) -> bool:
        """A vote or a card's night action naming a dead player (LUP-607: every path of
        :meth:`allows` checks its target is alive), a round-2 vote for a non-nominee (LUP-408),
        the pack's KILL naming a werewolf (LUP-D05)."""
        verb, targets = command.verb, command.targets
        if not targets or (verb != "vote" and verb not in NIGHT_VERBS):
            return False
        target = state.seat(targets[0])
        if not target.alive:
            return True
        if verb == "vote":
            return state.phase == "round2" and targets[0] not in state.nominees
        return verb == "kill" and target.role == WOLF and not state.options.wolves_may_target_wolf

    def _action_refusal(
        self, state: LupusState, actor: PlayerId, command: Command
    ) -> IllegalNow | None:
        """Why a card's night action (``NIGHT_VERBS``) is refused, None if it is taken:
        :meth:`_action_refused`'s reason, with what its template shows."""
        reason = self._action_refused(state, actor, command)
        if reason is None:
            return None
        if reason in ("target_not_living", "target_is_partner"):
            return IllegalNow(reason, name=command.targets[0])
        return IllegalNow(reason)

    def _action_refused(self, state: LupusState, actor: PlayerId, command: Command) -> str | None:
        """The reason a card's night action is refused, None if it is taken: :meth:`decide`'s
        checks, in its order. A reason only: the bots and the quick actions ask it of every
        name they try (issue 23)."""
        verb, seats = command.verb, state.seats
        seat = seats[actor]
        if not seat.alive:
            return "dead"  # LUP-607
        if state.phase != "night":
            return "night_only"
        if seat.role != NIGHT_VERBS[verb]:
            return "not_your_role"
        action = _ACTIONS.get(verb)
        assert action is not None  # every night verb is a card's action
        if action.nights and state.number not in action.nights:
            return "night2_only"  # LUP-380: the Mythomaniac's copy, Night 2 only
        target = command.targets[0]
        if not seats[target].alive:
            return "target_not_living"
        if target == actor and not action.allow_self:
            return "not_yourself"  # LUP-610, LUP-611, LUP-616
        if (
            verb == "kill"
            and seats[target].role == WOLF
            and not state.options.wolves_may_target_wolf
        ):
            return "target_is_partner"  # LUP-D05: wolves know each other
        return None

    def _check_probe_not_final(self, state: LupusState, actor: PlayerId) -> None:
        # LUP-D04 (seer_result_timing = immediate): the first probe is final and already
        # answered, so neither PASS nor CANCEL SCAN may withdraw it (and open a second one).
        if state.options.seer_result_timing == "immediate" and state.action(actor, "scan"):
            raise IllegalNow("already_final")

    def _decide_cancel(self, state: LupusState, actor: PlayerId, command: Command) -> list[Event]:
        if not command.text and not _cancellable(state, actor):
            raise IllegalNow("nothing_standing")  # a bare ANNULER, nothing to withdraw
        verb = self.cancelled_verb(command, state, actor)
        if state.phase != "night":
            raise IllegalNow("night_only")  # LUP-603, LUP-604: night actions end with the night
        if state.action(actor, verb) is None:
            raise IllegalNow("nothing_to_cancel")
        if verb == "scan":
            self._check_probe_not_final(state, actor)
        return [ActionCleared(actor, verb)]

    def player_summary(self, state: LupusState, player: PlayerId) -> dict[str, Any]:
        """One player in the summary: name, role, team and alive."""
        s = state.seats[player]
        return {"name": player, "role": s.role, "team": faction(s), "alive": s.alive}

    def status(self, state: LupusState, actor: PlayerId) -> dict[str, Any]:
        """LUP-622: own role, partners he knows, phase, deadlines, pending, living, nominees."""
        seat = state.seat(actor)
        partners: list[PlayerId] = []
        if seat.role in KNOW_EACH_OTHER:  # the werewolves, the Seers, the Masons
            partners = [p for p in state.holders(seat.role, alive=False) if p != actor]
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
            "deadlines": {k: iso(v) for k, v in state.deadlines.items()},
            "pending": pending,
            "vote": vote,
            "living": state.living(),
            "nominees": list(state.nominees),
        }

    def available(self, state: LupusState, actor: PlayerId) -> list[CommandSpec]:
        return self.commands_among(self.available_verbs(state, actor))

    def _acting(self, state: LupusState) -> frozenset[PlayerId]:
        """:func:`_acting`, worked out once per state: asked of every player at every bot
        round (issue 23), a set made once a round and a lookup a player."""
        last = self._last_acting
        if last is None or last[0] is not state:
            last = self._last_acting = (state, _acting(state))
        return last[1]

    def available_verbs(self, state: LupusState, actor: PlayerId) -> frozenset[str]:
        # asked of every player at every bot round (issue 23): the verbs come from a few
        # kept sets, the night's from its card, its night number and a second Seer
        phase = state.phase
        if phase == "night":
            seat = state.seats[actor]
            if not seat.alive:
                return _ALWAYS
            role = seat.role
            seer, wolf = role == SEER, role == WOLF
            probes = _probes(state, actor) if seer else "open"
            key = (
                role,
                state.number,
                seer and len(state.holders(SEER)) > 1,
                wolf and len(state.holders(WOLF)) > 1,
                probes,
                # LUP-D04: an immediate probe of his own is final, not withdrawn
                probes != "mine" and actor in self._acting(state),
            )
            allowed = _NIGHT_VERBS.get(key)
            if allowed is None:
                allowed = _NIGHT_VERBS[key] = _night_verbs(*key)
            return allowed
        if phase == "round1":
            seat = state.seats[actor]
            if seat.alive:
                return _ballot_verbs(state, actor)
            # LUP-D22: a ghost votes in round 1 (the variant off, by default: no ghost)
            if state.options.ghost_variant and actor in state.ghosts():
                return _ballot_verbs(state, actor)
            return _ALWAYS
        if phase == "round2":  # LUP-408: neither nominees nor ghosts vote in round 2
            seat = state.seats[actor]
            if seat.alive and actor not in state.nominees:
                return _ballot_verbs(state, actor)
            return _ALWAYS
        return _ALWAYS

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
        if not name:
            return None
        vote = _BOLD_VOTES.get(name)
        if vote is None:  # frozen: one object for every bold vote for him
            if len(_BOLD_VOTES) >= 1024:  # bounded: a table's names change from game to game
                _BOLD_VOTES.clear()
            vote = _BOLD_VOTES[name] = Command("vote", (name,))
        return vote

    def final(self, state: LupusState, actor: PlayerId, verb: str) -> bool:
        """LUP-D18, LUP-D04: a vote when changes are off, an immediate probe, are final."""
        if verb in ("vote", "unvote"):
            return not state.options.vote_changes_allowed
        return verb == "scan" and state.options.seer_result_timing == "immediate"

    def ready_to_close(self, state: LupusState) -> str | None:
        """LUP-D29: close early only when everyone has acted (never by default)."""
        o = state.options
        if not o.early_close and not o.early_close_day:  # the default: asked after each move
            return None
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
            powered = [p for p in state.living() if acts_on_night(state.seat(p).role, state.number)]
            return frozenset(p for p in powered if p not in acted)
        if state.phase == "round1":
            return frozenset(p for p in state.living() + state.ghosts() if p not in state.votes)
        if state.phase == "round2":
            return frozenset(
                p for p in state.living() if p not in state.nominees and p not in state.votes
            )
        return frozenset()
