"""Dracula (13 players, several rounds): ``../shared/rules/dracula.md``.

Phases are deadline keys: ``day`` (DRA-040 … DRA-050), ``pairing`` (Night 4, DRA-221),
then the night's sub-steps ``rooms``, ``dracula_room`` (Night 1), ``magnifier``, ``bites``,
``dance_reply``, ``dawn_curse``, and the final phase ``final_choice`` and ``flames``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from pbem.core.commands import Command, CommandSpec, Player, Players, Text, Word
from pbem.core.errors import IllegalNow, InvalidSyntax, SetupError
from pbem.core.events import Event, GameCreated, GameEnded, PhaseStarted, VoteSet, private, public
from pbem.core.game import ADMIN, GameSpec, Rules
from pbem.core.ids import PlayerId
from pbem.core.match import fold
from pbem.core.options import options_to_json, parse_options
from pbem.core.outcome import Outcome, Termination
from pbem.games.dracula import final, night
from pbem.games.dracula.batch import Batch
from pbem.games.dracula.night import iso
from pbem.games.dracula.state import (
    CANDLE,
    DRACULA,
    EVENT_TYPES,
    GARLIC,
    GRIMOIRE,
    HUMAN,
    HUMANS,
    KEY,
    MAGNIFIER,
    ORDINARY,
    PAINTKIT,
    PHONOGRAPH,
    ROLES,
    ROOM_WORDS,
    SANCTUARY,
    SPECIAL_OBJECTS,
    STAKE,
    VAMPIRES,
    Declared,
    Designated,
    DraculaOptions,
    DraculaState,
    FinalChoice,
    Moved,
    Order,
    Paired,
    Posted,
    RoundScored,
    RoundStarted,
    Telepathy,
    TelepathyHeld,
    evolve,
)

ROOMS_AND_SANCTUARY: Mapping[str, tuple[str, ...]] = {
    **ROOM_WORDS,
    SANCTUARY: ("SANCTUAIRE", "SANCTUARY"),
}
_ROOM = (Word(ROOMS_AND_SANCTUARY),)
COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("vote", ("VOTE", "VOTER"), ("VOTE",), (Player(),), public=True),  # CMD-01
    CommandSpec("partner", ("COEQUIPIER",), ("PARTNER",), (Player(),), public=True),  # CMD-02
    CommandSpec("room", ("PIECE", "SALLE"), ("ROOM",), _ROOM),  # CMD-04 (private first)
    CommandSpec("declare", ("PIECE", "SALLE"), ("ROOM",), _ROOM, public=True),  # CMD-03
    CommandSpec("magnifier", ("LOUPE",), ("MAGNIFIER",)),  # CMD-05
    CommandSpec("garlic", ("AIL",), ("GARLIC",)),  # CMD-06
    CommandSpec("candle", ("BOUGIE",), ("CANDLE",)),  # CMD-07
    CommandSpec("key", ("CLEF", "CLE"), ("KEY",)),  # CMD-08
    CommandSpec("paint", ("PEINDRE",), ("PAINT",), (Text(multiline=True),)),  # CMD-09
    CommandSpec("stake", ("PIEU",), ("STAKE",), (Player(),)),  # CMD-10
    CommandSpec("bite", ("MORDRE",), ("BITE",), (Player(),)),  # CMD-11
    CommandSpec("abstain", ("MORDRE PERSONNE",), ("BITE NOBODY",)),  # CMD-11
    CommandSpec("dance", ("DANSER",), ("DANCE",), (Player(), Text(multiline=True))),  # CMD-12
    CommandSpec("reply", ("REPONDRE",), ("REPLY",), (Text(multiline=True),)),  # CMD-13
    CommandSpec("curse", ("MAUDIRE",), ("CURSE",), (Players(2, at_most=True),)),  # CMD-14
    CommandSpec("telepathy", ("TELEPATHIE",), ("TELEPATHY",), (Text(multiline=True),)),  # CMD-15
    CommandSpec("flee", ("FUIR",), ("FLEE",), (Player(optional=True),), public=True),  # CMD-17
    CommandSpec("fight", ("COMBATTRE",), ("FIGHT",), (), public=True),  # CMD-18
    CommandSpec(
        "flame", ("FLAMME", "FLAMMES"), ("FLAME", "FLAMES"), (Players(12, True, False),)
    ),  # CMD-19
)

ADMIN_COMMANDS: tuple[CommandSpec, ...] = (  # AMB-072
    CommandSpec("approve", ("APPROUVER",), ("APPROVE",)),
    CommandSpec("refuse", ("REFUSER",), ("REFUSE", "REJECT"), (Text(optional=True),)),
)

NIGHT_PHASES = ("rooms", "dracula_room", "magnifier", "bites", "dance_reply", "dawn_curse")
SILENT_PHASES = (*NIGHT_PHASES, "dawn_wait")  # DRA-082: from nightfall to the morning
CHOICE_PHASES = ("rooms", "magnifier")
EARLY_PHASES = (
    *NIGHT_PHASES,
    "final_choice",
    "flames",
)  # AMB-001: the day is for talking  # ORD-04 / ORD-06: object uses with the room
NORMAL_USES = {"magnifier": MAGNIFIER, "garlic": GARLIC, "candle": CANDLE, "key": KEY}


_BOLD = re.compile(r"\*\*([^*\n]+)\*\*|(?<![\w*])\*([^*\s][^*\n]*?)\*(?![\w*])")
_ROOM_KEYWORDS = ("piece", "salle", "room")


def cursed_declaration(lines: Sequence[str], phrases: Sequence[str]) -> str | None:
    """AMB-056.3: the room a compliant cursed post declares, or None if it is not compliant.

    The first line begins with the curse phrase (case, accents and the spaces before "!"
    ignored) and the post names exactly one ordinary room, in bold or on a PIECE/ROOM line.
    """
    if not lines:
        return None
    first = fold(lines[0]).replace(" ", "")
    if not any(first.startswith(fold(p).replace(" ", "")) for p in phrases):
        return None
    spellings = {" ".join(fold(w).split()): r for r, ws in ROOM_WORDS.items() for w in ws}
    found: set[str] = set()
    for line in lines:
        for a, b in _BOLD.findall(line):
            key = " ".join(fold(a or b).split())
            if key in spellings:
                found.add(spellings[key])
        words = fold(line).split()
        if words and words[0] in _ROOM_KEYWORDS:
            key = " ".join(words[1:])
            if key in spellings:
                found.add(spellings[key])
    return found.pop() if len(found) == 1 else None


def faction(state: DraculaState, p: PlayerId) -> str:
    return HUMANS if state.seat(p).human else VAMPIRES


class Dracula(Rules[DraculaState]):
    """Dracula by Superarcanis (2008): rounds of five nights in the manor."""

    id = "dracula"
    title = "Dracula"
    templates = "dracula"
    roles = ROLES
    commands = COMMANDS
    event_types = EVENT_TYPES
    admin_commands = ADMIN_COMMANDS

    def new_state(self) -> DraculaState:
        return DraculaState()

    def evolve(self, state: DraculaState, event: Event) -> DraculaState:
        return evolve(state, event)

    # -- setup and rounds ---------------------------------------------------------------------

    def setup(self, spec: GameSpec, now: datetime, rng: random.Random) -> list[Event]:
        options = parse_options(DraculaOptions, spec.options)
        names = tuple(p.name for p in spec.players)
        if len(names) != 13 and not options.allow_other_player_counts:  # DRA-005, AMB-010
            raise SetupError(f"Dracula is played by exactly 13 players, not {len(names)} (DRA-005)")
        if len(names) < 3:
            raise SetupError("Dracula needs at least 3 players")
        if options.rounds < 1:
            raise SetupError("option 'rounds' must be at least 1 (DRA-006)")
        if spec.leftover:
            raise SetupError("Dracula has no leftover cards")
        dracula: PlayerId | None = None
        if spec.roles is not None:  # a fixed deal for round 1: one Dracula, humans (DRA-007)
            unknown = [p for p in spec.roles if p not in names]
            if unknown:
                raise SetupError(f"roles: not a player: {unknown[0]}")
            missing = [p for p in names if p not in spec.roles]
            if missing:
                raise SetupError(f"roles: no role for {missing[0]}")
            bad = sorted({r for r in spec.roles.values() if r not in (DRACULA, HUMAN)})
            if bad:
                raise SetupError(
                    f"roles: a round starts with one dracula and humans, not {bad[0]!r}"
                )
            draculas = [p for p, r in spec.roles.items() if r == DRACULA]
            if len(draculas) != 1:
                raise SetupError("roles: exactly one player is dracula (DRA-007)")
            dracula = PlayerId(draculas[0])
        b = Batch(self.new_state())
        b.add(
            GameCreated(
                self.id,
                names,
                {p.name: p.lang for p in spec.players},
                options_to_json(options),
                spec.lang,
            )
        )
        b.add(
            public(
                "dracula/opening",
                "opening",
                players=list(names),
                rounds=options.rounds,
                durations={
                    k: getattr(options, k).total_seconds()
                    for k in ("day1", "day", "pairing", "room_choice", "bites", "final_choice")
                },
            )
        )  # NTF-01, DRA-006
        self._start_round(b, 1, now, rng, dracula)
        return b.events

    def _start_round(
        self, b: Batch, number: int, now: datetime, rng: random.Random, dracula: PlayerId | None
    ) -> None:
        s = b.state
        if dracula is None:  # AMB-075
            pool = list(s.order)
            if s.options.dracula_draw == "avoid_repeat" and s.dracula_history:
                pool = [p for p in pool if p != s.dracula_history[-1]] or pool
            dracula = rng.choice(pool)
        b.add(RoundStarted(number, dracula))
        t = f"round-{number}"
        for p in s.order:  # NTF-02, AMB-004: own side only
            b.add(private("dracula/role", [p], t, round=number, dracula=p == dracula))
        end = now + s.options.day1
        b.add(
            public(
                "dracula/round_start", t, round=number, rounds=s.options.rounds, deadline=iso(end)
            )
        )  # NTF-03, DRA-340, DRA-341
        b.add(PhaseStarted("day", 1, {"day": end}))

    def _end_round(
        self, b: Batch, ending: str, points: Mapping[str, int], now: datetime, rng: random.Random
    ) -> None:
        s = b.state
        b.add(RoundScored(s.round, ending, dict(points)))
        s = b.state
        credits = [
            {"name": p, "humans": list(s.seat(p).credits)} for p in s.order if s.seat(p).credits
        ]
        b.add(
            public(
                "dracula/round_end",
                f"round-{s.round}-end",
                round=s.round,
                ending=ending,
                dracula=s.dracula(),
                credits=credits,
                points={p: points.get(p, 0) for p in s.order},
                scores=dict(s.scores),
            )
        )  # NTF-40, DRA-490, AMB-069
        if s.round < s.options.rounds:
            self._start_round(b, s.round + 1, now, rng, None)
            return
        best = max(s.scores.values())
        winners = tuple(p for p in s.order if s.scores[p] == best)  # DRA-010, AMB-070
        b.add(GameEnded(Termination.MATCH_END.value, None, winners))
        b.add(public("dracula/game_end", "end", scores=dict(s.scores), winners=list(winners)))

    # -- deadlines ------------------------------------------------------------------------------

    def deadlines(self, state: DraculaState) -> Mapping[str, datetime]:
        return state.deadlines

    def on_deadline(
        self, state: DraculaState, key: str, now: datetime, rng: random.Random
    ) -> list[Event]:
        if key not in state.deadlines or state.outcome is not None:
            return []
        b = Batch(state)
        match key:
            case "day":
                self._dusk(b, now, rng)
            case "pairing":
                self._close_pairing(b, now, rng)
            case "rooms":
                night.close_rooms(b, now, rng)
            case "dracula_room":
                night.close_dracula_room(b, now, rng)
            case "magnifier":
                night.close_magnifier(b, now, rng)
            case "bites":
                night.close_bites(b, now, rng)
            case "dance_reply":
                night.close_dance_reply(b, now, rng)
            case "dawn_curse":
                night.close_dawn_curse(b, now, rng)
            case "final_choice":
                result = final.close_final_choice(b, now, rng)
                if result:
                    self._end_round(b, result[0], result[1], now, rng)
                return b.events
            case "dawn_wait":
                self._morning(b, now, rng)
                return b.events
            case "flames":
                ending, points = final.close_flames(b, now)
                self._end_round(b, ending, points, now, rng)
                return b.events
        if b.state.phase in NIGHT_PHASES and b.state.phase == state.phase and key == state.phase:
            # the sub-step closed without opening another: the night is over (ORD-24, ORD-25)
            self._morning(b, now, rng)
        return b.events

    def _morning(self, b: Batch, now: datetime, rng: random.Random) -> None:
        s = b.state
        o = s.options
        if (
            o.early_close
            and o.morning_not_before_scheduled
            and s.phase != "dawn_wait"
            and s.night_end is not None
            and now < s.night_end
        ):  # AMB-002: an early night must not show in the morning's timing
            b.add(PhaseStarted("dawn_wait", s.number, {"dawn_wait": s.night_end}))
            return
        no_human = not s.humans()
        last = s.number >= 5
        end = now + s.options.day
        night.morning(b, None if no_human or last else end)
        if no_human:  # ORD-25, DRA-440
            self._end_round(b, final.ENDING_ALL_BITTEN, final.scores_all_bitten(b.state), now, rng)
        elif last:  # DRA-460
            final.open_final(b, now)
        else:  # DRA-188
            b.add(PhaseStarted("day", s.number + 1, {"day": end}))
            night.curse_reminders(b, end)

    def _dusk(self, b: Batch, now: datetime, rng: random.Random) -> None:
        """ORD-01: the designation (DRA-048, DRA-049, AMB-012, AMB-013), cursed defaults."""
        s = b.state
        t = f"round-{s.round}-day-{s.number}"
        counts: dict[PlayerId, int] = {}
        reached: dict[PlayerId, int] = {}
        for _, target, seq in s.votes:
            counts[target] = counts.get(target, 0) + 1
            reached[target] = seq  # the sequence number of his c-th vote
        ranking = sorted(counts, key=lambda p: (-counts[p], reached[p]))
        designated: list[PlayerId] = []
        drawn: list[PlayerId] = []
        if s.number >= 2:  # DRA-022, DRA-023
            designated = [p for p in ranking if s.seat(p).alive][:3]
            if len(designated) < 3 and s.options.fill_empty_seats == "random":
                pool = [p for p in s.living() if self._eligible(s, p) and p not in designated]
                drawn = rng.sample(pool, min(3 - len(designated), len(pool)))
                designated += drawn
            b.add(
                Designated(
                    s.number, tuple(designated), {p: counts[p] for p in counts}, tuple(drawn)
                )
            )
        s = b.state
        cursed_defaults: list[dict[str, str]] = []
        if s.number >= 1:
            for p in s.living():  # AMB-056.6
                if (
                    s.seat(p).cursed
                    and p not in s.declared
                    and p not in designated
                    and s.options.curse_default != "none"
                ):
                    room = rng.choice(ORDINARY)
                    b.add(Declared(p, room, default=True))
                    if s.options.curse_default == "random_public":
                        cursed_defaults.append({"name": p, "room": room})
                    else:
                        b.add(private("dracula/curse_default", [p], t, room=room))
        b.add(
            public(
                "dracula/dusk",
                t,
                round=s.round,
                day=s.number,
                designated=[{"name": p, "votes": counts.get(p, 0)} for p in designated],
                drawn=drawn,
                ranking=[{"name": p, "votes": counts[p]} for p in ranking],
                cursed_defaults=cursed_defaults,
            )
        )  # NTF-07, DRA-070, AMB-006, AMB-015
        if s.number == 4:  # DRA-220, DRA-221
            end = now + s.options.pairing
            b.add(PhaseStarted("pairing", 4, {"pairing": end}))
            must = [p for p in b.state.living() if p not in designated]
            b.add(public("dracula/pairing_open", t, players=must, deadline=iso(end)))  # NTF-08
            return
        night.open_night(b, s.number, now, rng)

    def _close_pairing(self, b: Batch, now: datetime, rng: random.Random) -> None:
        """AMB-030: the unpaired are paired at random; an odd one out stays alone (DRA-225)."""
        s = b.state
        paired = set(s.pairs) | set(s.pairs.values())
        left = [p for p in s.living() if p not in s.designated and p not in paired]
        rng.shuffle(left)
        while len(left) >= 2:
            a, c = left.pop(), left.pop()
            b.add(Paired(a, c, drawn=True))
        s = b.state
        b.add(
            public(
                "dracula/pairs",
                f"round-{s.round}-day-4",
                pairs=[{"naming": a, "named": n} for a, n in s.pairs.items()],
                alone=left,
            )
        )  # NTF-09
        night.open_night(b, 4, now, rng)

    # -- commands -------------------------------------------------------------------------------

    def _eligible(self, s: DraculaState, p: PlayerId) -> bool:
        """DRA-047, DRA-050, DRA-312: no second designated night; key nights do not count."""
        return s.seat(p).alive and not s.seat(p).sanctuary_used

    def decide(
        self, state: DraculaState, actor: PlayerId, command: Command, now: datetime, channel: str
    ) -> list[Event]:
        if state.outcome is not None:
            raise IllegalNow("game_over")
        seat = state.seat(actor)
        verb = command.verb
        if not seat.alive:
            raise IllegalNow("dead")  # DRA-326
        if verb == "pass":  # CMD-16, AMB-001: done with the optional actions of this step
            if s_key := self._pass_key(state):
                return [Order(actor, s_key)]
            raise IllegalNow("not_now")
        if verb == "cancel":
            raise IllegalNow("orders_final")  # AMB-007
        handler = getattr(self, f"_do_{verb}")
        events: list[Event] = handler(state, actor, command, now, channel)
        return events

    # day ------------------------------------------------------------------------------------

    def _do_vote(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        if ch != "list":
            raise IllegalNow("vote_on_list")  # DRA-044
        if s.phase != "day" or s.number < 2:
            raise IllegalNow("no_sanctuary_vote")  # DRA-022, AMB-014
        if any(v == actor for v, _, _ in s.votes):
            raise IllegalNow("vote_final")  # DRA-045
        target = c.targets[0]
        if not s.seat(target).alive:
            raise IllegalNow("target_not_living", name=target)
        if not self._eligible(s, target):
            raise IllegalNow("not_eligible", name=target)  # DRA-047
        if target == actor and not s.options.allow_self_vote:
            raise IllegalNow("not_yourself")
        return [VoteSet(f"day-{s.number}", actor, target, s.seq + 1)]

    def _do_partner(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        if ch != "list":
            raise IllegalNow("partner_on_list")  # DRA-222
        if s.phase != "pairing":
            raise IllegalNow("no_pairing_now")
        target = c.targets[0]
        paired = set(s.pairs) | set(s.pairs.values())
        if actor in s.designated:
            raise IllegalNow("in_sanctuary")
        if actor in paired:
            raise IllegalNow("already_paired")  # DRA-223, DRA-224
        if target == actor:
            raise IllegalNow("not_yourself")
        if not s.seat(target).alive or target in s.designated or target in paired:
            raise IllegalNow("partner_unavailable", name=target)
        return [Paired(actor, target)]

    def _do_declare(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        if not s.seat(actor).cursed:
            raise IllegalNow("not_cursed")
        if s.phase != "day":
            raise IllegalNow("declare_by_day")
        if c.word == SANCTUARY or c.word is None:
            raise IllegalNow("sanctuary_not_a_room")
        if actor in s.declared:
            if s.declared[actor] == c.word:
                return []  # the same room again (a PIECE line of the declaring post)
            raise IllegalNow("declared_already", room=s.declared[actor])  # DRA-377
        return [Declared(actor, c.word)]

    def _do_telepathy(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        if not s.seat(actor).dracula:
            raise IllegalNow("not_dracula")
        if s.telepathy_used:
            raise IllegalNow("telepathy_used")  # DRA-420: once per round
        if s.telepathy_pending is not None:
            raise IllegalNow("telepathy_pending")  # AMB-072
        recipients = [v for v in s.vampires() if not s.seat(v).dracula]
        at_night = s.phase in SILENT_PHASES
        if not recipients and not at_night:
            raise IllegalNow("telepathy_nobody")  # AMB-071
        if s.options.telepathy_review == "admin":  # AMB-072: held for the administrator
            t = f"round-{s.round}-telepathy"
            return [
                TelepathyHeld(c.text),
                private("dracula/telepathy_review", [ADMIN], t, text=c.text, round=s.round),
            ]
        return self._deliver_telepathy(s, c.text)

    def _deliver_telepathy(self, s: DraculaState, text: str) -> list[Event]:
        """DRA-424, DRA-425: by day as soon as possible, by night in the morning."""
        recipients = [v for v in s.vampires() if not s.seat(v).dracula]
        if s.phase in SILENT_PHASES:
            return [Telepathy(text, True)]
        t = f"round-{s.round}-day-{s.number}"
        notices = [private("dracula/telepathy", recipients, t, text=text)] if recipients else []
        return [Telepathy(text, False), *notices]

    def admin(self, state: DraculaState, command: Command, now: datetime) -> list[Event]:
        """AMB-072: the administrator approves or refuses a held telepathy."""
        s = state
        text = s.telepathy_pending
        if text is None or s.outcome is not None:
            raise IllegalNow("nothing_to_review")
        if command.verb == "approve":
            return [TelepathyHeld(text, True, True), *self._deliver_telepathy(s, text)]
        reason = command.text
        return [
            TelepathyHeld(text, True, False, reason),
            private(
                "dracula/telepathy_refused",
                [s.dracula()],
                f"round-{s.round}-telepathy",
                reason=reason,
            ),
        ]

    # night ------------------------------------------------------------------------------------

    def _night_order(
        self, s: DraculaState, actor: PlayerId, verb: str, phases: Sequence[str]
    ) -> None:
        if s.phase not in phases:
            raise IllegalNow("not_now")
        if s.order_of(actor, verb) is not None:
            raise IllegalNow("order_final")  # AMB-007

    def _do_room(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        room = c.word or ""
        if room == SANCTUARY:
            raise IllegalNow("sanctuary_not_a_room")  # DRA-081
        if s.phase == "dracula_room":
            if not s.seat(actor).dracula:
                raise IllegalNow("not_now")
            if s.order_of(actor, "room") is not None:
                raise IllegalNow("order_final")
            if not s.present(room):
                raise IllegalNow("empty_room")  # AMB-020
            return [Order(actor, "room", (), room)]
        self._night_order(s, actor, "room", CHOICE_PHASES)
        if actor in s.designated:
            raise IllegalNow("in_sanctuary")  # DRA-071
        if s.number == 1 and s.seat(actor).dracula:
            raise IllegalNow("dracula_last")  # DRA-102
        if s.named_partner(actor) is not None:
            raise IllegalNow("partner_chooses", partner=s.named_partner(actor))  # DRA-227
        magnified = s.order_of(actor, "magnifier") is not None
        if s.phase == "rooms" and magnified:
            raise IllegalNow("wait_for_report")  # DRA-302
        if s.phase == "magnifier" and not magnified:
            raise IllegalNow("not_now")
        if s.order_of(actor, "key") is not None and s.naming_partner(actor) is None:
            raise IllegalNow("key_used")
        declared = s.declared.get(actor)
        if s.seat(actor).cursed and declared is not None and declared != room:
            raise IllegalNow("declared_room", room=declared)  # DRA-378, AMB-056.5
        return [Order(actor, "room", (), room)]

    def _use_object(self, s: DraculaState, actor: PlayerId, verb: str) -> list[Event]:
        """CMD-05 … CMD-08: a normal object used with the room choice (AMB-040, AMB-041)."""
        obj = NORMAL_USES[verb]
        self._night_order(s, actor, verb, CHOICE_PHASES)
        seat = s.seat(actor)
        if s.phase == "magnifier" and s.order_of(actor, "magnifier") is None:
            raise IllegalNow("not_now")  # ORD-06 is the magnifier users' second choice
        if not seat.human:
            raise IllegalNow("humans_only")  # DRA-252
        if obj not in seat.hand:
            raise IllegalNow("no_such_object", object=obj)
        if s.number <= 2:
            raise IllegalNow("objects_from_night3")  # DRA-206, AMB-026
        if actor in s.designated:
            raise IllegalNow("in_sanctuary")  # AMB-041
        if verb == "magnifier" and s.phase != "rooms":
            raise IllegalNow("not_now")
        if verb == "magnifier" and s.order_of(actor, "room") is not None:
            raise IllegalNow("room_already_chosen")  # DRA-300
        key = s.order_of(actor, "key") is not None
        if verb in ("garlic", "candle") and key:
            raise IllegalNow("not_with_key")
        if verb == "key" and any(s.order_of(actor, v) for v in ("garlic", "candle", "paint")):
            raise IllegalNow("not_with_key")
        if (
            verb == "key"
            and s.order_of(actor, "room") is not None
            and s.naming_partner(actor) is None
        ):
            raise IllegalNow("room_already_chosen")
        return [Order(actor, verb), Moved((obj,), f"hand:{actor}", "gone", "used")]

    def _do_magnifier(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        return self._use_object(s, actor, "magnifier")

    def _do_garlic(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        return self._use_object(s, actor, "garlic")

    def _do_candle(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        return self._use_object(s, actor, "candle")

    def _do_key(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        if any(s.order_of(p, "key") for p in s.living()):
            raise IllegalNow("order_final")  # one key (DRA-016)
        return self._use_object(s, actor, "key")

    def _do_paint(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        self._night_order(s, actor, "paint", CHOICE_PHASES)
        if PAINTKIT not in s.seat(actor).hand:
            raise IllegalNow("no_such_object", object=PAINTKIT)
        if actor in s.designated or s.order_of(actor, "key") is not None:
            raise IllegalNow("not_with_key")  # AMB-041
        if len(c.text) > s.options.paint_max_chars:
            raise InvalidSyntax("text_too_long", limit=s.options.paint_max_chars)
        return [Order(actor, "paint", (), None, c.text)]

    def _do_stake(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        self._night_order(s, actor, "stake", ("rooms", "dracula_room", "magnifier", "bites"))
        seat = s.seat(actor)
        if not seat.human:
            raise IllegalNow("humans_only")  # DRA-252
        if STAKE not in seat.hand:
            raise IllegalNow("no_such_object", object=STAKE)
        if s.number <= 2:
            raise IllegalNow("objects_from_night3")  # DRA-206, AMB-026
        if s.position(actor) != SANCTUARY:
            raise IllegalNow("stake_in_sanctuary")  # DRA-320
        target = c.targets[0]
        in_sanctuary = target in s.designated or (
            s.phase == "bites" and s.order_of(target, "key") is not None
        )
        if target == actor or not in_sanctuary or not s.seat(target).alive:
            raise IllegalNow("stake_target", name=target)  # DRA-321, AMB-048
        return [Order(actor, "stake", (target,)), Moved((STAKE,), f"hand:{actor}", "gone", "used")]

    def _do_bite(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        self._night_order(s, actor, "bite", ("bites",))
        if s.order_of(actor, "abstain") is not None:
            raise IllegalNow("order_final")  # AMB-007
        if s.seat(actor).human:
            raise IllegalNow("not_a_vampire")
        status = night.bite_status(s, actor)
        if status in ("sanctuary", "alone", "nausea"):
            raise IllegalNow(f"cannot_bite_{status}")  # DRA-112
        target = c.targets[0]
        if target == actor or s.position(target) != s.position(actor) or not s.seat(target).alive:
            raise IllegalNow("not_in_your_room", name=target)  # DRA-111
        return [Order(actor, "bite", (target,))]

    def _do_abstain(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        self._night_order(s, actor, "bite", ("bites",))
        self._night_order(s, actor, "abstain", ("bites",))
        if not s.seat(actor).dracula:
            raise IllegalNow("must_bite")  # DRA-113
        if s.number == 1:
            raise IllegalNow("must_bite_night1")  # DRA-101
        return [Order(actor, "abstain")]

    def _do_dance(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        self._night_order(s, actor, "dance", ("bites",))
        if PHONOGRAPH not in s.seat(actor).hand:
            raise IllegalNow("no_such_object", object=PHONOGRAPH)
        target = c.targets[0]
        if target == actor or s.position(target) != s.position(actor) or not s.seat(target).alive:
            raise IllegalNow("not_in_your_room", name=target)  # DRA-401
        if len(c.text) > s.options.dance_max_chars:
            raise InvalidSyntax("text_too_long", limit=s.options.dance_max_chars)
        return [Order(actor, "dance", (target,), None, c.text)]

    def _do_reply(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        self._night_order(s, actor, "reply", ("dance_reply",))
        if s.dance is None or s.dance[1] != actor:
            raise IllegalNow("no_waltz")  # DRA-405
        if len(c.text) > s.options.dance_max_chars:
            raise InvalidSyntax("text_too_long", limit=s.options.dance_max_chars)
        return [Order(actor, "reply", (), None, c.text)]

    def _do_curse(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        self._night_order(s, actor, "curse", (*NIGHT_PHASES,))
        if GRIMOIRE not in s.seat(actor).hand:
            raise IllegalNow("no_such_object", object=GRIMOIRE)
        dead = [t for t in c.targets if not s.seat(t).alive]
        if dead:
            raise IllegalNow("target_not_living", name=dead[0])
        return [Order(actor, "curse", c.targets)]  # DRA-371, DRA-372

    # final phase -------------------------------------------------------------------------------

    def _final_choice(self, s: DraculaState, actor: PlayerId, ch: str) -> None:
        if ch != "list":
            raise IllegalNow("final_on_list")  # DRA-464
        if s.phase != "final_choice":
            raise IllegalNow("not_now")
        if not s.seat(actor).human:
            raise IllegalNow("humans_only")
        if actor in s.choices:
            raise IllegalNow("choice_final")  # DRA-465

    def _do_flee(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        self._final_choice(s, actor, ch)
        recipient = c.targets[0] if c.targets else None
        if recipient is not None and (recipient == actor or recipient not in s.humans()):
            recipient = None  # AMB-063: accepted as a flee, the flame goes to a random fighter
        return [FinalChoice(actor, "flee", recipient)]

    def _do_fight(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        self._final_choice(s, actor, ch)
        return [FinalChoice(actor, "fight")]

    def _do_flame(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        self._night_order(s, actor, "flame", ("flames",))
        held = s.flames.get(actor, 0)
        if not held:
            raise IllegalNow("no_flame")
        if len(c.targets) > held:
            raise IllegalNow("too_many_flames", count=held)  # DRA-470
        wrong = [t for t in c.targets if t not in s.vampires()]
        if wrong:
            raise IllegalNow("flame_target", name=wrong[0])  # AMB-065
        return [Order(actor, "flame", c.targets)]

    # -- reading ----------------------------------------------------------------------------------

    def outcome(self, state: DraculaState) -> Outcome | None:
        return state.outcome

    def names(self, state: DraculaState) -> Sequence[PlayerId]:
        return state.order

    def summary(self, state: DraculaState) -> dict[str, Any]:
        return {
            "game": self.id,
            "status": "finished" if state.outcome else "running",
            "phase": state.phase,
            "day": state.number,
            "round": state.round,
            "winners": list(state.outcome.winners) if state.outcome else [],
            "scores": dict(state.scores),
            "players": [
                {
                    "name": p,
                    "role": seat.role,
                    "team": faction(state, p),
                    "alive": seat.alive,
                    "conditions": ["cursed"] if seat.cursed else [],
                }
                for p in state.order
                for seat in [state.seat(p)]
            ],
        }

    def status(self, state: DraculaState, actor: PlayerId) -> dict[str, Any]:
        """CMD-20: only what the player already knows."""
        seat = state.seat(actor)
        pending = [
            {"verb": o.verb, "word": o.word or "", "targets": list(o.targets)}
            for (who, _), o in state.orders.items()
            if who == actor
        ]
        return {
            "round": state.round,
            "role": seat.role,
            "alive": seat.alive,
            "objects": list(seat.hand),
            "cursed": seat.cursed,
            "declared": state.declared.get(actor),
            "phase": state.phase,
            "number": state.number,
            "deadlines": {k: iso(v) for k, v in state.deadlines.items()},
            "pending": pending,
            "scores": dict(state.scores),
        }

    def available(self, state: DraculaState, actor: PlayerId) -> list[CommandSpec]:
        allowed = {"help", "status"}
        seat = state.seat(actor)
        if state.outcome is None and seat.alive:
            allowed |= self._allowed(state, actor)
        return [c for c in self.all_commands if c.verb in allowed]

    def _allowed(self, s: DraculaState, actor: PlayerId) -> set[str]:
        seat = s.seat(actor)
        out: set[str] = set()
        if seat.dracula and not s.telepathy_used and (s.vampires()[1:] or s.phase in SILENT_PHASES):
            out.add("telepathy")
        if s.phase == "day":
            if s.number >= 2 and not any(v == actor for v, _, _ in s.votes):
                out.add("vote")
            if seat.cursed and actor not in s.declared:
                out.add("declare")
        elif s.phase == "pairing":
            paired = set(s.pairs) | set(s.pairs.values())
            if actor not in paired and actor not in s.designated:
                out.add("partner")
        elif s.phase in ("rooms", "magnifier", "dracula_room"):
            magnified = s.order_of(actor, "magnifier") is not None
            if (
                (s.phase == "dracula_room" and seat.dracula)
                or (s.phase == "rooms" and night.must_choose_room(s, actor))
                or (s.phase == "magnifier" and magnified and s.named_partner(actor) is None)
            ):
                out.add("room")
            if s.phase in CHOICE_PHASES and seat.human and actor not in s.designated:
                for verb, obj in NORMAL_USES.items():
                    if obj in seat.hand and (verb != "magnifier" or s.phase == "rooms"):
                        out.add(verb)
            if PAINTKIT in seat.hand and actor not in s.designated:
                out.add("paint")
            if seat.human and STAKE in seat.hand and s.position(actor) == SANCTUARY:
                out.add("stake")
        elif s.phase == "bites":
            status = night.bite_status(s, actor)
            if not seat.human and status in ("must", "may"):
                out.add("bite")
            if status == "may" and s.order_of(actor, "bite") is None:
                out.add("abstain")
            if s.order_of(actor, "abstain") is not None:
                out.discard("bite")
            if PHONOGRAPH in seat.hand and len(s.present(s.position(actor) or "")) > 1:
                out.add("dance")
            if seat.human and STAKE in seat.hand and s.position(actor) == SANCTUARY:
                out.add("stake")
        elif s.phase == "dance_reply" and s.dance is not None and s.dance[1] == actor:
            out.add("reply")
        elif s.phase == "final_choice" and seat.human and actor not in s.choices:
            out |= {"flee", "fight"}
        elif s.phase == "flames" and s.flames.get(actor):
            out.add("flame")
        if GRIMOIRE in seat.hand and s.phase in NIGHT_PHASES:
            out.add("curse")
        return {v for v in out if s.order_of(actor, v) is None}

    def bold_command(
        self, state: DraculaState, actor: PlayerId, bold: Sequence[str]
    ) -> Command | None:
        """AMB-081: a bold name is a vote or a pairing; a bold room a cursed destination;
        a bold flee/fight the final choice."""
        names = {fold(n): n for n in state.order}
        rooms = {fold(w): r for r, ws in ROOM_WORDS.items() for w in ws}
        found = [names[fold(x.strip())] for x in bold if fold(x.strip()) in names]
        found = list(dict.fromkeys(found))
        room = next((rooms[fold(x.strip())] for x in bold if fold(x.strip()) in rooms), None)
        if (
            state.phase == "day"
            and room is not None
            and state.seat(actor).cursed
            and actor not in state.declared
        ):
            return Command("declare", word=room)
        if state.phase == "final_choice":
            for x in bold:
                words = fold(x).split()
                if words and words[0] in ("combattre", "fight"):
                    return Command("fight")
                if words and words[0] in ("fuir", "flee"):
                    target = next((names[w] for w in words[1:] if w in names), None)
                    return Command("flee", (PlayerId(target),) if target else ())
            return None
        if not found or state.phase not in ("day", "pairing"):
            return None
        if len(found) > 1:
            raise InvalidSyntax("several_bold_names", names=found)
        return Command("vote" if state.phase == "day" else "partner", (PlayerId(found[0]),))

    def on_post(
        self, state: DraculaState, actor: PlayerId, lines: Sequence[str], now: datetime
    ) -> list[Event]:
        """Night silence (DRA-082, AMB-009), out-of-play players (DRA-326, DRA-477) and the
        cursed player's first post of the day (DRA-374 … DRA-377, AMB-056)."""
        s = state
        if s.outcome is not None:
            return []
        seat = s.seat(actor)
        fled = actor in s.choices and s.choices[actor].choice == "flee"
        if not seat.alive or (fled and s.phase in ("final_choice", "flames")):
            raise IllegalNow("out_of_play")
        if s.phase in SILENT_PHASES and s.options.out_of_turn_posts == "reject":
            raise IllegalNow("night_silence")
        if s.phase != "day":
            return []
        events: list[Event] = []
        if seat.cursed and actor not in s.posted:
            room = cursed_declaration(lines, s.options.curse_phrases)
            if room is None:
                if s.options.curse_enforcement == "bounce":
                    raise IllegalNow("cursed_post")  # AMB-056.4
                events.append(
                    public("dracula/curse_flag", f"round-{s.round}-day-{s.number}", player=actor)
                )
            elif actor not in s.declared:
                events.append(Declared(actor, room))
        if actor not in s.posted:
            events.append(Posted(actor))
        return events

    def final(self, state: DraculaState, actor: PlayerId, verb: str) -> bool:
        """AMB-007 (private orders), DRA-045 (votes), DRA-223 (pairs), DRA-465 (flee/fight),
        DRA-377 (cursed destination): every accepted order is final."""
        return verb not in ("help", "status")

    @staticmethod
    def _pass_key(s: DraculaState) -> str | None:
        return f"pass:{s.phase}" if s.phase in EARLY_PHASES else None

    def awaiting(self, state: DraculaState) -> frozenset[PlayerId]:
        """AMB-001: the players who can still act in this step (mandatory or optional)."""
        s = state
        done = {p for (p, v) in s.orders if v == self._pass_key(s)}
        waiting: set[PlayerId]
        if s.phase == "rooms":
            waiting = {p for p in s.living() if night.must_choose_room(s, p)}
            waiting = {p for p in waiting if not s.order_of(p, "room")}
        elif s.phase == "dracula_room":
            d = s.dracula()
            waiting = set() if s.order_of(d, "room") else {d}
        elif s.phase == "magnifier":
            waiting = {
                p
                for p in s.living()
                if s.order_of(p, "magnifier")
                and not s.order_of(p, "room")
                and not s.order_of(p, "key")
                and s.named_partner(p) is None
            }
        elif s.phase == "bites":
            waiting = set()
            for v in s.vampires():
                status = night.bite_status(s, v)
                acted = s.order_of(v, "bite") or s.order_of(v, "abstain")
                if status in ("must", "may") and not acted:
                    waiting.add(v)
            for p in s.present(SANCTUARY):
                if s.seat(p).human and STAKE in s.seat(p).hand and not s.order_of(p, "stake"):
                    waiting.add(p)
            holder = s.holder(PHONOGRAPH)
            alone = holder is None or len(s.present(s.position(holder) or "")) <= 1
            if holder and not alone and not s.order_of(holder, "dance"):
                waiting.add(holder)
            grimoire = s.holder(GRIMOIRE)
            if grimoire and not s.order_of(grimoire, "curse"):
                waiting.add(grimoire)
        elif s.phase == "dance_reply":
            partner = s.dance[1] if s.dance else None
            waiting = {partner} if partner and not s.order_of(partner, "reply") else set()
        elif s.phase == "dawn_curse":
            grimoire = s.holder(GRIMOIRE)
            waiting = {grimoire} if grimoire and not s.order_of(grimoire, "curse") else set()
        elif s.phase == "final_choice":
            waiting = {h for h in s.humans() if h not in s.choices}
        elif s.phase == "flames":
            waiting = {PlayerId(f) for f in s.flames if not s.order_of(PlayerId(f), "flame")}
        else:
            return frozenset()
        return frozenset(p for p in waiting if p not in done)

    def ready_to_close(self, state: DraculaState) -> str | None:
        """AMB-001: with ``early_close``, a step closes once nobody can still act in it."""
        if not state.options.early_close or state.phase not in EARLY_PHASES:
            return None
        return None if self.awaiting(state) else state.phase


__all__ = ["SPECIAL_OBJECTS", "Dracula", "DraculaState"]
