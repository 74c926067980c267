"""The state every werewolf-family game shares: seats (who holds which card, alive or dead),
pending actions, votes, and the events every game folds alike."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import compress
from operator import itemgetter
from typing import Any, TypeVar

from pbem.core.events import (
    ActionCleared,
    ActionSet,
    Event,
    GameCreated,
    GameEnded,
    PlayerDied,
    RoleChanged,
    VoteSet,
)
from pbem.core.frozen import quick_init, replace
from pbem.core.ids import PlayerId
from pbem.core.options import parse_options
from pbem.core.outcome import Outcome
from pbem.games.village.events import TallyPosted


@quick_init
@dataclass(frozen=True)
class Seat:
    """One player: current card, the card dealt, his team where the game tracks it apart from
    the card (Loup-Garou, LG-011), life, and the cause of death."""

    name: PlayerId
    role: str
    dealt: str
    team: str = ""
    alive: bool = True
    cause: str | None = None


Actions = Mapping[tuple[PlayerId, str], tuple[int, ActionSet]]
"""Pending actions of a phase: (actor, verb) -> (arrival sequence, the action)."""


def record_action(
    actions: Mapping[tuple[PlayerId, str], tuple[int, ActionSet]], seq: int, event: ActionSet
) -> dict[tuple[PlayerId, str], tuple[int, ActionSet]]:
    """Pending actions after ``event``: it replaces the actor's action of that verb; a
    ``pass`` replaces all of his actions, and any action replaces his ``pass``."""
    if event.verb == "pass":
        # the other actors' actions, in order: filtered in C, not a comprehension's step of
        # Python per action (a PASS at night, issue 23)
        out = dict(compress(actions.items(), map(event.actor.__ne__, map(_actor_of, actions))))
    else:
        out = dict(actions)
        out.pop((event.actor, "pass"), None)
    out[(event.actor, event.verb)] = (seq, event)
    return out


_actor_of = itemgetter(0)
"""An action's key -> its actor."""


@dataclass(frozen=True)
class Village:
    """The state every werewolf-family game shares: the base of each game's frozen dataclass,
    which adds its own fields and gives ``options`` its game's options type and default."""

    options: Any = None
    lang: str = "fr"
    order: tuple[PlayerId, ...] = ()
    seats: Mapping[PlayerId, Seat] = field(default_factory=dict)
    phase: str = "setup"
    number: int = 0
    deadlines: Mapping[str, datetime] = field(default_factory=dict)
    actions: Actions = field(default_factory=dict)
    seq: int = 0
    votes: Mapping[PlayerId, PlayerId] = field(default_factory=dict)
    last_tally: datetime | None = None
    outcome: Outcome | None = None

    def seat(self, name: PlayerId) -> Seat:
        """The seat of the player ``name``."""
        return self.seats[name]

    def living(self) -> list[PlayerId]:
        """The living players, in table order."""
        return list(_seating(self.seats, self.order).living)

    def living_holders(self) -> Mapping[str, tuple[PlayerId, ...]]:
        """Each card's living holders, in table order (a card no living player holds is
        absent): one reading for a close that asks about every card (issue 23)."""
        return _seating(self.seats, self.order).living_holders

    def holders(self, role: str, *, alive: bool = True) -> list[PlayerId]:
        """The players holding the card ``role``, in table order (the living ones only when
        ``alive``)."""
        seating = _seating(self.seats, self.order)
        return list((seating.living_holders if alive else seating.holders).get(role, ()))

    def action(self, actor: PlayerId, verb: str) -> ActionSet | None:
        """The action ``actor`` set for ``verb`` (its last setting), or None."""
        found = self.actions.get((actor, verb))
        return found[1] if found else None


V = TypeVar("V", bound=Village)


def action_set(state: V, event: ActionSet) -> V:
    """The fold of an :class:`ActionSet` under :func:`record_action`'s rule (Lupus, Chasse
    aux sorcières; Loup-Garou keeps a ``pass`` beside its other orders, LG-603)."""
    return replace(
        state, actions=record_action(state.actions, state.seq + 1, event), seq=state.seq + 1
    )


@dataclass(frozen=True)
class _Seating:
    """Who lives and who holds which card, read once from a table's seats."""

    seats: Mapping[PlayerId, Seat]
    order: tuple[PlayerId, ...]
    living: tuple[PlayerId, ...]
    living_holders: Mapping[str, tuple[PlayerId, ...]]
    holders: Mapping[str, tuple[PlayerId, ...]]


_SEATINGS: list[_Seating] = []
"""The seatings of the last few tables read, the latest first. The seats of a state change
only with a death or a card (a new mapping, shared by every state until the next one), and
the rules ask who lives and who holds a card many times in between (issue 23)."""


def _seating(seats: Mapping[PlayerId, Seat], order: tuple[PlayerId, ...]) -> _Seating:
    seating = _SEATINGS[0] if _SEATINGS else None
    if seating is not None and seating.seats is seats and seating.order is order:
        return seating  # most readings: the table last read
    seating = _kept_seating(seats, order)
    if seating is None:
        seating = _keep(read_seating(seats, order))
    return seating


def _kept_seating(seats: Mapping[PlayerId, Seat], order: tuple[PlayerId, ...]) -> _Seating | None:
    for seating in _SEATINGS:  # the same objects: a seating holds them, so no other has the id
        if seating.seats is seats and seating.order is order:
            return seating
    return None


def _keep(seating: _Seating) -> _Seating:
    _SEATINGS.insert(0, seating)
    del _SEATINGS[4:]
    return seating


