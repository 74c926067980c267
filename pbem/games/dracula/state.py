"""Dracula: the immutable state (``docs/rules/dracula.md``); its own events are in
pbem/games/dracula/events.py.

The state is folded from events only (:func:`evolve`); every random result (the deal, the
Night 2 assignment, a default room, a drawn seat) is recorded in the event that uses it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, get_args

from pbem.core.events import (
    Event,
    GameCreated,
    GameEnded,
    Notice,
    PhaseStarted,
    PlayerDied,
    RoleChanged,
    VoteSet,
)
from pbem.core.frozen import quick_init, reading
from pbem.core.ids import PlayerId
from pbem.core.options import parse_options
from pbem.core.outcome import Outcome
from pbem.core.phases import phase_of
from pbem.games.dracula.events import (
    Assigned,
    Converted,
    Cursed,
    Danced,
    Declared,
    Designated,
    Fact,
    FinalChoice,
    FlamesSettled,
    Moved,
    NightScheduled,
    Order,
    Painted,
    PaintingRead,
    Paired,
    Posted,
    RoundScored,
    RoundStarted,
    TallyPosted,
    Telepathy,
    TelepathyHeld,
    Unpaired,
    Withdrawn,
)
from pbem.games.dracula.manor import SANCTUARY, START_FLOOR
from pbem.games.dracula.options import DraculaOptions
from pbem.games.dracula.roles import DRACULA, HUMAN, VAMPIRE

DraculaPhase = Literal[
    "setup",
    "day",
    "pairing",
    "rooms",
    "dracula_room",
    "magnifier",
    "bites",
    "dance_reply",
    "dawn_curse",
    "dawn_wait",
    "final_choice",
    "flames",
    "over",
]
"""A round's phases: the days, the pairing of the first, the night's sub-phases, the wait for
the morning, the final choice and the flames (DRA-082, ORD-03, section 19); ``over`` once
ended."""
DRACULA_PHASES: tuple[DraculaPhase, ...] = get_args(DraculaPhase)

# -- state -----------------------------------------------------------------------------------


@quick_init  # a round deals a seat per player (issue 23)
@dataclass(frozen=True)
class Seat:
    """One player in the current round."""

    name: PlayerId
    side: str = HUMAN
    dracula: bool = False
    alive: bool = True
    cause: str | None = None
    hand: tuple[str, ...] = ()
    cursed: bool = False
    sanctuary_used: bool = False  # the one designated night (DRA-050)
    credits: tuple[PlayerId, ...] = ()  # humans he vampirised (AMB-062)
    turned: int = 0  # the night he was vampirised (0: never, or Dracula)

    @property
    def role(self) -> str:
        """The role id of DESIGN.md: a bitten human is reported as ``vampire``."""
        return DRACULA if self.dracula else self.side

    @property
    def human(self) -> bool:
        """Whether he is still human (not bitten, not Dracula)."""
        return self.side == HUMAN


@dataclass(frozen=True)
class DraculaState:
    """Everything the rules need; built only by :func:`evolve`."""

    options: DraculaOptions = field(default_factory=DraculaOptions)
    lang: str = "fr"
    order: tuple[PlayerId, ...] = ()
    seats: Mapping[PlayerId, Seat] = field(default_factory=dict)
    round: int = 0
    scores: Mapping[str, int] = field(default_factory=dict)
    dracula_history: tuple[PlayerId, ...] = ()
    phase: DraculaPhase = "setup"
    number: int = 0  # the day / night of the round
    deadlines: Mapping[str, datetime] = field(default_factory=dict)
    night_end: datetime | None = None
    seq: int = 0
    votes: tuple[tuple[PlayerId, PlayerId, int], ...] = ()
    last_tally: datetime | None = None  # AMB-015 running_tally: today's last one
    designated: tuple[PlayerId, ...] = ()
    orders: Mapping[tuple[PlayerId, str], Order] = field(default_factory=dict)
    step_orders: Mapping[tuple[PlayerId, str], Order] = field(default_factory=dict)  # AMB-007
    floor: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    assignment: Mapping[str, str] = field(default_factory=dict)
    paintings: Mapping[str, tuple[PlayerId, str]] = field(default_factory=dict)
    painting_readers: Mapping[str, tuple[PlayerId, ...]] = field(default_factory=dict)
    pairs: Mapping[PlayerId, PlayerId] = field(default_factory=dict)  # naming -> named
    declared: Mapping[PlayerId, str] = field(default_factory=dict)
    posted: frozenset[PlayerId] = frozenset()
    facts: tuple[Fact, ...] = ()
    newly_cursed: tuple[PlayerId, ...] = ()
    telepathy_used: bool = False
    telepathy_held: str | None = None
    telepathy_pending: str | None = None
    dance: tuple[PlayerId, PlayerId] | None = None
    choices: Mapping[PlayerId, FinalChoice] = field(default_factory=dict)
    flames: Mapping[str, int] = field(default_factory=dict)
    outcome: Outcome | None = None

    # -- reading helpers --------------------------------------------------------------------
    # A state never changes: what is read from it many times (each bot's available commands,
    # each bite, each notice: issue 23) is computed once, on first reading, and kept in the
    # instance (:class:`pbem.core.frozen.reading`); the next state keeps it when the fields it is read from
    # are the same (:data:`_READ_FROM`, :func:`_next`).

    @reading
    def _living(self) -> tuple[PlayerId, ...]:
        seats = self.seats
        return tuple([p for p in self.order if seats[p].alive])  # a list: quicker than a generator

    @reading
    def _humans(self) -> tuple[PlayerId, ...]:
        seats = self.seats
        return tuple([p for p in self._living if seats[p].side == HUMAN])

    @reading
    def _vampires(self) -> tuple[PlayerId, ...]:
        seats = self.seats
        return tuple([p for p in self._living if seats[p].side != HUMAN])

    @reading
    def _holders(self) -> dict[str, PlayerId]:
        """Each object held by a living player: its first holder in the table's order."""
        seats = self.seats
        found: dict[str, PlayerId] = {}
        for p in self._living:
            for obj in seats[p].hand:
                found.setdefault(obj, p)
        return found

    @reading
    def _placed(self) -> dict[PlayerId, str]:
        """Every player whose position is fixed tonight (:meth:`position`): asked for each
        player at each step of the night. Read from the night's orders (a score of them)
        rather than asked of each player."""
        orders = self.orders
        found: dict[PlayerId, str] = {}
        keys: list[PlayerId] = []
        for (p, verb), order in orders.items():
            if verb == "room" and order.word is not None:
                found[p] = order.word
            elif verb == "key":
                keys.append(p)
        for naming, named in self.pairs.items():  # DRA-227: the named partner's room
            if (
                naming not in found
                and (room := orders.get((named, "room"))) is not None
                and room.word is not None
            ):
                found[naming] = room.word
        for p in (*self.designated, *keys):  # the sanctuary, whatever else was ordered
            found[p] = SANCTUARY
        return found

    @reading
    def _positions(self) -> dict[PlayerId, str]:
        """The living players whose position is fixed tonight, in the table's order."""
        placed = self._placed
        return {p: placed[p] for p in self._living if p in placed}

    @reading
    def _rooms(self) -> dict[str, tuple[PlayerId, ...]]:
        """Room -> the living players there (:meth:`present`)."""
        rooms: dict[str, list[PlayerId]] = {}
        for p, pos in self._positions.items():
            rooms.setdefault(pos, []).append(p)
        return {room: tuple(there) for room, there in rooms.items()}

    @reading
    def _uses(self) -> dict[str, dict[str, tuple[PlayerId, ...]]]:
        """Verb -> :meth:`room_of_use`, as asked."""
        return {}

    def _used(self, verb: str) -> dict[str, tuple[PlayerId, ...]]:
        known = self._uses
        found = known.get(verb)
        if found is None:
            rooms: dict[str, list[PlayerId]] = {}
            for actor, v in self.orders:
                if v == verb and (pos := self.position(actor)) is not None:
                    rooms.setdefault(pos, []).append(actor)
            found = known[verb] = {room: tuple(users) for room, users in rooms.items()}
        return found

    @reading
    def _voters(self) -> frozenset[PlayerId]:
        return frozenset(v for v, _, _ in self.votes)

    @reading
    def _named(self) -> frozenset[PlayerId]:
        return frozenset(self.pairs.values())

    @reading
    def bite_statuses(self) -> dict[PlayerId, str]:
        """The vampires' :func:`night.bite_status` asked so far (read from the positions, the
        seats and the night's number)."""
        return {}

    def seat(self, name: PlayerId) -> Seat:
        """``name``'s seat this round."""
        return self.seats[name]

    def living(self) -> list[PlayerId]:
        """The players alive, in the table's order."""
        return list(self._living)

    def humans(self) -> list[PlayerId]:
        """The living humans, in the table's order."""
        return list(self._humans)

    def vampires(self) -> list[PlayerId]:
        """The living vampires (Dracula included), in the table's order."""
        return list(self._vampires)

    def vampire_count(self) -> int:
        """``len(self.vampires())``."""
        return len(self._vampires)

    def dracula(self) -> PlayerId:
        """This round's Dracula (DRA-007)."""
        return next(p for p in self.order if self.seats[p].dracula)

    def has_voted(self, actor: PlayerId) -> bool:
        """Whether ``actor`` voted today (DRA-045)."""
        return actor in self._voters

    def is_named(self, player: PlayerId) -> bool:
        """Whether a naming partner named ``player`` tonight (DRA-224)."""
        return player in self._named

    def order_of(self, actor: PlayerId, verb: str) -> Order | None:
        """``actor``'s order of ``verb`` in this step, if he gave one."""
        return self.orders.get((actor, verb))

    def replies(self, partner: PlayerId) -> list[Order]:
        """AMB-058: the dance partner's replies tonight, in order (``reply``, ``reply#2``, …)."""
        mine = [o for (a, v), o in self.orders.items() if a == partner and v.startswith("reply")]
        return sorted(mine, key=lambda o: int(o.verb.partition("#")[2] or 1))

    def holder(self, obj: str) -> PlayerId | None:
        """The living holder of a special object, if any."""
        return self._holders.get(obj)

    def named_partner(self, naming: PlayerId) -> PlayerId | None:
        """Whom ``naming`` named as his Night 4 partner (DRA-221), if anyone."""
        return self.pairs.get(naming)

    def naming_partner(self, named: PlayerId) -> PlayerId | None:
        """Who named ``named`` as his Night 4 partner (DRA-224), if anyone."""
        return next((a for a, b in self.pairs.items() if b == named), None)

    def left_to_choose(self, naming: PlayerId) -> bool:
        """AMB-031 ``key_escape_room = naming_partner_chooses``: the room chooser escaped with
        the key, so this naming partner chooses his own room (at ORD-06)."""
        named = self.named_partner(naming)
        return (
            self.options.key_escape_room == "naming_partner_chooses"
            and named is not None
            and self.order_of(named, "key") is not None
            and self.seats[naming].alive
        )

    def position(self, player: PlayerId) -> str | None:
        """The player's position tonight as far as it is fixed (None: not yet)."""
        return self._placed.get(player)

    def positions(self) -> dict[PlayerId, str]:
        """The living players whose position tonight is fixed, and where."""
        return dict(self._positions)

    def present(self, room: str) -> list[PlayerId]:
        """The living players in ``room`` tonight, in the table's order."""
        return list(self._rooms.get(room, ()))

    def count_present(self, room: str) -> int:
        """``len(self.present(room))``."""
        return len(self._rooms.get(room, ()))

    def room_of_use(self, verb: str) -> dict[str, list[PlayerId]]:
        """Rooms where an object was used tonight (garlic, candle), with the users."""
        return {room: list(users) for room, users in self._used(verb).items()}

    def used_in(self, verb: str, room: str | None) -> bool:
        """``room in self.room_of_use(verb)``."""
        return room in self._used(verb)


