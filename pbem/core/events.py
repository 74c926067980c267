"""Events: the facts a game is made of.

The event log is the source of truth: a game's state is ``fold(evolve, events)``. Every random
result (a deal, a drawn tie) is recorded in the event that uses it, so a replay never calls the
RNG. Events are frozen dataclasses whose fields are JSON-able (str, int, bool, None, datetime,
tuples and mappings of those); :class:`EventCodec` turns them into dicts and back for the store.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from collections.abc import Hashable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from pbem.core.frozen import compact, quick_init
from pbem.core.ids import PlayerId
from pbem.core.outcome import Termination


@dataclasses.dataclass(frozen=True)
class Event:
    """Base class of every event."""


@dataclasses.dataclass(frozen=True)
class GameCreated(Event):
    """The game exists: its players in seating order, their languages and the options."""

    game: str
    players: tuple[PlayerId, ...]
    langs: Mapping[str, str]
    options: Mapping[str, Any]
    lang: str


@dataclasses.dataclass(frozen=True)
class RolesDealt(Event):
    """The deal: every player's card, and the cards left aside (where a game has them)."""

    roles: Mapping[str, str]
    leftover: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class DealCommitted(Event):
    """The deal's commitment: SHA-256 over ``salt:canonical deal`` (see pbem/record/deal.py).

    The salt comes from the daemon's ``os.urandom`` at game creation (never the game's seeded
    RNG, which a player who learns the seed could replay); it stays in the log, unpublished,
    until the archive reveals it with the deal.
    """

    salt: str
    digest: str


@dataclasses.dataclass(frozen=True)
class PhaseStarted(Event):
    """A phase opens with its deadlines (key -> UTC time)."""

    phase: str
    number: int
    deadlines: Mapping[str, datetime]


@dataclasses.dataclass(frozen=True)
class ActionSet(Event):
    """A pending action of ``actor`` for this phase; replaces his previous one of that verb."""

    actor: PlayerId
    verb: str
    targets: tuple[PlayerId, ...] = ()
    word: str | None = None


@dataclasses.dataclass(frozen=True)
class ActionCleared(Event):
    """``CANCEL verb``: the pending action is withdrawn."""

    actor: PlayerId
    verb: str


@dataclasses.dataclass(frozen=True)
class VoteSet(Event):
    """A vote in a ballot (``target`` None withdraws it); ``seq`` orders arrivals.

    ``at``: when the vote arrived, stamped by the table from the mail's ``now`` (the rules
    never read it; the archive's vote timeline shows it); None in logs written before it and
    for the votes the rules withdraw themselves (a death, a removal)."""

    ballot: str
    voter: PlayerId
    target: PlayerId | None
    seq: int = 0
    at: datetime | None = None


@dataclasses.dataclass(frozen=True)
class PlayerDied(Event):
    """A player is eliminated; ``cause`` is a template key (``wolves``, ``lynch``...)."""

    player: PlayerId
    cause: str


@dataclasses.dataclass(frozen=True)
class RoleChanged(Event):
    """A player's card changes (the Mythomaniac, Léo, Cole, a bitten human)."""

    player: PlayerId
    role: str


@dataclasses.dataclass(frozen=True)
class GameEnded(Event):
    """The outcome; no command is accepted afterwards."""

    termination: Termination
    """Why it ended; stored as the enum's string (``"victory"``), as logs always held it."""
    side: str | None
    winners: tuple[PlayerId, ...]


@dataclasses.dataclass(frozen=True)
class Resolved(Event):
    """The trace of a resolution loop: each intent and the hook that vetoed it, for the GM."""

    step: str
    trace: tuple[Mapping[str, Any], ...]


@dataclasses.dataclass(frozen=True)
class Notice(Event):
    """A message the game sends: ``template`` rendered with ``params``.

    ``public`` notices go to the list; the others to the players named in ``to``. Rendering
    and transport are the mail layer's business; the rules only decide who learns what.
    """

    template: str
    to: tuple[PlayerId, ...] = ()
    public: bool = False
    params: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    thread: str = ""


