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
from datetime import datetime
from typing import Any

from pbem.core.commands import Command, CommandSpec
from pbem.core.errors import CommandError, IllegalNow, ListClosed, SetupError
from pbem.core.events import (
    ActionSet,
    Event,
    GameCreated,
    PhaseStarted,
    RolesDealt,
    VoteSet,
    private,
    public,
)
from pbem.core.game import GameSpec
from pbem.core.ids import PlayerId
from pbem.core.match import fold
from pbem.core.options import options_to_json, parse_options
from pbem.games.loupgarou import day, election, night, nightfall, orders
from pbem.games.loupgarou.commands import COMMANDS
from pbem.games.loupgarou.deck import game_deck
from pbem.games.loupgarou.options import LoupGarouOptions
from pbem.games.loupgarou.roles import (
    CARDS,
    INITIAL_TEAM,
    MASTER,
    NIGHT_ROLES,
    PIPER,
    RESERVED,
    ROLES,
    SEER,
    THIEF,
    VILLAGERS,
    WOLVES,
)
from pbem.games.loupgarou.state import EVENT_TYPES, LoupGarouState, evolve, iso
from pbem.games.village.cards import deal
from pbem.games.village.rules import VillageRules
from pbem.games.village.voting import bold_name

_CARD_ORDERS: Mapping[str, Callable[[LoupGarouState, PlayerId, Command], list[Event]]] = {
    "scan": orders.decide_scan,
    "save": orders.decide_save,
    "poison": orders.decide_poison,
    "ask": orders.decide_ask,
    "lovers": orders.decide_lovers,
    "charm": orders.decide_charm,
    "become": orders.decide_become,
}
"""A card's night order (NIGHT_ROLES) -> its checks and events (:mod:`.orders`)."""

_ALWAYS = frozenset({"help", "status"})
_WITH_SASH = _ALWAYS | {"sash"}
_VERBS: dict[tuple[object, ...], frozenset[str]] = {}
"""What :meth:`LoupGarou._allowed_alive` reads of a living player and his state -> the verbs
he may send (with the sash he holds)."""

_DAY_BALLOT = {"none": ("vote",), "changeable": ("vote", "unvote"), "final": ()}
"""A day voter's ballot verbs by his vote (:func:`_day_ballot`)."""


def _day_ballot(state: LoupGarouState, actor: PlayerId) -> str:
    """A day voter's vote: ``none`` standing (nothing to withdraw, LG-623: « has a vote »),
    ``changeable``, or ``final`` (LG-D33: ``vote_changes_allowed`` off)."""
    if actor not in state.votes:
        return "none"
    return "changeable" if state.options.vote_changes_allowed else "final"


def _scan_final(state: LoupGarouState, actor: PlayerId) -> bool:
    """Whether the Seer's scan of tonight is made and final (LG-D11: immediate results)."""
    return state.options.seer_result_timing == "immediate" and bool(state.action(actor, "scan"))


_WITHDRAWN: dict[str, tuple[str, ...]] = {
    role: ("pass", "bite", "kill", *dict.fromkeys(a.verb for a in card.actions))
    for role, card in CARDS.items()
}
"""A card -> the orders its holder may have standing (LG-603: what ANNULER withdraws)."""


def _standing(state: LoupGarouState, actor: PlayerId, role: str, ballot: bool) -> bool:
    """Whether ANNULER would withdraw something of ``actor``'s (LG-603, LG-626): his vote for
    Mayor while the election is open, or an order of his still open to change (not a council
    vote once the council is over, LG-213; not an immediate scan, final, LG-D11). A few
    lookups: asked of every player at every bot round (issue 23)."""
    if ballot and actor in state.votes:
        return True
    actions = state.actions
    for verb in _WITHDRAWN[role]:
        if (actor, verb) in actions:
            if verb == "kill" and state.council_closed:
                continue
            if verb == "scan" and _scan_final(state, actor):
                continue
            return True
    return False


