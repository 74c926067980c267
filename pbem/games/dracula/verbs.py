"""What a living player may send in each phase of Dracula besides help and status
(:meth:`pbem.games.dracula.rules.Dracula.available_verbs`).

Asked of every player at every bot round (issue 23): each phase reads only its own checks
(:data:`PHASE_VERBS`), and a player with nothing in hand skips the objects' ones. AMB-007: an
order given is final, so a verb whose order he gave tonight is left out (a reply, a curse:
more, within their limits).
"""

from __future__ import annotations

from collections.abc import Callable

from pbem.core.ids import PlayerId
from pbem.games.dracula import night
from pbem.games.dracula.manor import GRIMOIRE, PAINTKIT, PHONOGRAPH, SANCTUARY, STAKE
from pbem.games.dracula.orders import NORMAL_USES, SILENT_PHASES
from pbem.games.dracula.roles import HUMAN
from pbem.games.dracula.state import DRACULA_PHASES, DraculaState, Seat

_USE_OF = {obj: verb for verb, obj in NORMAL_USES.items()}
"""A normal object -> the command that uses it (CMD-05 … CMD-08)."""


def _telepathy(s: DraculaState) -> tuple[str, ...]:
    """Dracula's one telepathy of the round (DRA-420), by night or to a fellow vampire by
    day (AMB-071): the verbs a phase's own start from, for Dracula (the others' start from
    none, without a call)."""
    if not s.telepathy_used and (s.phase in SILENT_PHASES or s.vampire_count() > 1):
        return ("telepathy",)
    return ()


def _day_verbs(s: DraculaState, actor: PlayerId, seat: Seat) -> tuple[str, ...]:
    # by day no verb is an order's (their events are others), so none is left out for an
    # order given, and no grimoire curses
    out = _telepathy(s) if seat.dracula else ()
    if s.number >= 2 and not s.has_voted(actor):  # DRA-022, DRA-045
        out += ("vote",)
    if seat.cursed and actor not in s.declared:  # DRA-374, DRA-377
        out += ("declare",)
    return out


def _pairing_verbs(s: DraculaState, actor: PlayerId, seat: Seat) -> tuple[str, ...]:
    out = _telepathy(s) if seat.dracula else ()
    if actor not in s.designated and actor not in s.pairs and not s.is_named(actor):
        out += ("partner",)  # DRA-221 … DRA-224
    return out


def _final_choice_verbs(s: DraculaState, actor: PlayerId, seat: Seat) -> tuple[str, ...]:
    out = _telepathy(s) if seat.dracula else ()
    if seat.human and actor not in s.choices:  # DRA-464, DRA-465
        out += ("flee", "fight")
    return out


def _rooms_verbs(s: DraculaState, actor: PlayerId, seat: Seat) -> tuple[str, ...]:
    out = _telepathy(s) if seat.dracula else ()
    if night.must_choose_room(s, actor) and (actor, "room") not in s.orders:  # ORD-04
        out += ("room",)
    return _choosing_objects(s, actor, seat, out) if seat.hand else out


def _magnifier_verbs(s: DraculaState, actor: PlayerId, seat: Seat) -> tuple[str, ...]:
    out = _telepathy(s) if seat.dracula else ()
    orders = s.orders
    room = ((actor, "magnifier") in orders and actor not in s.pairs) or s.left_to_choose(actor)
    if room and (actor, "room") not in orders:  # ORD-06, AMB-031
        out += ("room",)
    return _choosing_objects(s, actor, seat, out) if seat.hand else out


def _dracula_room_verbs(s: DraculaState, actor: PlayerId, seat: Seat) -> tuple[str, ...]:
    out = _telepathy(s) if seat.dracula else ()
    if seat.dracula and (actor, "room") not in s.orders:  # DRA-102
        out += ("room",)
    return _choosing_objects(s, actor, seat, out) if seat.hand else out


def _choosing_objects(
    s: DraculaState, actor: PlayerId, seat: Seat, out: tuple[str, ...]
) -> tuple[str, ...]:
    """``out`` and the uses of the objects in ``actor``'s hand at a room choice (ORD-04,
    ORD-06: CMD-05 … CMD-10)."""
    hand = seat.hand
    orders = s.orders
    sanctuary = actor in s.designated
    human = seat.side == HUMAN  # Seat.human, without a call
    # CHOICE_PHASES; the magnifier step is the magnifier users' second choice only (ORD-06)
    # AMB-041 room_objects_in_sanctuary: garlic, candle and painting in the sanctuary too
    anywhere = sanctuary and s.options.room_objects_in_sanctuary
    if (
        s.phase != "dracula_room"
        and human
        and not sanctuary
        and (s.phase != "magnifier" or (actor, "magnifier") in orders)
    ):
        for obj in hand:  # a few objects, not every use
            verb = _USE_OF.get(obj)
            if verb is not None and (actor, verb) not in orders and _combines(s, actor, verb):
                out += (verb,)
    elif anywhere and human and s.phase == "rooms":  # a designated occupant: no room chosen
        for obj in hand:
            verb = _USE_OF.get(obj)
            if verb in ("garlic", "candle") and (actor, verb) not in orders:
                out += (verb,)
    if (
        PAINTKIT in hand
        and (not sanctuary or anywhere)
        and (actor, "paint") not in orders
        and ((actor, "key") not in orders or s.options.room_objects_in_sanctuary)  # AMB-041
    ):
        out += ("paint",)
    if human and STAKE in hand and _may_stake(s, actor):
        out += ("stake",)
    return _curse(s, actor, hand, out)