@dataclasses.dataclass(frozen=True)
class SeatRemoved(Event):
    """A player leaves the game for good: removed by the game master (``RETIRER``) or by the
    idle policy. The rules see his death as ``PlayerDied(player, "removed")`` right after it;
    this event records why (the game master's words) and who decided (``by``: an admin's
    address, or ``"idle"``). See docs/seats.md."""

    player: PlayerId
    reason: str = ""
    by: str = ""


# -- kernel events: the game master's desk (pbem.desk), handled by the Table, never by a game's
# rules: the Table leaves them out of the events it folds with the rules.


@dataclasses.dataclass(frozen=True)
class PhaseClosed(Event):
    """A deadline's resolution begins here; the ``events`` that follow are its own (ROLLBACK).

    ``awaited``: the seats the rules still awaited as the phase closed (``Rules.awaiting``),
    the fact the idle count is read from (pbem/core/idle.py); empty in logs written before it.
    Less the seats the close excused (issue 25: a declared absence, a phase the daemon could
    not hear them in, pbem/core/absences.py).
    """

    key: str
    events: int
    awaited: tuple[PlayerId, ...] = ()
    at: datetime | None = None
    """When the game master closed the phase before its deadline (``CLORE``); None when the
    deadline closed it (its time is the deadline's) and in logs written before it."""


@dataclasses.dataclass(frozen=True)
class Paused(Event):
    """``PAUSE``: the deadlines are frozen from ``at``."""

    at: datetime


@dataclasses.dataclass(frozen=True)
class Resumed(Event):
    """``RESUME``: the deadlines run again (moved by the pause's length, ``DeadlineMoved``)."""

    at: datetime


@dataclasses.dataclass(frozen=True)
class DeadlineMoved(Event):
    """The deadline ``key`` the rules set at ``due`` now falls at ``to`` (EXTEND, RESUME)."""

    key: str
    due: datetime
    to: datetime


@dataclasses.dataclass(frozen=True)
class RolledBack(Event):
    """``ROLLBACK``: the log's events ``start`` to ``end`` (indices) are void; they stay in the
    log as its audit trail, and the rules never see them again."""

    start: int
    end: int


def rolls_back(events: Iterable[Event]) -> bool:
    """Whether ``events`` hold a :class:`RolledBack` (a class nothing derives from): one pass
    in C, since every step applied and every close asks (issue 23)."""
    return RolledBack in map(type, events)


def voided(events: Sequence[Event]) -> set[int]:
    """Indices of ``events`` that the log's rollbacks voided (:class:`RolledBack`)."""
    out: set[int] = set()
    for event in events:
        if isinstance(event, RolledBack):
            out.update(range(event.start, event.end))
    return out


@dataclasses.dataclass(frozen=True)
class Substituted(Event):
    """A seat changes hands (issue 13): ``seat`` keeps its role, votes and history; from now
    on it is held by ``email`` and shown as ``name`` (the roster, pbem/core/roster.py).

    ``old_name`` and ``old_email`` record who held it, so that the old address can be told
    politely that it no longer plays, and the announcement can say who replaced whom."""

    seat: PlayerId
    old_name: str
    old_email: str
    name: str
    email: str
    lang: str
    gender: str | None = None


@dataclasses.dataclass(frozen=True)
class BenchJoined(Event):
    """A volunteer (``REMPLACANT``/``SUBSTITUTE`` from a non-player) waits on the game's bench
    to take a seat the game master gives him (``REMPLACER nom par <his name>``)."""

    name: str
    email: str
    lang: str
    gender: str | None = None


# -- issue 25 address: ADRESSE/ADDRESS (pbem/judge/address.py, the desk's pbem/desk/address.py),
# a seat's new address confirmed by a code mailed to it (njudge's SET ADDRESS). Kernel events:
# the roster folds them (pbem/core/roster.py), the rules never see them.


@dataclasses.dataclass(frozen=True)
class AddressAsked(Event):
    """The holder of ``seat`` asks to play from ``email`` from now on: a code was mailed there,
    kept here only hashed (``code``: scrypt's salt and hash, pbem/daemon/auth.py), valid until
    ``expires``. A later request of the seat replaces it."""

    seat: PlayerId
    email: str
    code: Mapping[str, str]
    expires: datetime