_POSITIONED = frozenset({"seats", "order", "orders", "designated", "pairs"})
_READ_FROM: dict[str, frozenset[str]] = {
    "_placed": frozenset({"order", "orders", "designated", "pairs"}),
    "_living": frozenset({"seats", "order"}),
    "_humans": frozenset({"seats", "order"}),
    "_vampires": frozenset({"seats", "order"}),
    "_holders": frozenset({"seats", "order"}),
    "_positions": _POSITIONED,
    "_rooms": _POSITIONED,
    "_uses": frozenset({"orders", "designated", "pairs"}),
    "_voters": frozenset({"votes"}),
    "_named": frozenset({"pairs"}),
    "bite_statuses": _POSITIONED | {"number"},
}
"""Each reading kept on a :class:`DraculaState`, and the fields it is read from."""

_PLACING = frozenset({"room", "key", "garlic"})
"""The orders that change the night's positions (:meth:`DraculaState.position`) or a bite
status (garlic, DRA-281)."""
_PLACED = ("_placed", "_positions", "_rooms", "bite_statuses")
_MOVED_STALE = ("_holders",)

_STALE: dict[tuple[str, ...], tuple[str, ...]] = {}
"""The changed fields of a :func:`_next` -> the readings they make stale."""

_FIELD_COUNT = len(fields(DraculaState))


