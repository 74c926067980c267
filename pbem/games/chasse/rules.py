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
from datetime import datetime
from typing import Any

from pbem.core.commands import Command, CommandSpec
from pbem.core.errors import CommandError, IllegalNow, InvalidSyntax, ListClosed, SetupError
from pbem.core.events import (
    ActionSet,
    Event,
    GameCreated,
    RolesDealt,
    private,
    public,
)
from pbem.core.game import GameSpec
from pbem.core.ids import PlayerId
from pbem.core.match import fold, names_by_fold
from pbem.core.options import options_to_json, parse_options
from pbem.games.chasse import day, night, nightfall, orders, revenge
from pbem.games.chasse.commands import COMMANDS
from pbem.games.chasse.deck import DECK, PLAYERS, deck_cards
from pbem.games.chasse.options import ChasseOptions
from pbem.games.chasse.roles import (
    BILLIE,
    CARD_OF,
    COLE,
    DEMON,
    RESERVED,
    ROLES,
    SUBPHASE_OF,
    faction,
)
from pbem.games.chasse.state import EVENT_TYPES, ChasseState, PennyGiven, evolve, iso
from pbem.games.chasse.subphases import DURATION_OF, NIGHT_PHASES
from pbem.games.village.cards import deal
from pbem.games.village.rules import VillageRules

_ALWAYS = frozenset({"help", "status"})
_VERBS: dict[tuple[object, ...], frozenset[str]] = {}
"""What :meth:`ChasseAuxSorcieres._verbs` reads of a player and his state -> the verbs he
may send."""

_WITHDRAWN: dict[str, tuple[str, ...]] = {
    role: ("pass", "kill", *(v for v, card in CARD_OF.items() if card == role and v != "keep"))
    for role in ROLES
}
"""A card -> the night orders of its holder ANNULER withdraws (CAS-603; GARDER is withdrawn
as the PRENDRE it stands against, so a kept card is not)."""


def _standing(state: ChasseState, actor: PlayerId, role: str) -> bool:
    """Whether ANNULER would withdraw a night order of ``actor``'s (CAS-603): a few lookups,
    asked of every player at every bot round (issue 23)."""
    actions = state.actions
    return any((actor, verb) in actions for verb in _WITHDRAWN[role])


def _cancellable(state: ChasseState, actor: PlayerId) -> bool:
    """Whether ANNULER has something of ``actor``'s to withdraw: a vote (ANNULER VOTE,
    CAS-621) or a night order standing (CAS-603)."""
    if actor in state.votes:
        return True
    return state.phase in NIGHT_PHASES and _standing(state, actor, state.seat(actor).role)


