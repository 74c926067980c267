"""Dracula's own events (``docs/rules/dracula.md``): what happened, as the state folds it
(pbem/games/dracula/state.py); the kernel's events are in pbem/core/events.py."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from pbem.core.events import Event
from pbem.core.frozen import quick_init
from pbem.core.ids import PlayerId


@dataclass(frozen=True)
class RoundStarted(Event):
    """A round begins: who is Dracula (DRA-007); everything but the scores is reset (AMB-075)."""

    round: int
    dracula: PlayerId


@dataclass(frozen=True)
class NightScheduled(Event):
    """AMB-002: the scheduled end of the night; no morning before it, even on early close."""

    end: datetime


@dataclass(frozen=True)
class Order(Event):
    """A private order of the current night or final phase (``default`` when the daemon drew it)."""

    actor: PlayerId
    verb: str
    targets: tuple[PlayerId, ...] = ()
    word: str | None = None
    text: str = ""
    default: bool = False


@dataclass(frozen=True)
class TallyPosted(Event):
    """AMB-015 ``running_tally``: a running tally of the sanctuary vote went out (at most one
    every ``tally_min_interval``, as the werewolf games' LUP-D18)."""

    at: datetime


@dataclass(frozen=True)
class Withdrawn(Event):
    """AMB-007 ``private_orders_final = false``: the actor's orders ``verbs`` of the current
    step are withdrawn (ANNULER, or a new order of the same kind replacing them)."""

    actor: PlayerId
    verbs: tuple[str, ...]


@dataclass(frozen=True)
class Designated(Event):
    """Dusk (ORD-01): the sanctuary occupants, their counts, and the seats filled at random."""

    night: int
    players: tuple[PlayerId, ...]
    counts: Mapping[str, int]
    drawn: tuple[PlayerId, ...] = ()


@dataclass(frozen=True)
class Declared(Event):
    """A cursed player's public destination for the coming night (DRA-375, AMB-056)."""

    player: PlayerId
    room: str
    default: bool = False


@dataclass(frozen=True)
class Posted(Event):
    """A living player's post reached the list today (the cursed player's first post, DRA-374)."""

    player: PlayerId


@dataclass(frozen=True)
class Paired(Event):
    """Night 4: ``naming`` named ``named`` (DRA-224); ``drawn`` when the daemon paired them."""

    naming: PlayerId
    named: PlayerId
    drawn: bool = False


@dataclass(frozen=True)
class Unpaired(Event):
    """A pair formed in the Night 4 window is undone because one of its two players was
    removed from the game while the window was still open (docs/seats.md, AMB-030)."""

    naming: PlayerId
    named: PlayerId


@dataclass(frozen=True)
class Assigned(Event):
    """Night 2 (DRA-201): the secret object of each human, a random permutation (AMB-025)."""

    objects: Mapping[str, str]


@dataclass(frozen=True)
class Moved(Event):
    """Objects change place: ``source``/``dest`` are ``hand:<player>``, ``floor:<room>``,
    ``assigned`` or ``gone`` (used, destroyed, lost)."""

    objects: tuple[str, ...]
    source: str
    dest: str
    why: str


@dataclass(frozen=True)
class Fact(Event):
    """Something that happened in a room tonight (bites, uses, pickups): the candle's witness
    list (AMB-046) and the morning announcement's material."""

    kind: str
    room: str
    actor: PlayerId | None = None
    targets: tuple[PlayerId, ...] = ()
    items: tuple[str, ...] = ()
    outcome: str = ""


@dataclass(frozen=True)
class Painted(Event):
    """DRA-390: a message on the walls of ``room`` for the rest of the round."""

    room: str
    painter: PlayerId
    text: str


@dataclass(frozen=True)
class PaintingRead(Event):
    """AMB-057 ``paint_repeat = first_time_per_player``: these humans have read ``room``'s text."""

    room: str
    readers: tuple[PlayerId, ...]


@dataclass(frozen=True)
class Cursed(Event):
    """DRA-373: cursed until the end of the round."""

    player: PlayerId


@dataclass(frozen=True)
class Converted(Event):
    """DRA-117, DRA-144: a human becomes a vampire; every biter is credited."""

    player: PlayerId
    biters: tuple[PlayerId, ...]


@dataclass(frozen=True)
class Telepathy(Event):
    """DRA-420: Dracula's one message of the round; ``held`` until morning if sent at night."""

    text: str
    held: bool


@dataclass(frozen=True)
class TelepathyHeld(Event):
    """AMB-072: Dracula's text waits for an administrator's approval (or, ``reviewed``,
    the review is over: ``approved`` or refused with ``reason``)."""

    text: str
    reviewed: bool = False
    approved: bool = False
    reason: str = ""


@dataclass(frozen=True)
class Danced(Event):
    """DRA-401: the waltz of the night (the reply window needs the pair)."""

    holder: PlayerId
    partner: PlayerId


@dataclass(frozen=True)
class FinalChoice(Event):
    """DRA-464: flee (with the flame's recipient) or fight, public and final."""

    player: PlayerId
    choice: str
    recipient: PlayerId | None = None
    default: bool = False


@dataclass(frozen=True)
class FlamesSettled(Event):
    """DRA-469, AMB-063: the flames each fighter holds after the flee/fight step."""

    flames: Mapping[str, int]


@dataclass(frozen=True)
class RoundScored(Event):
    """DRA-009, DRA-490: the points of a round (added to the cumulative table)."""

    round: int
    ending: str
    points: Mapping[str, int]


EVENT_TYPES: tuple[type[Event], ...] = (
    RoundStarted,
    NightScheduled,
    Order,
    Withdrawn,
    Designated,
    TallyPosted,
    Declared,
    Posted,
    Paired,
    Unpaired,
    Assigned,
    Moved,
    Fact,
    Painted,
    PaintingRead,
    Cursed,
    Converted,
    Telepathy,
    TelepathyHeld,
    Danced,
    FinalChoice,
    FlamesSettled,
    RoundScored,
)
for _event_type in EVENT_TYPES:  # built at every step (issue 23)
    quick_init(_event_type)
