"""AMB-007 ``private_orders_final = false``: a private order may be changed or cancelled
(ANNULER / CANCEL) until the step it was given in closes; the last valid one wins.

Only an order given in the current step can change (:attr:`DraculaState.step_orders` holds
the ones the step found, final since their own step closed). A new order of the same kind
(a room, a painting, a stake, a bite or Dracula's abstention, a waltz, flames) replaces the
standing one; the uses without anything to choose (magnifier, garlic, candle, key), the
curses and the dance replies add up as by default (AMB-053, AMB-058) and are withdrawn with
ANNULER. A withdrawn use gives its object back (AMB-040: consumed only by a use that
stands). Two things cannot be taken back: a curse already told to its target
(``curse_notice = immediate``, AMB-054) and everything public (vote, partner, final choice,
cursed destination: DRA-045, DRA-223, DRA-465, DRA-377) or already delivered (telepathy).
"""

from __future__ import annotations

from pbem.core.errors import IllegalNow
from pbem.core.events import Event
from pbem.core.ids import PlayerId
from pbem.games.dracula import night
from pbem.games.dracula.events import Moved, Withdrawn
from pbem.games.dracula.manor import STAKE
from pbem.games.dracula.orders import NORMAL_USES
from pbem.games.dracula.state import DraculaState

REPLACING = frozenset({"room", "paint", "stake", "bite", "abstain", "dance", "flame"})
"""The orders a new one of the same kind replaces."""

CHANGEABLE = REPLACING | {"magnifier", "garlic", "candle", "key", "curse", "reply"}
"""The private orders that are not final when ``private_orders_final`` is false."""

_OBJECT_OF = {**NORMAL_USES, "stake": STAKE}
"""A use -> the object it consumed, given back when the use is withdrawn (AMB-040)."""


def _kind(key_verb: str) -> str:
    """The kind of an order's key: ``curse#2`` and ``reply#2`` are curses and replies, and
    Dracula's abstention is his bite's (DRA-113)."""
    verb = key_verb.partition("#")[0]
    return "bite" if verb == "abstain" else verb


def standing(s: DraculaState, actor: PlayerId, verb: str) -> tuple[str, ...]:
    """The keys of ``actor``'s orders of ``verb``'s kind given in the current step."""
    kind = _kind(verb)
    before = s.step_orders
    return tuple(
        v
        for (a, v), order in s.orders.items()
        if a == actor and _kind(v) == kind and before.get((a, v)) is not order
    )


def any_standing(s: DraculaState, actor: PlayerId) -> bool:
    """Whether ``actor`` has an order he may still cancel."""
    return bool(offered(s, actor))


def offered(s: DraculaState, actor: PlayerId) -> tuple[str, ...]:
    """What ``actor``'s orders of this step add to his commands: ANNULER, and the verbs of
    those a new order would replace (Dracula's bite and abstention both, DRA-113)."""
    before = s.step_orders
    verbs = [
        v
        for (a, v), order in s.orders.items()
        if a == actor and _kind(v) in CHANGEABLE and before.get((a, v)) is not order
    ]
    if not verbs:
        return ()
    again = [v for v in verbs if v in REPLACING]
    if ("bite" in again or "abstain" in again) and night.bite_status(s, actor) == "may":
        again += ["bite", "abstain"]
    return ("cancel", *dict.fromkeys(again))


def cancellable(s: DraculaState, actor: PlayerId, verb: str) -> tuple[str, ...]:
    """The keys ANNULER ``verb`` withdraws; IllegalNow when there is nothing it may take back."""
    if _kind(verb) not in CHANGEABLE:  # public, or delivered
        raise IllegalNow("not_cancellable")  # DRA-045, DRA-223, DRA-465, DRA-377, DRA-424
    keys = standing(s, actor, verb)
    if not keys:
        given = any(a == actor and _kind(v) == _kind(verb) for (a, v) in s.orders)
        raise IllegalNow("order_final" if given else "nothing_to_cancel")
    if _kind(verb) == "curse" and s.options.curse_notice == "immediate":
        raise IllegalNow("order_final")  # AMB-054: the cursed was told at once
    return keys


def withdrawal(s: DraculaState, actor: PlayerId, keys: tuple[str, ...]) -> list[Event]:
    """The events withdrawing ``actor``'s orders ``keys``: the objects they consumed go back
    to his hand."""
    back = tuple(_OBJECT_OF[v] for v in keys if v in _OBJECT_OF)
    events: list[Event] = [Withdrawn(actor, keys)]
    if back:
        events.append(Moved(back, "gone", f"hand:{actor}", "withdrawn"))
    return events