@dataclasses.dataclass(frozen=True)
class AddressDropped(Event):
    """The pending request of ``seat`` is void: cancelled by its player (``ADRESSE ANNULER``)."""

    seat: PlayerId
    email: str


@dataclasses.dataclass(frozen=True)
class AddressChanged(Event):
    """``seat`` plays from ``email`` from now on, not from ``old_email`` (the same player: his
    name, role, language and code stay). ``by``: empty when the new address confirmed the
    code, else the game master's address who set it (the desk's ``ADRESSE``)."""

    seat: PlayerId
    old_email: str
    email: str
    by: str = ""


ADDRESS_EVENTS: tuple[type[Event], ...] = (AddressAsked, AddressDropped, AddressChanged)


# -- issue 25, absences (ABSENCE/ABSENT, pbem/judge/absence.py) and forgiveness: kernel events
# the idle count reads (pbem/core/absences.py); no game's rules fold them.


@dataclasses.dataclass(frozen=True)
class AbsenceDeclared(Event):
    """``seat`` is away from ``start`` to ``end`` (whole days in the game's time zone: its
    first midnight, the midnight after its last day), said by ``by`` (the seat, or a game
    master's address) with ``reason``; ``days``: what it takes of the game's allowance."""

    seat: PlayerId
    start: datetime
    end: datetime
    days: int
    reason: str = ""
    by: str = ""


@dataclasses.dataclass(frozen=True)
class AbsenceCancelled(Event):
    """The absence of ``seat`` that began at ``start`` is cancelled (its days given back)."""

    seat: PlayerId
    start: datetime
    by: str = ""


@dataclasses.dataclass(frozen=True)
class Unheard(Event):
    """The daemon could not hear ``seat`` (empty: anyone) at ``at``: his mail bounced
    (``bounce``), his mail was held (``held``, ``oversize``, ``dkim``, ``confirmation``) or the
    daemon was down across a deadline (``outage``). The phase it falls in is not counted
    against the seat (issue 25's forgiveness, docs/seats.md)."""

    seat: str
    cause: str
    at: datetime | None = None


@dataclasses.dataclass(frozen=True)
class OrdersReceived(Event):
    """What one mail of ``seat`` gave that was accepted, as its receipt showed it (each line in
    the canonical form, a passed-on text after it), and when it arrived (issue 24: the hash
    chain covers every accepted order with its sender, its arrival time and its text). It
    stands before the events those orders made; the rules never read it."""

    seat: PlayerId
    at: datetime
    lines: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class DeskNotice(Notice):
    """A notice from the game master's desk: mailed like any notice, folded by no game."""


# -- issue 25, observers and the graveyard (OBSERVER / SPECTATE, pbem/judge/observer.py; the
# game master's OBSERVATEURS / OBSERVERS, pbem/desk/observer.py): kernel events, folded by no
# game's rules; who reads the list besides the players, and the graveyard with the dead.


@dataclasses.dataclass(frozen=True)
class ObserverAsked(Event):
    """A non-player asked to follow the game (``OBSERVER``/``SPECTATE``) and waits for the
    game master's approval (the game's option ``observers`` is ``approve``)."""

    email: str
    lang: str


@dataclasses.dataclass(frozen=True)
class ObserverJoined(Event):
    """``email`` follows the game from now on: its public posts, the graveyard when the daemon
    keeps one, the archive at the end. ``by``: the game master who accepted him (his
    address), empty when the game lets anyone in (``observers = open``)."""

    email: str
    lang: str
    by: str = ""


@dataclasses.dataclass(frozen=True)
class ObserverLeft(Event):
    """``email`` no longer follows the game, or his request is turned down. ``by``: the game
    master who refused or removed him (his address), empty when he left himself (``STOP``)."""

    email: str
    by: str = ""


OBSERVER_EVENTS: tuple[type[Event], ...] = (ObserverAsked, ObserverJoined, ObserverLeft)


# -- issue 25 digest (pbem/judge/digest.py): a seat's choice of the daily digest, and each
# digest sent. Kernel events: no game's rules fold them, no rollback voids them.


@dataclasses.dataclass(frozen=True)
class DigestChosen(Event):
    """``DIGEST on|off``: whether the seat gets one mail a day with the day's public posts
    (the seat's choice: a substitute keeps it until he says otherwise)."""

    seat: PlayerId
    on: bool