def read_seating(seats: Mapping[PlayerId, Seat], order: tuple[PlayerId, ...]) -> _Seating:
    """Who lives and who holds which card at a table, read afresh from its seats."""
    living: list[PlayerId] = []
    living_holders: dict[str, list[PlayerId]] = {}
    holders: dict[str, list[PlayerId]] = {}
    for p in order:
        seat = seats[p]
        holders.setdefault(seat.role, []).append(p)
        if seat.alive:
            living.append(p)
            living_holders.setdefault(seat.role, []).append(p)
    return _Seating(
        seats,
        order,
        tuple(living),
        {role: tuple(ps) for role, ps in living_holders.items()},
        {role: tuple(ps) for role, ps in holders.items()},
    )


def _without(names: tuple[PlayerId, ...], name: PlayerId) -> tuple[PlayerId, ...]:
    i = names.index(name)
    return names[:i] + names[i + 1 :]


def _keep_after_death(
    before: Mapping[PlayerId, Seat],
    after: Mapping[PlayerId, Seat],
    order: tuple[PlayerId, ...],
    player: PlayerId,
) -> None:
    """Keep the seating of ``after`` (``before`` with ``player`` dead), if that of ``before``
    is kept: a death takes one name out of the living and leaves every card where it was, so
    the new seating is the old one less that name (the rules read it at once: the victory
    check after each death, issue 23)."""
    seating = _kept_seating(before, order)
    if seating is None or not before[player].alive:
        return
    role = before[player].role
    living_holders = dict(seating.living_holders)
    left = _without(living_holders[role], player)
    if left:
        living_holders[role] = left
    else:
        del living_holders[role]
    living = _without(seating.living, player)
    _keep(_Seating(after, order, living, living_holders, seating.holders))


def fold_shared(state: V, event: Event) -> V | None:
    """Fold the common events every werewolf-family game treats alike; None for the others.

    The game's creation (its options parsed into the type of the state's ``options``), a
    withdrawn action, a vote (a withdrawal when ``target`` is None; a changed vote moves to
    the end of the arrival order), a running tally posted, a death, a card change, the end of
    the game.
    """
    fold = fold_for(type(event), SHARED_FOLDS)
    return None if fold is None else fold(state, event)


def _created(state: V, event: GameCreated) -> V:
    kind = type(state.options)
    raw = event.options
    if _PARSED and _PARSED[0] is raw and type(_PARSED[1]) is kind:
        options = _PARSED[1]  # the same event folded again (a game's setup folds it twice)
    else:
        options = parse_options(kind, raw)
        _PARSED[:] = [raw, options]
    return replace(state, options=options, lang=event.lang, order=event.players)


_PARSED: list[Any] = []
"""The options mapping of the last game created and the options parsed from it (frozen: the
parse is pure, and the mapping kept alive here is never another one with its ``id``)."""


def _tallied(state: V, event: TallyPosted) -> V:
    return replace(state, last_tally=event.at)


def _cleared(state: V, event: ActionCleared) -> V:
    key = (event.actor, event.verb)
    return replace(state, actions={k: v for k, v in state.actions.items() if k != key})


def _voted(state: V, event: VoteSet) -> V:
    votes = dict(state.votes)
    votes.pop(event.voter, None)  # a changed vote moves to the end of the arrival order
    if event.target is not None:
        votes[event.voter] = event.target
    return replace(state, votes=votes, seq=state.seq + 1)


def _died(state: V, event: PlayerDied) -> V:
    before = state.seats
    seat = replace(before[event.player], alive=False, cause=event.cause)
    seats = {**before, event.player: seat}
    _keep_after_death(before, seats, state.order, event.player)
    return replace(state, seats=seats)


def _role_changed(state: V, event: RoleChanged) -> V:
    seat = replace(state.seats[event.player], role=event.role)
    return replace(state, seats={**state.seats, event.player: seat})


def _ended(state: V, event: GameEnded) -> V:
    outcome = Outcome(event.termination, event.side, event.winners)
    return replace(state, phase="over", deadlines={}, outcome=outcome)


Fold = Callable[[Any, Any], Any]
"""``(state, event) -> state``: how one kind of event changes a game's state."""

SHARED_FOLDS: tuple[tuple[type[Event], Fold], ...] = (
    (GameCreated, _created),
    (TallyPosted, _tallied),
    (ActionCleared, _cleared),
    (VoteSet, _voted),
    (PlayerDied, _died),
    (RoleChanged, _role_changed),
    (GameEnded, _ended),
)
"""The folds of :func:`fold_shared`, each with the class of event it folds, in the order of a
game's ``match``: each game's own follow them."""


def fold_for(kind: type, folds: Sequence[tuple[type[Event], Fold]]) -> Fold | None:
    """The first of ``folds`` whose class an event of type ``kind`` is an instance of: the
    case a ``match`` on those classes, in that order, would take; None if none would."""
    for cls, fold in folds:
        if issubclass(kind, cls):
            return fold
    return None


def unchanged(state: V, event: Event) -> V:
    """The fold of an event no rule reads (a notice, a kernel event)."""
    return state


class Evolve:
    """A game's ``evolve(state, event)`` from its folds in ``match`` order (the shared ones
    first): the fold of each type of event is found once, then read from a dict (issue 23:
    a game folds its events one by one, hundreds of times, and a ``match`` tries its classes
    one by one)."""

    def __init__(self, folds: Sequence[tuple[type[Event], Fold]]) -> None:
        self.folds = tuple(folds)
        self.by_type: dict[type, Fold] = {}

    def fold_of(self, kind: type) -> Fold:
        """The fold of an event of type ``kind`` (:func:`unchanged` where no case takes it)."""
        found = self.by_type.get(kind)
        if found is None:
            found = self.by_type[kind] = fold_for(kind, self.folds) or unchanged
        return found