class ChasseAuxSorcieres(VillageRules[ChasseState]):
    """Chasse aux sorcières: every rule CAS-001..CAS-750 with the spec's decisions as defaults."""

    id = "chasse-aux-sorcieres"
    title = "Chasse aux sorcières"
    options_type = ChasseOptions
    templates = "chasse"
    roles = ROLES
    commands = COMMANDS
    event_types = EVENT_TYPES
    state_type = ChasseState
    fold_event = staticmethod(evolve)
    reserved = RESERVED

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
        return events + nightfall.start_night(state, 1, now)  # CAS-202, CAS-703

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
            return revenge.revenge_closed(state, now)
        if state.phase in NIGHT_PHASES:
            return night.close_subphase(state, now, rng)
        match state.phase:
            case "day":
                return day.close_day(state, now, rng)
            case "tiebreak":
                return day.close_tiebreak(state, now, rng)
        return []

    def allows(
        self, state: ChasseState, actor: PlayerId, command: Command, now: datetime, channel: str
    ) -> bool:
        """As :meth:`decide` answers; a vote is checked without its running tally."""
        if (
            command.verb == "vote"
            and state.outcome is None
            and state.phase not in ("over", "setup")
        ):
            try:
                if not state.seat(actor).alive:
                    raise IllegalNow("dead")
                day.check_vote(state, actor, command, channel)
            except CommandError:
                return False
            return True
        return super().allows(state, actor, command, now, channel)

    def decide(
        self, state: ChasseState, actor: PlayerId, command: Command, now: datetime, channel: str
    ) -> list[Event]:
        if state.outcome is not None or state.phase in ("over", "setup"):
            raise IllegalNow("game_over")  # CAS-750
        verb = command.verb
        seat = state.seat(actor)
        if verb == "revenge":
            return revenge.decide_revenge(state, actor, command, now)
        if verb in ("choose", "spare"):
            return day.decide_tiebreak(state, actor, command, now, channel)
        if not seat.alive:
            raise IllegalNow("dead")  # CAS-005, CAS-606, CAS-D28
        if verb in ("vote", "unvote"):
            return day.decide_vote(state, actor, command, now, channel)
        if verb == "pass":  # CAS-603, CAS-624
            if state.phase not in NIGHT_PHASES:
                raise IllegalNow("nothing_to_pass")
            return [ActionSet(actor, "pass")]
        if verb == "cancel":
            return self._decide_cancel(state, actor, command, now)
        if verb == "council":
            return orders.decide_council(state, actor, command)
        return orders.decide_night(state, actor, command)

    def _decide_cancel(
        self, state: ChasseState, actor: PlayerId, command: Command, now: datetime
    ) -> list[Event]:
        """CAS-603: ``ANNULER <mot-clé>`` withdraws the pending command of that kind."""
        if not command.text and not _cancellable(state, actor):
            raise IllegalNow("nothing_standing")  # a bare ANNULER, nothing to withdraw
        verb = self.cancelled_verb(command, state, actor)
        if verb == "vote":
            return day.decide_vote(state, actor, Command("unvote"), now, "list")
        if state.phase not in NIGHT_PHASES:
            # CAS-603: a night order stands until its sub-phase's deadline, no later (the
            # last sub-phase's orders, resolved, are still held by day: none is withdrawn)
            raise IllegalNow("night_only")
        # CAS-603: the order the keyword names, as for every other card: ANNULER GARDER took
        # back a PRENDRE (and refused to take back a GARDER), told as an ANNULER PRENDRE
        return self.cleared(state, actor, verb)

    def conditions(self, state: ChasseState, player: PlayerId) -> list[str]:
        """What ``player`` is besides a role: ``lover``, ``penny``."""
        out = []
        if player in state.lovers:
            out.append("lover")
        if player == state.penny:
            out.append("penny")
        return out

    def summary_extra(self, state: ChasseState) -> dict[str, Any]:
        """The summary's own keys: the cards left over, the lovers, Penny's player."""
        return {
            "leftover": list(state.leftover),
            "lovers": list(state.lovers),
            "penny": state.penny,
        }

    def player_summary(self, state: ChasseState, player: PlayerId) -> dict[str, Any]:
        """One player in the summary: name, role, team, alive and conditions."""
        s = state.seat(player)
        return {
            "name": player,
            "role": s.role,
            "team": faction(s.role),
            "alive": s.alive,
            "conditions": self.conditions(state, player),
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
            "deadlines": {k: iso(v) for k, v in self.deadlines(state).items()},
            "pending": pending,
            "vote": state.votes.get(actor),
            "living": state.living(),
        }

    def available(self, state: ChasseState, actor: PlayerId) -> list[CommandSpec]:
        return self.commands_among(self.available_verbs(state, actor))

    def available_verbs(self, state: ChasseState, actor: PlayerId) -> frozenset[str]:
        # asked of every player at every bot round (issue 23): kept per what decides them
        if state.outcome is not None:
            return _ALWAYS
        seat = state.seats[actor]
        phase = state.phase
        tie = state.tie
        key: tuple[object, ...] = (
            state.revenge is not None and state.revenge.prue == actor,
            phase == "day" and day.vote_withdrawable(state, actor),
            tie.mode if phase == "tiebreak" and tie and tie.breaker == actor else None,
            phase,
            seat.alive,
        )
        if seat.alive and phase in NIGHT_PHASES:
            role = seat.role
            key += (
                role,
                nightfall.leo_forced(state),
                # in state.council(): the living Demons and Billie (CAS-214), and he lives
                phase in ("W1", "W2") and role in (DEMON, BILLIE),
                role in state.spent or (role == COLE and not state.cole_active()),
                state.victim is None,
                _standing(state, actor, role),
            )
        found = _VERBS.get(key)
        if found is None:
            found = _VERBS[key] = frozenset(self._verbs(state, actor))
        return found

    def _verbs(self, state: ChasseState, actor: PlayerId) -> set[str]:
        seat = state.seat(actor)
        allowed = {"help", "status"}
        if state.outcome is None:
            if state.revenge is not None and state.revenge.prue == actor:
                allowed.add("revenge")
            if state.phase == "tiebreak" and state.tie and state.tie.breaker == actor:
                allowed.add("choose" if state.tie.mode == "choose" else "spare")
            if seat.alive and state.phase in NIGHT_PHASES:
                allowed.add("pass")
                if _standing(state, actor, seat.role):  # CAS-603: else nothing to withdraw
                    allowed.add("cancel")
                for verb, card in CARD_OF.items():
                    if seat.role == card and SUBPHASE_OF[verb] == state.phase:
                        allowed.add(verb)
                if "keep" in allowed and nightfall.leo_forced(state):
                    allowed.discard("keep")
                if state.phase in ("W1", "W2") and actor in state.council():
                    allowed.add("council")
                    if state.phase == "W1":
                        allowed.add("kill")
                if seat.role in state.spent or (seat.role == COLE and not state.cole_active()):
                    allowed -= {"burn", "heal", "swap"}
                if state.victim is None:
                    allowed.discard("heal")
            if seat.alive and state.phase == "day":
                allowed.add("vote")
                if day.vote_withdrawable(state, actor):  # CAS-621: « has a vote »
                    allowed.add("unvote")
        return allowed

    def bold_command(
        self, state: ChasseState, actor: PlayerId, bold: Sequence[str]
    ) -> Command | None:
        """The forum convention: a name in bold in a public post is a vote (CAS-620)."""
        if state.phase != "day":
            return None
        names = names_by_fold(tuple(state.order))
        folded = [fold(b.strip()) for b in bold]
        found = list(dict.fromkeys(names[f] for f in folded if f in names))
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
            return "day" if set(state.living()) <= set(day.valid_votes(state)) else None
        return None

    def side_of(self, state: ChasseState, player: PlayerId) -> str | None:
        return faction(state.seat(player).role)

    def awaited_at_close(self, state: ChasseState, key: str) -> frozenset[PlayerId]:
        # CAS-D18: Prue's revenge window closes inside the day, whose vote runs on to T_day
        # (its silent voters are counted then, once), and Prue, out of the game, may let it
        # pass: its close counts no one
        return frozenset() if key == "revenge" else self.awaiting(state)

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