@dataclasses.dataclass(frozen=True)
class DigestSent(Event):
    """The digest of ``day`` (the game's local date, ISO) went out: it told the public posts
    of the log before index ``upto``. Committed with its mails, so a digest goes once, even
    across a crash."""

    day: str
    upto: int


DIGEST_EVENTS: tuple[type[Event], ...] = (DigestChosen, DigestSent)


KERNEL_EVENTS: tuple[type[Event], ...] = (
    *DIGEST_EVENTS,
    PhaseClosed,
    Paused,
    Resumed,
    DeadlineMoved,
    RolledBack,
    DeskNotice,
    Substituted,
    BenchJoined,
    OrdersReceived,
    *ADDRESS_EVENTS,
    AbsenceDeclared,  # issue 25, absences
    AbsenceCancelled,
    Unheard,
    *OBSERVER_EVENTS,
)


COMMON_EVENTS: tuple[type[Event], ...] = (
    GameCreated,
    RolesDealt,
    DealCommitted,
    PhaseStarted,
    ActionSet,
    ActionCleared,
    VoteSet,
    PlayerDied,
    RoleChanged,
    GameEnded,
    Resolved,
    Notice,
    SeatRemoved,
    *KERNEL_EVENTS,
)

for _event_type in COMMON_EVENTS:  # built at every step of every game (issue 23)
    quick_init(_event_type)


def public(template: str, thread: str = "", **params: Any) -> Notice:
    """A notice to the list."""
    return Notice(template, (), True, params, thread)


def private(template: str, to: Iterable[PlayerId], thread: str = "", **params: Any) -> Notice:
    """A notice to the players in ``to`` (one mail each)."""
    return Notice(template, tuple(to), False, params, thread)


class EventCodec:
    """Encodes events to JSON-able dicts and decodes them back, for a fixed set of types."""

    @staticmethod
    @functools.cache
    def of(event_types: tuple[type[Event], ...]) -> EventCodec:
        """The one codec of these types (it holds nothing but what it works out of them once:
        every loaded game's rules share it, 10,000 games at start-up, issue 23)."""
        return EventCodec(event_types)

    def __init__(self, event_types: Iterable[type[Event]]) -> None:
        self._types = {t.__name__: t for t in event_types}
        self._hints = {name: _hints(typing.cast(Hashable, t)) for name, t in self._types.items()}
        self._plans: dict[str, tuple[type[Event], tuple[tuple[str, Decoder | None], ...]]] = {}

    def encode(self, event: Event) -> dict[str, Any]:
        """The event as JSON-ready data, its type's encoder made once."""
        kind = type(event)
        encoder = _ENCODERS.get(kind)
        if encoder is None:
            encoder = _ENCODERS[kind] = _encoder(kind)
        return encoder(event)

    def decode(self, data: Mapping[str, Any]) -> Event:
        """The event stored as ``data`` (by its ``type``), its type's decoding plan made once."""
        name = data["type"]
        plan = self._plans.get(name)
        if plan is None:
            plan = self._plans[name] = self._plan(name)
        cls, fields = plan
        kwargs = {}
        for field, decoder in fields:
            if field in data:
                value = data[field]
                kwargs[field] = value if decoder is None or value is None else decoder(value)
        return compact(cls, kwargs)  # a loaded log stays in memory: pbem.core.frozen.compact

    def _plan(self, name: str) -> tuple[type[Event], tuple[tuple[str, Decoder | None], ...]]:
        """A type's fields with each one's decoder, worked out once (every game's whole log
        is decoded at start-up: 10,000 games, issue 23)."""
        cls, hints = self._types[name], self._hints[name]
        return cls, tuple((f.name, _decoder(hints[f.name])) for f in dataclasses.fields(cls))


@functools.cache
def _hints(cls: Hashable) -> dict[str, Any]:
    """The resolved field types of an event class (resolving them compiles: do it once)."""
    return typing.get_type_hints(cls)


@functools.cache
def _field_names(cls: Hashable) -> tuple[str, ...]:
    """An event class's field names, in order (``dataclasses.fields`` builds them per call)."""
    return tuple(f.name for f in dataclasses.fields(typing.cast(type, cls)))


