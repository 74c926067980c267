"""Dracula (13 players, several rounds): ``docs/rules/dracula.md``.

Phases are deadline keys: ``day`` (DRA-040 … DRA-050), ``pairing`` (Night 4, DRA-221),
then the night's sub-steps ``rooms``, ``dracula_room`` (Night 1), ``magnifier``, ``bites``,
``dance_reply``, ``dawn_curse``, and the final phase ``final_choice`` and ``flames``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from pbem.core.commands import Command, CommandSpec, find_spec, naming
from pbem.core.errors import IllegalNow, InvalidSyntax, ListClosed, SetupError
from pbem.core.events import Event, GameCreated, GameEnded, PhaseStarted, private, public
from pbem.core.folded import Batch
from pbem.core.game import GameSpec, Rules
from pbem.core.ids import PlayerId
from pbem.core.match import fold, names_by_fold
from pbem.core.options import options_to_json, parse_options
from pbem.core.outcome import Outcome, Termination
from pbem.games.dracula import changes, final, night
from pbem.games.dracula.events import (
    EVENT_TYPES,
    Declared,
    Designated,
    Order,
    Paired,
    Posted,
    RoundScored,
    RoundStarted,
)
from pbem.games.dracula.manor import (
    GRIMOIRE,
    ORDINARY,
    PHONOGRAPH,
    ROOM_WORDS,
    SANCTUARY,
    SPECIAL_OBJECTS,
    STAKE,
)
from pbem.games.dracula.night import iso
from pbem.games.dracula.options import DraculaOptions
from pbem.games.dracula.orders import (
    ADMIN_COMMANDS,
    COMMANDS,
    EARLY_PHASES,
    NIGHT_PHASES,
    NORMAL_USES,
    SILENT_PHASES,
    Orders,
    cursed_declaration,
    dance_refusal,
    eligible,
    partner_refusal,
    stake_refusal,
    vote_ranking,
    vote_refusal,
)
from pbem.games.dracula.roles import DRACULA, HUMAN, HUMANS, ROLES, VAMPIRES
from pbem.games.dracula.state import DraculaState, Seat, evolve, evolve_all
from pbem.games.dracula.verbs import PHASE_VERBS


def faction(state: DraculaState, p: PlayerId) -> str:
    """The camp ``p`` plays for this round: the humans or the vampires."""
    return HUMANS if state.seats[p].human else VAMPIRES


_BITER: list[tuple[DraculaState, PlayerId, bool] | None] = [None]
"""The last biter judged by :meth:`Dracula._may_bite`, with his state (kept, so its id is
not reused while here) and the verdict."""


def _folded(text: str) -> str:
    """:func:`fold`, kept for the texts already folded (a bold name, at half the votes)."""
    found = _FOLDS.get(text)
    if found is None:
        if len(_FOLDS) > 1024:
            _FOLDS.clear()
        found = _FOLDS[text] = fold(text)
    return found


_FOLDS: dict[str, str] = {}

_ALWAYS = frozenset({"help", "status"})
"""The verbs every player may send at any time."""

_VERBS: dict[tuple[str, ...], frozenset[str]] = {}
"""What :meth:`Dracula._allowed` answered -> the set of verbs :meth:`Dracula.available_verbs`
gives for it, one object for each set (a few dozen sets in all; bounded all the same)."""
_SETS: dict[frozenset[str], frozenset[str]] = {}
"""Each set of verbs given, the one object given for it."""


def _verbs_of(allowed: tuple[str, ...]) -> frozenset[str]:
    """``_ALWAYS | set(allowed)``, one object for each set (kept in :data:`_VERBS`)."""
    if len(_VERBS) >= 1024:
        _VERBS.clear()
        _SETS.clear()
    verbs = _ALWAYS.union(allowed)
    found = _VERBS[allowed] = _SETS.setdefault(verbs, verbs)
    return found


_NEW = DraculaState()  # the state before any event (Dracula.new_state)

_TRIED = frozenset({"bite", "vote", "partner", "stake", "dance"})
"""The verbs :meth:`Dracula.allows` judges without raising."""


_HANDLERS = {name[4:]: handler for name, handler in vars(Orders).items() if name[:4] == "_do_"}
"""Verb -> its handler in :class:`Orders` (:meth:`Dracula.decide`)."""

_FOLDED_ROOMS = {fold(w): r for r, ws in ROOM_WORDS.items() for w in ws}
"""The rooms by each folded spelling (AMB-081: a bold room)."""


class Dracula(Orders, Rules[DraculaState]):
    """Dracula by Superarcanis (2008): rounds of five nights in the manor."""

    id = "dracula"
    title = "Dracula"
    options_type = DraculaOptions
    templates = "dracula"
    roles = ROLES
    commands = COMMANDS
    event_types = EVENT_TYPES
    admin_commands = ADMIN_COMMANDS
    _last_awaited: tuple[DraculaState, frozenset[PlayerId]] | None = None

    def new_state(self) -> DraculaState:
        return _NEW  # frozen: one for every game, so that a game's setup fold is recalled

    evolve = staticmethod(evolve)  # folded at every event: no method between (issue 23)

    def fold(self, events: Iterable[Event], state: DraculaState | None = None) -> DraculaState:
        """The state after ``events``: one new state for them all (:func:`evolve_all`)."""
        return evolve_all(self.new_state() if state is None else state, events)

    # -- setup and rounds ---------------------------------------------------------------------

    @classmethod
    def check_options(cls, options: Any) -> None:
        """DRA-006, AMB-007 with AMB-001, AMB-058: the values setup refuses, alone or together."""
        if options.rounds < 1:
            raise SetupError("option 'rounds' must be at least 1 (DRA-006)")
        if options.early_close and not options.private_orders_final:
            raise SetupError(
                "options 'early_close' and 'private_orders_final = false' do not go together:"
                " a step that closes once everyone has acted leaves no time to change an"
                " order (AMB-007, AMB-001)"
            )
        if options.dance_replies < 1:
            raise SetupError("option 'dance_replies' must be at least 1 (AMB-058)")

    def setup(self, spec: GameSpec, now: datetime, rng: random.Random) -> list[Event]:
        options = parse_options(DraculaOptions, spec.options)
        names = tuple(p.name for p in spec.players)
        if len(names) != 13 and not options.allow_other_player_counts:  # DRA-005, AMB-010
            raise SetupError(f"Dracula is played by exactly 13 players, not {len(names)} (DRA-005)")
        if len(names) < 3:
            raise SetupError("Dracula needs at least 3 players")
        self.check_options(options)
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
        b = Batch(self.new_state(), evolve, evolve_all)
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
        self,
        b: Batch[DraculaState],
        number: int,
        now: datetime,
        rng: random.Random,
        dracula: PlayerId | None,
    ) -> None:
        s = b.state
        if dracula is None:  # AMB-075
            pool = [p for p in s.order if p not in s.seats or s.seats[p].cause != "removed"]
            if s.options.dracula_draw == "avoid_repeat" and s.dracula_history:
                pool = [p for p in pool if p != s.dracula_history[-1]] or pool
            dracula = rng.choice(pool)
        b.add(RoundStarted(number, dracula))
        t = f"round-{number}"
        for p in s.order:  # NTF-02, AMB-004: own side only (a removed seat has none)
            if b.state.seats[p].alive:
                b.note(private("dracula/role", [p], t, round=number, dracula=p == dracula))
        end = now + s.options.day1
        b.note(
            public(
                "dracula/round_start", t, round=number, rounds=s.options.rounds, deadline=iso(end)
            )
        )  # NTF-03, DRA-340, DRA-341
        b.add(PhaseStarted("day", 1, {"day": end}))

    def _end_round(
        self,
        b: Batch[DraculaState],
        ending: str,
        points: Mapping[str, int],
        now: datetime,
        rng: random.Random,
    ) -> None:
        s = b.state
        b.add(RoundScored(s.round, ending, dict(points)))
        s = b.state
        credits = [
            {"name": p, "humans": list(s.seats[p].credits)} for p in s.order if s.seats[p].credits
        ]
        b.note(
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
        b.add(GameEnded(Termination.MATCH_END, None, winners))
        b.note(public("dracula/game_end", "end", scores=dict(s.scores), winners=list(winners)))

    # -- deadlines ------------------------------------------------------------------------------

    def deadlines(self, state: DraculaState) -> Mapping[str, datetime]:
        return state.deadlines

    def on_deadline(
        self, state: DraculaState, key: str, now: datetime, rng: random.Random
    ) -> list[Event]:
        if key not in state.deadlines or state.outcome is not None:
            return []
        b = Batch(state, evolve, evolve_all)
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

    def _morning(self, b: Batch[DraculaState], now: datetime, rng: random.Random) -> None:
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

    def _dusk(self, b: Batch[DraculaState], now: datetime, rng: random.Random) -> None:
        """ORD-01: the designation (DRA-048, DRA-049, AMB-012, AMB-013), cursed defaults."""
        s = b.state
        t = f"round-{s.round}-day-{s.number}"
        counts, ranking = vote_ranking(s)
        designated: list[PlayerId] = []
        drawn: list[PlayerId] = []
        if s.number >= 2:  # DRA-022, DRA-023
            designated = [p for p in ranking if s.seats[p].alive][:3]
            if len(designated) < 3 and s.options.fill_empty_seats == "random":
                pool = [p for p in s.living() if eligible(s, p) and p not in designated]
                drawn = rng.sample(pool, min(3 - len(designated), len(pool)))
                designated += drawn
            b.add(
                Designated(
                    s.number, tuple(designated), {p: counts[p] for p in counts}, tuple(drawn)
                )
            )
        s = b.state
        cursed_defaults: list[dict[str, str]] = []
        if s.number >= 1 and s.options.curse_default != "none":
            defaults: list[Event] = []  # folded at once
            for p in s.living():  # AMB-056.6
                if s.seats[p].cursed and p not in s.declared and p not in designated:
                    room = rng.choice(ORDINARY)
                    defaults.append(Declared(p, room, default=True))
                    if s.options.curse_default == "random_public":
                        cursed_defaults.append({"name": p, "room": room})
                    else:
                        defaults.append(private("dracula/curse_default", [p], t, room=room))
            b.add(*defaults)
        b.note(
            public(
                "dracula/dusk",
                t,
                round=s.round,
                day=s.number,
                # AMB-015 publish_tally = false: who stays, without the counts
                designated=[{"name": p, "votes": counts.get(p, 0)} for p in designated]
                if s.options.publish_tally
                else [{"name": p} for p in designated],
                drawn=drawn,
                ranking=[{"name": p, "votes": counts[p]} for p in ranking]
                if s.options.publish_tally
                else [],
                cursed_defaults=cursed_defaults,
            )
        )  # NTF-07, DRA-070, AMB-006, AMB-015
        if s.number == 4:  # DRA-220, DRA-221
            end = now + s.options.pairing
            b.add(PhaseStarted("pairing", 4, {"pairing": end}))
            must = [p for p in b.state.living() if p not in designated]
            b.note(public("dracula/pairing_open", t, players=must, deadline=iso(end)))  # NTF-08
            return
        night.open_night(b, s.number, now, rng)

    def _close_pairing(self, b: Batch[DraculaState], now: datetime, rng: random.Random) -> None:
        """AMB-030: the unpaired are paired at random; an odd one out stays alone (DRA-225)."""
        s = b.state
        paired = set(s.pairs) | set(s.pairs.values())
        left = [p for p in s.living() if p not in s.designated and p not in paired]
        rng.shuffle(left)
        drawn: list[Event] = []  # folded at once
        while len(left) >= 2:
            a, c = left.pop(), left.pop()
            drawn.append(Paired(a, c, drawn=True))
        b.add(*drawn)
        s = b.state
        b.note(
            public(
                "dracula/pairs",
                f"round-{s.round}-day-4",
                pairs=[{"naming": a, "named": n} for a, n in s.pairs.items()],
                alone=left,
            )
        )  # NTF-09
        night.open_night(b, 4, now, rng)

    # -- commands -------------------------------------------------------------------------------

    def decide(
        self, state: DraculaState, actor: PlayerId, command: Command, now: datetime, channel: str
    ) -> list[Event]:
        if state.outcome is not None:
            raise IllegalNow("game_over")
        seat = state.seats[actor]
        verb = command.verb
        if not seat.alive:
            raise IllegalNow("dead")  # DRA-326
        if verb == "pass":  # CMD-16, AMB-001: done with the optional actions of this step
            if s_key := self._pass_key(state):
                return [Order(actor, s_key)]
            raise IllegalNow("not_now")
        if not state.options.private_orders_final:  # AMB-007: the last valid order wins
            return self._changing(state, actor, command, now, channel)
        if verb == "cancel":
            raise IllegalNow("orders_final")  # AMB-007
        events: list[Event] = _HANDLERS[verb](self, state, actor, command, now, channel)
        return events

    def _changing(
        self, state: DraculaState, actor: PlayerId, command: Command, now: datetime, channel: str
    ) -> list[Event]:
        """:meth:`decide` when ``private_orders_final`` is false (AMB-007,
        :mod:`pbem.games.dracula.changes`): ANNULER withdraws an order of this step, a new
        order of the same kind replaces it, judged as if the old one had never been given."""
        verb = command.verb
        if verb == "cancel":
            if not command.text:
                if not changes.any_standing(state, actor):
                    raise IllegalNow("nothing_standing")
                raise InvalidSyntax("cancel_what", **self._cancel_example(state, actor))
            found = find_spec(command.text.split(), self.all_commands)
            if found is None:
                raise InvalidSyntax("cancel_what", **self._cancel_example(state, actor))
            keys = changes.cancellable(state, actor, found[0].verb)
            return changes.withdrawal(state, actor, keys)
        keys = changes.standing(state, actor, verb) if verb in changes.CHANGEABLE else ()
        if keys and verb in changes.REPLACING:
            withdrawn = changes.withdrawal(state, actor, keys)
            before = state
            for event in withdrawn:
                before = evolve(before, event)
            return [*withdrawn, *_HANDLERS[verb](self, before, actor, command, now, channel)]
        if keys and verb in NORMAL_USES:
            spec = next(c for c in self.all_commands if c.verb == verb)
            keywords = {"standing_fr": spec.keyword("fr"), "standing_en": spec.keyword("en")}
            raise IllegalNow("order_standing", **keywords)  # nothing to choose: ANNULER
        events: list[Event] = _HANDLERS[verb](self, state, actor, command, now, channel)
        return events

    def _cancel_example(self, state: DraculaState, actor: PlayerId) -> dict[str, str]:
        """The keyword of an order ``actor`` may cancel, in both languages (a bare ANNULER's
        example names his own order)."""
        before = state.step_orders
        verbs = [
            v.partition("#")[0]
            for (a, v), order in state.orders.items()
            if a == actor and before.get((a, v)) is not order
        ]
        for verb in (*verbs, "room"):
            for spec in self.all_commands:
                if spec.verb == verb:
                    return {"standing_fr": spec.keyword("fr"), "standing_en": spec.keyword("en")}
        return {"standing_fr": "PIECE", "standing_en": "ROOM"}

    def allows(
        self, state: DraculaState, actor: PlayerId, command: Command, now: datetime, channel: str
    ) -> bool:
        """:meth:`decide`'s verdict. A vote, a partner, a stake, a waltz or a bite (the bots
        try them on names until one is taken, issue 23) is judged without raising
        (:func:`vote_refusal`, :func:`partner_refusal`, :func:`stake_refusal`,
        :func:`dance_refusal`), a bite's checks on the biter kept for the next name:
        :meth:`Orders._do_bite`'s checks, in its order."""
        verb = command.verb
        if verb not in _TRIED or not command.targets or not state.options.private_orders_final:
            return super().allows(state, actor, command, now, channel)  # AMB-007: decide
        if state.outcome is not None or not state.seats[actor].alive:
            return False  # decide: game_over, dead (DRA-326)
        if verb == "vote":
            return vote_refusal(state, actor, command, channel) is None
        if verb == "partner":
            return partner_refusal(state, actor, command, channel) is None
        if verb == "stake":
            return stake_refusal(state, actor, command) is None
        if verb == "dance":
            return dance_refusal(state, actor, command) is None
        if not self._may_bite(state, actor):
            return False
        s, target = state, command.targets[0]
        return not (  # DRA-111
            target == actor or s.position(target) != s.position(actor) or not s.seats[target].alive
        )

    def _may_bite(self, s: DraculaState, actor: PlayerId) -> bool:
        """Whether ``actor`` may bite someone now (:meth:`Orders._do_bite` before the name)."""
        last = _BITER[0]
        if last is not None and last[0] is s and last[1] == actor:
            return last[2]
        may = (
            s.phase == "bites"
            and s.order_of(actor, "bite") is None  # AMB-007
            and s.order_of(actor, "abstain") is None
            and not s.seats[actor].human
            and night.bite_status(s, actor) not in ("sanctuary", "alone", "nausea")  # DRA-112
        )
        _BITER[0] = (s, actor, may)
        return may

    # -- reading ----------------------------------------------------------------------------------

    def outcome(self, state: DraculaState) -> Outcome | None:
        return state.outcome

    def side_of(self, state: DraculaState, player: PlayerId) -> str | None:
        return state.seats[player].side

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
            "players": [  # read at every round by the informed bots
                {
                    "name": p,
                    "role": DRACULA if seat.dracula else seat.side,
                    # the card of this round's deal (AMB-075): a human bitten since reads
                    # « humain → vampire » in the archive's cast
                    "dealt": DRACULA if seat.dracula else HUMAN,
                    "team": HUMANS if seat.side == HUMAN else VAMPIRES,
                    "alive": seat.alive,
                    "conditions": ["cursed"] if seat.cursed else [],
                }
                for p, seat in zip(
                    state.order, map(state.seats.__getitem__, state.order), strict=True
                )
            ],
        }

    def status(self, state: DraculaState, actor: PlayerId) -> dict[str, Any]:
        """CMD-20: only what the player already knows."""
        seat = state.seats[actor]
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
        return self.commands_among(self.available_verbs(state, actor))

    def available_verbs(self, state: DraculaState, actor: PlayerId) -> frozenset[str]:
        """The verbs of :meth:`available` (asked of every player at every bot round): one
        set object for each set of verbs (:func:`_verbs_of`), whose hash whoever keeps
        something per set (the bots' commands) reads already computed (issue 23)."""
        seat = state.seats[actor]
        if state.outcome is not None or not seat.alive:
            return _ALWAYS
        allowed = PHASE_VERBS[state.phase](state, actor, seat)  # Dracula._allowed
        options = state.options
        if not options.private_orders_final:  # AMB-007: this step's orders may change
            allowed += tuple(v for v in changes.offered(state, actor) if v not in allowed)
        if options.early_close and actor in self._awaited(state):
            # CMD-16, AMB-001: PASSE closes his part of the step, which then closes early
            # once nobody is awaited (without early_close a PASSE changes nothing: not offered)
            allowed += ("pass",)
        if not allowed:
            return _ALWAYS
        return _VERBS.get(allowed) or _verbs_of(allowed)

    def _awaited(self, state: DraculaState) -> frozenset[PlayerId]:
        """:meth:`awaiting`, worked out once per state (asked of every player at every bot
        round where early_close is on)."""
        last = self._last_awaited
        if last is None or last[0] is not state:
            last = self._last_awaited = (state, self.awaiting(state))
        return last[1]

    def _allowed(self, s: DraculaState, actor: PlayerId, seat: Seat) -> tuple[str, ...]:
        """What the living ``actor`` may send now besides help and status: his phase's own
        reading (:data:`PHASE_VERBS`). AMB-007: an order given is final, so a verb whose
        order he gave tonight is left out (a reply, a curse: more, within their limits)."""
        return PHASE_VERBS[s.phase](s, actor, seat)

    def bold_command(
        self, state: DraculaState, actor: PlayerId, bold: Sequence[str]
    ) -> Command | None:
        """AMB-081: a bold name is a vote or a pairing; a bold room a cursed destination;
        a bold flee/fight the final choice."""
        names = names_by_fold(state.order)
        rooms = _FOLDED_ROOMS
        if len(bold) == 1:  # most bold posts: one name (a vote), read without the loops
            one = _folded(bold[0].strip())
            name = names.get(one)
            found = [] if name is None else [name]
            room = rooms.get(one)
        else:
            folded = [_folded(x.strip()) for x in bold]
            found = list(dict.fromkeys(names[f] for f in folded if f in names))
            room = next((rooms[f] for f in folded if f in rooms), None)
        if (
            state.phase == "day"
            and room is not None
            and state.seats[actor].cursed
            and actor not in state.declared
        ):
            return Command("declare", word=room)
        if state.phase == "final_choice":
            for x in bold:
                words = _folded(x).split()
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
        return naming("vote" if state.phase == "day" else "partner", PlayerId(found[0]))

    def on_post(
        self,
        state: DraculaState,
        actor: PlayerId,
        lines: Sequence[str],
        now: datetime,
        *,
        moderated: bool = True,
    ) -> list[Event]:
        """Night silence (DRA-082, AMB-009), out-of-play players (DRA-326, DRA-477) and the
        cursed player's first post of the day (DRA-374 … DRA-377, AMB-056).

        On a list the daemon cannot moderate, a post it would refuse or hold has already been
        distributed: it is flagged publicly instead (AMB-009, AMB-056.4 "bounce" is the
        default only when the daemon moderates the list)."""
        s = state
        if s.outcome is not None:
            return []
        seat = s.seats[actor]
        fled = actor in s.choices and s.choices[actor].choice == "flee"
        out_of_play = not seat.alive or (fled and s.phase in ("final_choice", "flames"))
        silent = s.phase in SILENT_PHASES
        if out_of_play or silent:
            out_of_turn = s.options.out_of_turn_posts if moderated else "flag"
            reason = "out_of_play" if out_of_play else "night_silence"
            if out_of_turn == "hold_until_morning" and not out_of_play:
                raise ListClosed(reason)  # a relaying daemon holds it until the morning
            if out_of_turn != "flag":
                raise IllegalNow(reason)  # out of play: never relayed, even when holding
            t = f"round-{s.round}-{s.phase}-{s.number}"  # AMB-009 flag mode: said publicly
            return [public("dracula/post_flag", t, player=actor, reason=reason)]
        if s.phase != "day" or actor in s.posted:  # DRA-374: the first post of the day
            return []
        events: list[Event] = []
        if seat.cursed:
            curse_enforcement = s.options.curse_enforcement if moderated else "flag"
            room = cursed_declaration(lines, s.options.curse_phrases)
            if room is None:
                if curse_enforcement == "bounce":
                    raise IllegalNow("cursed_post")  # AMB-056.4
                events.append(
                    public("dracula/curse_flag", f"round-{s.round}-day-{s.number}", player=actor)
                )
            elif actor not in s.declared:
                events.append(Declared(actor, room))
        events.append(Posted(actor))
        return events

    def offers(self, state: DraculaState, command: Command) -> bool:
        """AMB-063: a flee is offered towards a living human only; a bare FUIR or one towards a
        vampire is still accepted, but gives the flame to chance: no button proposes it."""
        if command.verb == "flee":
            return bool(command.targets) and command.targets[0] in state.humans()
        return True

    def adds_up(self, verb: str) -> bool:
        """AMB-053, AMB-058: curses and dance replies add up within their limits (``curse#2``,
        ``reply#2``), also where orders may change (AMB-007)."""
        return verb in ("curse", "reply")

    def final(self, state: DraculaState, actor: PlayerId, verb: str) -> bool:
        """AMB-007 (private orders), DRA-045 (votes), DRA-223 (pairs), DRA-465 (flee/fight),
        DRA-377 (cursed destination): every accepted order is final; with
        ``private_orders_final = false`` a private order is not (:mod:`changes`), but a curse
        its target was told of at once is (AMB-054)."""
        if verb in ("help", "status"):
            return False
        if state.options.private_orders_final or verb not in changes.CHANGEABLE:
            return verb != "cancel" or state.options.private_orders_final
        return verb == "curse" and state.options.curse_notice == "immediate"

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
                if (
                    (s.order_of(p, "magnifier") and s.named_partner(p) is None)
                    or s.left_to_choose(p)
                )
                and not s.order_of(p, "room")
                and not s.order_of(p, "key")
            }
        elif s.phase == "bites":
            waiting = set()
            for v in s.vampires():
                status = night.bite_status(s, v)
                acted = s.order_of(v, "bite") or s.order_of(v, "abstain")
                if status in ("must", "may") and not acted:
                    waiting.add(v)
            for p in s.present(SANCTUARY):
                if s.seats[p].human and STAKE in s.seats[p].hand and not s.order_of(p, "stake"):
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
            more = partner is not None and len(s.replies(partner)) < s.options.dance_replies
            waiting = {partner} if partner is not None and more else set()
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