def _quick_next(state: DraculaState, **changes: Any) -> DraculaState:
    """``replace(state, **changes)``, quickly: the instance's fields copied with the changes,
    and the readings kept on ``state`` that the changes leave true (:data:`_READ_FROM`):
    :func:`pbem.core.frozen.quick_replace` would go through ``dataclasses.replace`` for an
    instance holding them, and read everything again."""
    values = state.__dict__.copy()
    if len(values) != _FIELD_COUNT:
        changed = tuple(changes)
        stale = _STALE.get(changed)
        if stale is None:
            stale = _STALE[changed] = _stale(changed)
        for name in stale:
            values.pop(name, None)
    values.update(changes)
    new = _new(DraculaState)
    _set(new, "__dict__", values)
    return new


def _stale(changed: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(name for name, read in _READ_FROM.items() if not read.isdisjoint(changed))


_PLACE_STALE = _stale(("orders", "seq"))
_ORDER_STALE = tuple(name for name in _PLACE_STALE if name not in _PLACED)
"""An order that places nobody: only the uses by verb are read again."""
_VOTE_STALE = _stale(("votes", "seq"))
_DESIGNATED_STALE = _stale(("designated",))
"""A designation: the night's positions; not the living, sides or hands (DRA-050: the seat's
one designated night is read by no kept reading)."""
_SIDE_STALE = ("_humans", "_vampires", "bite_statuses")
"""A conversion changes a seat's side only: who is alive, where, and what he holds stay."""


def _copied(state: DraculaState, stale: tuple[str, ...]) -> DraculaState:
    """A new state with ``state``'s fields and its readings less the ``stale`` ones
    (:func:`_quick_next`), for a fold to set what the event changes in its ``__dict__``
    before anyone reads it: one call a fold, the commonest events' (issue 23); the state a
    grouped fold owns (:func:`evolve_all`) itself, its stale readings dropped."""
    own = state is _OWN[0]
    values = state.__dict__ if own else state.__dict__.copy()
    if len(values) != _FIELD_COUNT:
        for name in stale:
            values.pop(name, None)
    if own:
        return state
    new = _new(DraculaState)
    _set(new, "__dict__", values)
    return new


_new = object.__new__
_set = object.__setattr__


def _quick_reseat(seat: Seat, **changes: Any) -> Seat:
    """``replace(seat, **changes)``, quickly: a seat holds its fields only (``Seat`` is built
    by :func:`pbem.core.frozen.quick_init`), so its ``__dict__`` is copied with the changes,
    without :func:`pbem.core.frozen.quick_replace`'s checks for any class."""
    values = seat.__dict__.copy()
    values.update(changes)
    new = _new(Seat)
    _set(new, "__dict__", values)
    return new


if TYPE_CHECKING:  # mypy checks the changes as dataclasses.replace's
    from dataclasses import replace as _next
    from dataclasses import replace as _reseat
else:
    _next = _quick_next
    _reseat = _quick_reseat


def _remove(items: tuple[str, ...], objects: tuple[str, ...]) -> tuple[str, ...]:
    left = list(items)
    for obj in objects:
        if obj in left:
            left.remove(obj)
    return tuple(left)


def _seat(state: DraculaState, name: PlayerId, **changes: object) -> DraculaState:
    return _next(state, seats={**state.seats, name: _reseat(state.seats[name], **changes)})  # type: ignore[arg-type]


def _order(state: DraculaState, event: Order) -> DraculaState:
    # the commonest events: copied without replace's keywords
    new = _copied(state, _PLACE_STALE if event.verb in _PLACING else _ORDER_STALE)
    values = new.__dict__
    values["orders"] = {**state.orders, (event.actor, event.verb): event}
    values["seq"] = state.seq + 1
    return new


def _withdrawn(state: DraculaState, event: Withdrawn) -> DraculaState:
    gone = {(event.actor, verb) for verb in event.verbs}  # AMB-007
    return _next(state, orders={k: o for k, o in state.orders.items() if k not in gone})


def _tally_posted(state: DraculaState, event: TallyPosted) -> DraculaState:
    return _next(state, last_tally=event.at)


def _posted(state: DraculaState, event: Posted) -> DraculaState:
    new = _copied(state, ())
    new.__dict__["posted"] = state.posted | {event.player}
    return new


def _vote(state: DraculaState, event: VoteSet) -> DraculaState:
    if event.target is None:  # a removed seat's vote withdrawn (DRA-326, AMB-014)
        votes = tuple(v for v in state.votes if v[0] != event.voter)
    else:
        votes = (*state.votes, (event.voter, event.target, state.seq + 1))
    voters = state.__dict__.get("_voters")  # read before the copy, which may be the state
    new = _copied(state, _VOTE_STALE)
    values = new.__dict__
    values["votes"] = votes
    values["seq"] = state.seq + 1
    if voters is not None and event.target is not None:  # one more voter, kept as he comes
        values["_voters"] = voters | {event.voter}
    return new


def _fact(state: DraculaState, event: Fact) -> DraculaState:
    new = _copied(state, ())
    new.__dict__["facts"] = (*state.facts, event)
    return new


def _moved(state: DraculaState, event: Moved) -> DraculaState:
    # hands, floors and assignments change, not who is alive or where: of the readings kept,
    # only the holders are read again
    new = _copied(state, _MOVED_STALE)
    values = new.__dict__
    objects = event.objects
    kind, _, where = event.source.partition(":")  # hand:<player>, floor:<room>, assigned:<p>
    if kind == "hand":
        seats = values["seats"] = dict(state.seats)
        seat = seats[PlayerId(where)]
        seats[seat.name] = _reseat(seat, hand=_remove(seat.hand, objects))
    elif kind == "floor":
        floor = values["floor"] = dict(state.floor)
        floor[where] = _remove(floor.get(where, ()), objects)
    elif kind == "assigned":
        assignment = values["assignment"] = dict(state.assignment)
        assignment.pop(where, None)
    kind, _, where = event.dest.partition(":")  # hand:<player>, floor:<room>, or gone
    if kind == "hand":
        seats = values["seats"] = dict(values["seats"])
        seat = seats[PlayerId(where)]
        seats[seat.name] = _reseat(seat, hand=seat.hand + objects)
    elif kind == "floor":
        floor = values["floor"] = dict(values["floor"])
        floor[where] = floor.get(where, ()) + objects
    return new


def _phase_started(state: DraculaState, event: PhaseStarted) -> DraculaState:
    phase, number = event.phase, event.number
    # only the fields a new step resets are changed: the readings kept on the state that are
    # read from the others (the night's positions, the bite statuses) stay (issue 23)
    new = _copied(state, _phase_stale(phase, number != state.number, number > 0))
    values = new.__dict__
    values["phase"] = phase_of(phase, DRACULA_PHASES)
    values["deadlines"] = event.deadlines
    values["number"] = number
    if phase == "day":
        values["votes"] = ()
        values["last_tally"] = None
        values["posted"] = frozenset()
        values["declared"] = {}
        values["pairs"] = {}
        if number > 0:
            values["designated"] = ()
    elif phase == "rooms":
        values["orders"] = {}
        values["facts"] = ()
        values["newly_cursed"] = ()
        values["dance"] = None
    elif phase == "final_choice":
        values["orders"] = {}
    values["step_orders"] = values["orders"]  # AMB-007: a mapping never changed, kept as is
    return new


_PHASE_STALE: dict[tuple[str, bool, bool], tuple[str, ...]] = {}
"""(phase, renumbered, number > 0) -> the readings a :class:`PhaseStarted` makes stale."""


def _phase_stale(phase: str, renumbered: bool, counted: bool) -> tuple[str, ...]:
    """The readings made stale by :func:`_phase_started`'s changes (worked out once per
    kind of step: a game starts about seventy)."""
    key = (phase, renumbered, counted)
    stale = _PHASE_STALE.get(key)
    if stale is None:
        changed = ["phase", "deadlines"]
        if renumbered:
            changed.append("number")
        if phase == "day":
            changed += ["votes", "last_tally", "posted", "declared", "pairs"]
            if counted:
                changed.append("designated")
        elif phase in ("rooms", "final_choice"):
            changed.append("orders")
            if phase == "rooms":
                changed += ["facts", "newly_cursed", "dance"]
        stale = _PHASE_STALE[key] = _stale(tuple(changed))
    return stale


def _created(state: DraculaState, event: GameCreated) -> DraculaState:
    return _next(
        state,
        options=parse_options(DraculaOptions, event.options),
        lang=event.lang,
        order=event.players,
        scores={str(p): 0 for p in event.players},
    )


def _round_started(state: DraculaState, event: RoundStarted) -> DraculaState:
    dracula, before = event.dracula, state.seats
    seats: dict[PlayerId, Seat] = {}
    for p in state.order:  # each seat built once, as the round deals it (DRA-001)
        side = VAMPIRE if p == dracula else HUMAN
        old = before.get(p)
        if old is not None and old.cause == "removed":  # out of the match (docs/seats.md)
            seats[p] = Seat(p, side, p == dracula, False, "removed")
        else:
            seats[p] = Seat(p, side, p == dracula)
    return _next(
        state,
        seats=seats,
        round=event.round,
        dracula_history=(*state.dracula_history, event.dracula),
        number=0,
        votes=(),
        designated=(),
        orders={},
        floor=dict(START_FLOOR),
        assignment={},
        paintings={},
        painting_readers={},
        pairs={},
        declared={},
        posted=frozenset(),
        facts=(),
        newly_cursed=(),
        telepathy_used=False,
        telepathy_held=None,
        telepathy_pending=None,
        dance=None,
        choices={},
        flames={},
    )


def _designated(state: DraculaState, event: Designated) -> DraculaState:
    seats = dict(state.seats)
    for p in event.players:  # DRA-050: the one designated night
        seats[p] = _reseat(seats[p], sanctuary_used=True)
    new = _copied(state, _DESIGNATED_STALE)
    values = new.__dict__
    values["designated"] = event.players
    values["seats"] = seats
    return new


def _cursed(state: DraculaState, event: Cursed) -> DraculaState:
    seat = state.seats[event.player]
    if seat.cursed:
        return state
    new = _copied(state, ())  # a curse changes no kept reading (DRA-370)
    values = new.__dict__
    values["seats"] = {**state.seats, event.player: _reseat(seat, cursed=True)}
    values["newly_cursed"] = (*state.newly_cursed, event.player)
    return new


def _converted(state: DraculaState, event: Converted) -> DraculaState:
    seats = dict(state.seats)
    seats[event.player] = _reseat(seats[event.player], side=VAMPIRE, turned=state.number)
    for biter in event.biters:  # AMB-062: each biter is credited with the human
        seats[biter] = _reseat(seats[biter], credits=(*seats[biter].credits, event.player))
    new = _copied(state, _SIDE_STALE)
    new.__dict__["seats"] = seats
    return new


def _painting_read(state: DraculaState, event: PaintingRead) -> DraculaState:
    readers = (*state.painting_readers.get(event.room, ()), *event.readers)
    return _next(state, painting_readers={**state.painting_readers, event.room: readers})


def _round_scored(state: DraculaState, event: RoundScored) -> DraculaState:
    scores = {str(p): state.scores.get(p, 0) + event.points.get(p, 0) for p in state.order}
    return _next(state, scores=scores)


def _game_ended(state: DraculaState, event: GameEnded) -> DraculaState:
    outcome = Outcome(event.termination, event.side, event.winners)
    return _next(state, phase="over", deadlines={}, outcome=outcome)


def _night_scheduled(state: DraculaState, event: NightScheduled) -> DraculaState:
    return _next(state, night_end=event.end)


def _declared(state: DraculaState, event: Declared) -> DraculaState:
    return _next(state, declared={**state.declared, event.player: event.room})


def _paired(state: DraculaState, event: Paired) -> DraculaState:
    return _next(state, pairs={**state.pairs, event.naming: event.named})


def _unpaired(state: DraculaState, event: Unpaired) -> DraculaState:
    return _next(state, pairs={a: b for a, b in state.pairs.items() if a != event.naming})


def _assigned(state: DraculaState, event: Assigned) -> DraculaState:
    return _next(state, assignment=dict(event.objects))


def _painted(state: DraculaState, event: Painted) -> DraculaState:
    return _next(state, paintings={**state.paintings, event.room: (event.painter, event.text)})


def _role_changed(state: DraculaState, event: RoleChanged) -> DraculaState:
    return _seat(state, event.player, side=HUMAN if event.role == HUMAN else VAMPIRE)


def _died(state: DraculaState, event: PlayerDied) -> DraculaState:
    return _seat(state, event.player, alive=False, cause=event.cause)


def _telepathy(state: DraculaState, event: Telepathy) -> DraculaState:
    return _next(state, telepathy_used=True, telepathy_held=event.text if event.held else None)


def _telepathy_held(state: DraculaState, event: TelepathyHeld) -> DraculaState:
    return _next(state, telepathy_pending=None if event.reviewed else event.text)


def _danced(state: DraculaState, event: Danced) -> DraculaState:
    return _next(state, dance=(event.holder, event.partner))


def _final_choice(state: DraculaState, event: FinalChoice) -> DraculaState:
    return _next(state, choices={**state.choices, event.player: event})


def _flames(state: DraculaState, event: FlamesSettled) -> DraculaState:
    return _next(state, flames=dict(event.flames))


def _unchanged(state: DraculaState, event: Event) -> DraculaState:
    """A message (a third of the events, issue 23), or an event no rule of Dracula reads."""
    return state


Fold = Callable[[DraculaState, Any], DraculaState]

_FOLD_ORDER: tuple[tuple[type[Event], Fold], ...] = (
    (Notice, _unchanged),
    (Order, _order),
    (Withdrawn, _withdrawn),
    (Posted, _posted),
    (VoteSet, _vote),
    (Fact, _fact),
    (Moved, _moved),
    (PhaseStarted, _phase_started),
    (GameCreated, _created),
    (RoundStarted, _round_started),
    (Designated, _designated),
    (TallyPosted, _tally_posted),
    (NightScheduled, _night_scheduled),
    (Declared, _declared),
    (Paired, _paired),
    (Unpaired, _unpaired),
    (Assigned, _assigned),
    (Painted, _painted),
    (PaintingRead, _painting_read),
    (Cursed, _cursed),
    (Converted, _converted),
    (RoleChanged, _role_changed),
    (PlayerDied, _died),
    (Telepathy, _telepathy),
    (TelepathyHeld, _telepathy_held),
    (Danced, _danced),
    (FinalChoice, _final_choice),
    (FlamesSettled, _flames),
    (RoundScored, _round_scored),
    (GameEnded, _game_ended),
)
"""Each event class and its fold, in the order an event is matched against them (the first
class it is an instance of)."""

FOLDS: dict[type, Fold] = {}
"""Event type -> its fold, found once in :data:`_FOLD_ORDER` (a game folds a thousand
events: a dict lookup instead of trying the classes one by one, issue 23)."""


def fold_of(kind: type) -> Fold:
    """The fold of an event of type ``kind`` (found once, then read from :data:`FOLDS`)."""
    found = next((fold for cls, fold in _FOLD_ORDER if issubclass(kind, cls)), _unchanged)
    FOLDS[kind] = found
    return found


def evolve(state: DraculaState, event: Event) -> DraculaState:
    """Fold one event into the state. Total: events are facts."""
    try:  # a subscript: quicker than dict.get's method call, at every event (issue 23)
        fold = FOLDS[type(event)]
    except KeyError:
        fold = fold_of(type(event))
    return fold(state, event)


_OWN: list[DraculaState | None] = [None]  # the state evolve_all owns (None out of it)


def evolve_all(state: DraculaState, events: Iterable[Event]) -> DraculaState:
    """:func:`evolve` of each of ``events``, one new state for them all (the first fold makes
    it, the next set their changes in it: nobody sees the states between, issue 23); the
    state given is never changed."""
    try:
        for event in events:
            new = (FOLDS.get(type(event)) or fold_of(type(event)))(state, event)
            if new is not state:
                state = _OWN[0] = new
        return state
    finally:
        _OWN[0] = None