def _encoder(kind: type[Event]) -> typing.Callable[[Event], dict[str, Any]]:
    """The encoding of one event class as one function: ``{"type": its name}`` then each
    field, in order, as it is when plain (a seat, a key, a number) else through
    :func:`_to_json`. Written out from the class's field names, as a dataclass writes its
    ``__init__``: no loop over the names and no ``getattr`` per field (every event of every
    step the daemon stores is encoded, and each new game's sixteen: issue 23)."""
    fields = "".join(
        f"{name!r}: v if type(v := event.{name}) in as_is else to_json(v), "
        for name in _field_names(typing.cast(Hashable, kind))
    )
    source = f"def encode(event):\n    return {{'type': {kind.__name__!r}, {fields}}}\n"
    scope: dict[str, Any] = {"as_is": _AS_IS, "to_json": _to_json}
    exec(source, scope)  # built from the class's own name and field names
    encode: typing.Callable[[Event], dict[str, Any]] = scope["encode"]
    encode.__qualname__ = f"encode_{kind.__name__}"
    return encode


_ENCODERS: dict[type, typing.Callable[[Event], dict[str, Any]]] = {}
""":func:`_encoder` by event class, made on its first event (a few dozen classes)."""

_PLAIN = frozenset({str, int, float, bool, type(None)})
"""Values written as they are: checked first, by exact type (an enum of str is not plain)."""


class JsonObject(dict[str, Any]):
    """A mapping already in the form the store writes (string keys, JSON values only), that
    no one changes once made: the codec writes it as itself, not a copy. A game's options
    (:func:`pbem.core.options.options_to_json`): one object for every game set up alike, a
    fifth of encoding a new game's events (issue 23)."""

    __slots__ = ()


_AS_IS = _PLAIN | {JsonObject}
"""An event's field values written as they are (:class:`JsonObject`: shared, not copied)."""


def _to_json(value: Any) -> Any:
    kind = type(value)
    if kind in _PLAIN:
        return value
    # the containers a notice's params hold, by exact type first (no ABC check), their plain
    # items written without a call: the same as the general cases below
    if kind is tuple or kind is list:
        return [v if type(v) in _PLAIN else _to_json(v) for v in value]
    if kind is dict:
        return {str(k): v if type(v) in _PLAIN else _to_json(v) for k, v in value.items()}
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, enum.Enum):  # a closed set (Termination): its string, as stored
        return value.value
    if isinstance(value, tuple | list):
        return [_to_json(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _to_json(v) for k, v in value.items()}
    return value


Decoder = typing.Callable[[Any], Any]
"""Turns a non-None JSON value into the value of one field type."""


def _decoder(hint: Any) -> Decoder | None:
    """What :func:`_from_json` does for ``hint``, as one function (None: the value as it is),
    the type inspected once instead of for every value."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is datetime:
        return datetime.fromisoformat
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return typing.cast(Decoder, hint)
    if origin in (types.UnionType, typing.Union):
        for arg in args:
            if arg is not type(None):
                return _decoder(arg)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            each = _decoder(args[0])
            if each is None:
                return tuple
            return lambda value: tuple(None if v is None else each(v) for v in value)
        return lambda value: tuple(_from_json(v, a) for v, a in zip(value, args, strict=True))
    if origin is not None:
        inner = _decoder(args[1] if len(args) == 2 else Any)
        if inner is None:
            return lambda value: dict(value) if isinstance(value, dict) else value
        return lambda value: (
            {k: None if v is None else inner(v) for k, v in value.items()}
            if isinstance(value, dict)
            else value
        )
    return None


def _from_json(value: Any, hint: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is datetime:
        return datetime.fromisoformat(value)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint(value)
    if origin in (types.UnionType, typing.Union):
        for arg in args:
            if arg is not type(None):
                return _from_json(value, arg)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_from_json(v, args[0]) for v in value)
        return tuple(_from_json(v, a) for v, a in zip(value, args, strict=True))
    if origin is not None and isinstance(value, dict):
        inner = args[1] if len(args) == 2 else Any
        return {k: _from_json(v, inner) for k, v in value.items()}
    return value