class LoupGarou(VillageRules[LoupGarouState]):
    """Loup-Garou, every rule LG-001..LG-760 with the spec's decisions as defaults."""

    id = "loup-garou"
    title = "Loup-Garou"
    options_type = LoupGarouOptions
    templates = "loupgarou"
    roles = ROLES
    commands = COMMANDS
    event_types = EVENT_TYPES
    state_type = LoupGarouState
    fold_event = staticmethod(evolve)
    reserved = tuple(sorted(RESERVED))  # LG-D42: the engine refuses them at setup too

    @classmethod
    def check_options(cls, options: Any) -> None:
        """LG-D02, LG-D05: a runoff of the Mayor's election (``mayor_election_tie = runoff``)
        needs its own window, which an election held during Night 1 does not leave."""
        if options.election_concurrent_with_night1 and options.mayor_election_tie == "runoff":
            raise SetupError(
                "a runoff needs its own window: not with election_concurrent_with_night1"
            )

    def setup(self, spec: GameSpec, now: datetime, rng: random.Random) -> list[Event]:
        options = parse_options(LoupGarouOptions, spec.options)
        self.check_options(options)
        if spec.leftover:
            raise SetupError("Loup-Garou deals every card: no leftover")
        players = tuple(p.name for p in spec.players)
        for name in players:
            if fold(name) in RESERVED:
                raise SetupError(f"player name {name!r} is a reserved word (LG-D42)")
        deck = game_deck(options, len(players))
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
            events.append(election.draw_idiot(roles, rng, players))
        bite_end = now + options.bite_window
        election_end = bite_end + options.election_window
        counts = Counter(deck)
        events.append(  # LG-700
            public(
                "loupgarou/opening",
                "setup",
                players=list(players),
                deck=[{"role": r, "count": counts[r]} for r in ROLES if counts[r]],
                bite_end=iso(bite_end),
                election_end=iso(election_end),
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
                    bite_end=iso(bite_end) if role == MASTER else None,
                )
            )
        events.append(PhaseStarted("bite", 0, {"bite": bite_end}))  # LG-201
        return events

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
            return election.draw_successor(state, rng)
        match (state.phase, key):
            case ("bite", "bite"):
                return election.close_bite(state, now, rng)
            case ("election", "election") | ("runoff", "runoff") | ("night", "election"):
                return election.close_election(state, now, rng)
            case ("night", "council"):
                return night.close_council(state, rng)
            case ("night", "night"):
                events: list[Event] = []
                if "election" in state.deadlines:  # LG-D02: the Mayor is known by dawn
                    events = election.close_election(state, now, rng)
                    state = self.fold(events, state)
                if not state.council_closed:  # both deadlines at once: A closes first
                    closing = night.close_council(state, rng)
                    events += closing
                    state = self.fold(closing, state)
                return events + night.resolve_night(state, now, rng)
            case ("day", "day"):
                return day.close_day(state, now, rng)
            case ("tiebreak", "tiebreak"):
                return day.close_tiebreak(state, now, rng)
        return []

    def allows(
        self,
        state: LoupGarouState,
        actor: PlayerId,
        command: Command,
        now: datetime,
        channel: str,
    ) -> bool:
        """As :meth:`decide` answers; a vote is checked without its running tally."""
        if command.verb == "vote" and state.outcome is None:
            try:
                if not state.seat(actor).alive:
                    raise IllegalNow("dead")
                day.check_vote(state, actor, command, channel)
            except CommandError:
                return False
            return True
        return super().allows(state, actor, command, now, channel)

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
        seat = state.seats[actor]
        if verb == "sash":
            return election.decide_sash(state, actor, command)
        if not seat.alive:
            raise IllegalNow("dead")  # LG-606, LG-241
        if verb in ("vote", "unvote"):
            return day.decide_vote(state, actor, command, now, channel)
        if verb == "decide":
            return day.decide_tiebreak(state, actor, command, now)
        if verb == "cancel":
            return self._decide_cancel(state, actor, command, now, channel)
        if verb == "pass":  # LG-603
            if state.phase not in ("bite", "election", "runoff", "night"):
                raise IllegalNow("nothing_to_pass")
            return [ActionSet(actor, "pass")]
        if verb == "bite":
            return orders.decide_bite(state, actor, command)
        if verb == "mayor":
            if not election.election_open(state):
                raise IllegalNow("election_closed")  # LG-503
            target = command.targets[0]
            if state.phase == "runoff" and target not in state.tied:
                raise IllegalNow("not_tied", name=target, tied=list(state.tied))
            return [VoteSet("mayor", actor, target, state.seq + 1)]  # LG-501
        if state.phase != "night":
            raise IllegalNow("night_only")
        if verb in ("kill", "pack"):
            return orders.decide_council(state, actor, command)
        role = NIGHT_ROLES[verb]
        if seat.role != role:
            raise IllegalNow("not_your_role")
        if role != PIPER and not state.powered(actor):
            raise IllegalNow("no_powers")  # LG-385, LG-D19
        return _CARD_ORDERS[verb](state, actor, command)

    def _decide_cancel(
        self,
        state: LoupGarouState,
        actor: PlayerId,
        command: Command,
        now: datetime,
        channel: str,
    ) -> list[Event]:
        """LG-603, LG-626: ``ANNULER <mot-clé>``."""
        if not command.text and actor not in state.votes:
            ballot = election.election_open(state)
            if not _standing(state, actor, state.seat(actor).role, ballot):
                raise IllegalNow("nothing_standing")  # a bare ANNULER, nothing to withdraw
        verb = self.cancelled_verb(command, state, actor)
        if verb == "vote":
            return day.decide_vote(state, actor, Command("unvote"), now, "list")
        if verb == "mayor":
            if not election.election_open(state) or actor not in state.votes:
                raise IllegalNow("nothing_to_cancel")
            return [VoteSet("mayor", actor, None, state.seq + 1)]
        if verb == "kill" and state.council_closed:
            raise IllegalNow("council_closed")
        if verb == "scan" and _scan_final(state, actor):
            raise IllegalNow("already_final")  # LG-D11: no second scan by way of ANNULER
        return self.cleared(state, actor, verb)

    def summary_extra(self, state: LoupGarouState) -> dict[str, Any]:
        """The summary's own keys: the mayor."""
        return {"mayor": state.mayor}

    def player_summary(self, state: LoupGarouState, player: PlayerId) -> dict[str, Any]:
        """One player in the summary: name, role, team, alive and conditions."""
        s = state.seat(player)
        return {
            "name": player,
            "role": s.role,
            "team": s.team,
            "alive": s.alive,
            "conditions": state.conditions(player),
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
            "deadlines": {k: iso(v) for k, v in self.deadlines(state).items()},
            "pending": pending,
            "vote": state.votes.get(actor) if state.phase != "tiebreak" else None,
            "living": state.living(),
            "mayor": state.mayor,
        }

    def available(self, state: LoupGarouState, actor: PlayerId) -> list[CommandSpec]:
        return self.commands_among(self.available_verbs(state, actor))

    def available_verbs(self, state: LoupGarouState, actor: PlayerId) -> frozenset[str]:
        # asked of every player at every bot round (issue 23): kept per what decides them
        if state.outcome is not None:
            return _ALWAYS
        seat = state.seats[actor]
        sash = state.sash_holder == actor
        if not seat.alive:
            return _WITH_SASH if sash else _ALWAYS
        phase = state.phase
        role = seat.role
        ballot = phase in ("election", "runoff") or "election" in state.deadlines  # election_open
        standing = _standing(state, actor, role, ballot)
        key: tuple[object, ...]
        if phase == "night":
            key = (
                standing,
                sash,
                phase,
                role,
                ballot,
                actor in state.council,
                state.council_closed,
                actor not in state.powerless,
                state.number,
                state.death_used,
                state.life_used or not (state.council_closed and state.victim),
                role == THIEF and not nightfall.thief_choices(state, actor),
                len(state.council) > 1,
                role == SEER and _scan_final(state, actor),
            )
        elif phase == "day":
            key = (
                standing,
                sash,
                phase,
                role,
                ballot,
                state.mayor == actor,
                _day_ballot(state, actor),
            )
        else:
            key = (standing, sash, phase, role, ballot, state.mayor == actor)
        found = _VERBS.get(key)
        if found is None:
            allowed = {"help", "status"} | self._allowed_alive(state, actor)
            found = _VERBS[key] = frozenset(allowed | {"sash"} if sash else allowed)
        return found

    def _allowed_alive(self, state: LoupGarouState, actor: PlayerId) -> set[str]:
        seat = state.seat(actor)
        allowed: set[str] = set()
        phase = state.phase
        if phase == "bite":
            allowed |= {"pass", "cancel"}  # LG-603: ANNULER withdraws his PASS or his bite
            if seat.role == MASTER:
                allowed.add("bite")
        if election.election_open(state):
            allowed |= {"mayor", "pass", "cancel"}
        if phase == "night":
            allowed |= {"pass", "cancel"}
            if actor in state.council:
                if len(state.council) > 1:  # LG-613: relayed to the other members
                    allowed.add("pack")
                if not state.council_closed:
                    allowed.add("kill")
            if state.powered(actor):  # LG-385, LG-D19 (the Piper is never powerless, LG-394)
                allowed |= {
                    a.verb
                    for a in CARDS[seat.role].actions
                    if a.phase == "night" and (not a.nights or state.number in a.nights)
                }
            # the odd cards' hooks: the witch's potions, each once (LG-350), life only for the
            # council's victim; the thief only while a choice is open to him (LG-321)
            if state.death_used:
                allowed.discard("poison")
            if state.life_used or not (state.council_closed and state.victim):
                allowed.discard("save")
            if seat.role == THIEF and not nightfall.thief_choices(state, actor):
                allowed.discard("become")
            if seat.role == SEER and _scan_final(state, actor):
                allowed.discard("scan")  # LG-D11: an immediate scan is final
        elif phase == "day":
            allowed |= {"cancel", *_DAY_BALLOT[_day_ballot(state, actor)]}
        elif phase == "tiebreak" and state.mayor == actor:
            allowed.add("decide")
        if "cancel" in allowed and not _standing(
            state, actor, seat.role, election.election_open(state)
        ):
            allowed.discard("cancel")  # LG-603: nothing of his to withdraw
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

    def awaited_at_close(self, state: LoupGarouState, key: str) -> frozenset[PlayerId]:
        # LG-D31: the dead Mayor's sash closes inside a phase whose vote or council runs on to
        # its own deadline (its silent players are counted then, once): its close counts no one.
        # LG-311/LG-D03: the bite is optional, so a master wolf who lets the window pass has
        # chosen not to bite; he stays awaited meanwhile (the reminder of a once-a-game power)
        return frozenset() if key in ("sash", "bite") else self.awaiting(state)

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