def _combines(s: DraculaState, actor: PlayerId, verb: str) -> bool:
    """Whether the use ``verb`` goes with the orders ``actor`` gave tonight (the checks of
    :meth:`~pbem.games.dracula.orders.Orders._use_object`): the magnifier instead of a room
    at the first choice (DRA-300, ORD-04), the key instead of a room (DRA-311, a Night 4
    named partner's still named: AMB-031) and never with garlic, candle or painting
    (AMB-041)."""
    orders = s.orders
    if verb == "magnifier":
        return s.phase == "rooms" and (actor, "room") not in orders
    if verb == "key":
        if not s.options.room_objects_in_sanctuary and any(
            (actor, v) in orders for v in ("garlic", "candle", "paint")
        ):
            return False
        still_names = s.options.key_escape_room == "named_partner_still_names"
        return (actor, "room") not in orders or (
            s.naming_partner(actor) is not None and still_names
        )
    return (actor, "key") not in orders or s.options.room_objects_in_sanctuary  # garlic, candle


def _bites_verbs(s: DraculaState, actor: PlayerId, seat: Seat) -> tuple[str, ...]:
    out = _telepathy(s) if seat.dracula else ()
    orders = s.orders
    human = seat.side == HUMAN  # Seat.human, read without a call at every player's turn
    if not human or seat.dracula:  # only Dracula's status is ever "may"
        status = night.bite_status(s, actor)
        if (
            status in ("must", "may")
            and (actor, "bite") not in orders
            and (actor, "abstain") not in orders
        ):
            if not human:
                out += ("bite",)
            if status == "may":
                out += ("abstain",)
    hand = seat.hand
    if not hand:  # most humans: no waltz, stake or curse
        return out
    if (
        PHONOGRAPH in hand
        and (actor, "dance") not in orders
        and s.count_present(s.position(actor) or "") > 1
    ):
        out += ("dance",)
    if human and STAKE in hand and _may_stake(s, actor):
        out += ("stake",)
    return _curse(s, actor, hand, out)


def _dance_reply_verbs(s: DraculaState, actor: PlayerId, seat: Seat) -> tuple[str, ...]:
    out = _telepathy(s) if seat.dracula else ()
    dance = s.dance
    if dance is not None and dance[1] == actor and len(s.replies(actor)) < s.options.dance_replies:
        out += ("reply",)  # DRA-405, AMB-058
    return _curse(s, actor, seat.hand, out) if seat.hand else out


def _dawn_curse_verbs(s: DraculaState, actor: PlayerId, seat: Seat) -> tuple[str, ...]:
    out = _telepathy(s) if seat.dracula else ()
    return _curse(s, actor, seat.hand, out) if seat.hand else out


def _flames_verbs(s: DraculaState, actor: PlayerId, seat: Seat) -> tuple[str, ...]:
    out = _telepathy(s) if seat.dracula else ()
    if s.flames.get(actor) and (actor, "flame") not in s.orders:  # DRA-470
        out += ("flame",)
    return out


def _curse(
    s: DraculaState, actor: PlayerId, hand: tuple[str, ...], out: tuple[str, ...]
) -> tuple[str, ...]:
    """``out`` and a curse, for the grimoire's holder by night (DRA-371)."""
    if GRIMOIRE in hand:
        mine = [o for (a, v), o in s.orders.items() if a == actor and v.startswith("curse")]
        if len({t for o in mine for t in o.targets}) < 2:  # AMB-053: two a night
            out += ("curse",)
    return out


def _may_stake(s: DraculaState, actor: PlayerId) -> bool:
    """A stake holder's order not given yet, in the sanctuary (DRA-320)."""
    return (actor, "stake") not in s.orders and s.position(actor) == SANCTUARY


def _telepathy_only(s: DraculaState, actor: PlayerId, seat: Seat) -> tuple[str, ...]:
    return _telepathy(s) if seat.dracula else ()


PHASE_VERBS: dict[str, Callable[[DraculaState, PlayerId, Seat], tuple[str, ...]]] = {
    **dict.fromkeys(DRACULA_PHASES, _telepathy_only),  # the wait for the morning, …
    "day": _day_verbs,
    "pairing": _pairing_verbs,
    "rooms": _rooms_verbs,
    "dracula_room": _dracula_room_verbs,
    "magnifier": _magnifier_verbs,
    "bites": _bites_verbs,
    "dance_reply": _dance_reply_verbs,
    "dawn_curse": _dawn_curse_verbs,
    "final_choice": _final_choice_verbs,
    "flames": _flames_verbs,
}
"""Phase -> what a living player may send in it besides help and status."""
