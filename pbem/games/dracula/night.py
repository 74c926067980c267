"""The night, step by step (section 21, ORD-03 … ORD-24).

Each ``close_*`` function closes one deadline-keyed sub-step (room choice, Dracula's Night 1
choice, magnifier, bites, dance reply, dawn curse) and opens the next one. Notices of a step
are emitted when the step closes, never on receipt of an order (AMB-002).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from pbem.core.events import Event, PhaseStarted, PlayerDied, private, public
from pbem.core.folded import Batch
from pbem.core.ids import PlayerId
from pbem.core.moments import iso
from pbem.core.resolve import Intent, Veto, resolve
from pbem.games.dracula.events import (
    Assigned,
    Converted,
    Cursed,
    Danced,
    Fact,
    Moved,
    NightScheduled,
    Order,
    Painted,
    PaintingRead,
    Telepathy,
)
from pbem.games.dracula.manor import (
    CANDLE,
    CRUCIFIX,
    GRIMOIRE,
    MANUAL,
    NORMAL_OBJECTS,
    ORDINARY,
    PHONOGRAPH,
    SANCTUARY,
    SPECIAL_OBJECTS,
    STAKE,
)
from pbem.games.dracula.roles import ORD_BITES, ORD_STAKES
from pbem.games.dracula.state import DraculaState, evolve

"""The last moments :func:`iso` wrote."""


def thread(state: DraculaState, part: str = "night") -> str:
    """The mail thread of ``part`` (the night, the day, the morning) of this round's step."""
    return f"round-{state.round}-{part}-{state.number}"


# -- ORD-03: night falls ----------------------------------------------------------------------


def open_night(b: Batch[DraculaState], number: int, now: datetime, rng: random.Random) -> None:
    """ORD-03: night ``number`` falls: the room step opens, the night's scheduled end is noted
    (AMB-002), Night 2's objects are dealt (DRA-201, AMB-025) and the thief told what lies on
    the floors (DRA-360)."""
    s = b.state
    end = now + s.options.room_choice
    o = s.options  # AMB-002: the night's scheduled end (Dracula's own choice on Night 1)
    dracula_step = o.room_choice if number == 1 else timedelta(0)
    b.add(
        PhaseStarted("rooms", number, {"rooms": end}), NightScheduled(end + dracula_step + o.bites)
    )
    t = thread(b.state)
    b.note(public("dracula/night_start", t, round=s.round, night=number, deadline=iso(end)))
    if number == 2:  # DRA-201, AMB-025: a random permutation of the 11 objects
        humans = b.state.humans()
        objects = list(NORMAL_OBJECTS)
        rng.shuffle(objects)
        chosen = humans if len(humans) <= len(objects) else rng.sample(humans, len(objects))
        b.add(Assigned({p: o for p, o in zip(chosen, objects, strict=False)}))
    thief = b.state.holder(MANUAL)
    if thief is not None:  # DRA-360, AMB-051
        floor = {room: list(b.state.floor.get(room, ())) for room in ORDINARY}
        b.note(private("dracula/thief_report", [thief], t, night=number, floor=floor))


# -- ORD-04 … ORD-07: room choice -------------------------------------------------------------


def must_choose_room(s: DraculaState, p: PlayerId) -> bool:
    """Players who send a room at ORD-04 (DRA-080, DRA-227, DRA-102, DRA-300)."""
    seat = s.seats[p]
    if not seat.alive or p in s.designated:
        return False
    if s.number == 1 and seat.dracula:
        return False  # DRA-102: later, knowing the counts
    if p in s.pairs:
        return False  # DRA-227: the named partner chooses
    if (p, "magnifier") in s.orders:
        return False  # DRA-300: after the report
    if (p, "key") not in s.orders:
        return True
    # DRA-311 (a named partner still names the pair's room, AMB-031, unless the naming
    # partner chooses his own)
    still_names = s.options.key_escape_room == "named_partner_still_names"
    return still_names and s.naming_partner(p) is not None


def _default_room(
    s: DraculaState, p: PlayerId, rng: random.Random, rooms: tuple[str, ...]
) -> Order:
    """AMB-003: ``p``'s room when he sent none: his declared room if cursed (AMB-056.5), else
    one of ``rooms`` drawn."""
    room = s.declared.get(p) if s.seats[p].cursed else None  # AMB-056.5
    if room is None:
        room = rng.choice(rooms)
    return Order(p, "room", (), room, "", default=True)


def close_rooms(b: Batch[DraculaState], now: datetime, rng: random.Random) -> None:
    """ORD-04, ORD-05: the room step closes: a random ordinary room for whoever sent none
    (AMB-003); on Night 1 Dracula then chooses his (DRA-102), else the magnifier users get
    their reports (ORD-06) or the positions are fixed (ORD-07)."""
    s = b.state
    orders = s.orders
    b.add(  # AMB-003: missing room choice -> a random ordinary room (folded at once)
        *[
            _default_room(s, p, rng, ORDINARY)
            for p in s.living()
            if (p, "room") not in orders and must_choose_room(s, p)
        ]
    )
    s = b.state
    t = thread(s)
    if s.number == 1:
        dracula = s.dracula()
        end = now + s.options.room_choice
        counts = {room: len(s.present(room)) for room in ORDINARY}
        b.add(PhaseStarted("dracula_room", 1, {"dracula_room": end}))
        b.note(private("dracula/dracula_counts", [dracula], t, counts=counts, deadline=iso(end)))
        return
    orders = s.orders
    users = [p for p in s.living() if (p, "magnifier") in orders]
    alone: list[PlayerId] = []
    if s.options.key_escape_room == "naming_partner_chooses":  # AMB-031, as left_to_choose
        alone = [p for p in s.living() if s.left_to_choose(p) and (p, "room") not in orders]
    if users or alone:
        open_magnifier(b, users, now, alone)
        return
    fix_positions(b, now)


def close_dracula_room(b: Batch[DraculaState], now: datetime, rng: random.Random) -> None:
    """ORD-05, Night 1: Dracula's room, drawn among the occupied rooms if he sent none
    (AMB-003); then the positions are fixed (ORD-07)."""
    s = b.state
    dracula = s.dracula()
    if s.order_of(dracula, "room") is None:  # AMB-003: a random non-empty room
        rooms = tuple(r for r in ORDINARY if s.present(r)) or ORDINARY
        b.add(_default_room(s, dracula, rng, rooms))
    fix_positions(b, now)


def magnifier_report(
    s: DraculaState, user: PlayerId, users: list[PlayerId]
) -> list[dict[str, str]]:
    """AMB-047: every other living player's position, or undetermined (DRA-303, DRA-304)."""
    report = []
    for p in s.living():
        if p == user:
            continue
        pos = s.position(p)
        named = s.named_partner(p)
        if p in users or (named is not None and named in users and s.order_of(p, "key") is None):
            pos = None
        report.append({"name": p, "position": pos or "undetermined"})
    return report


def open_magnifier(
    b: Batch[DraculaState], users: list[PlayerId], now: datetime, alone: Sequence[PlayerId] = ()
) -> None:
    """ORD-06: the magnifier reports; with AMB-031 ``naming_partner_chooses``, the same second
    choice step asks the naming partners left by a key user to choose their own room."""
    s = b.state
    end = now + s.options.magnifier
    b.add(PhaseStarted("magnifier", s.number, {"magnifier": end}))
    t, deadline = thread(s), iso(end)
    for naming in alone:
        partner = s.named_partner(naming)
        b.note(private("dracula/partner_key", [naming], t, partner=partner, deadline=deadline))
    for user in users:  # ORD-06: all reports at once, nobody gets a second one
        b.note(
            private(
                "dracula/magnifier_report",
                [user],
                t,
                report=magnifier_report(s, user, users),
                pairs=[{"naming": a, "named": n} for a, n in s.pairs.items()],
                deadline=deadline,
            )
        )


def close_magnifier(b: Batch[DraculaState], now: datetime, rng: random.Random) -> None:
    """ORD-06: the magnifier users (and AMB-031's naming partners) who chose no room get a
    random one (AMB-003); then the positions are fixed (ORD-07)."""
    s = b.state
    orders = s.orders
    b.add(  # AMB-003, AMB-031
        *[
            _default_room(s, p, rng, ORDINARY)
            for p in s.living()
            if ((p, "magnifier") in orders or s.left_to_choose(p))
            and (p, "room") not in orders
            and (p, "key") not in orders
            and (s.named_partner(p) is None or s.left_to_choose(p))
            and p not in s.designated
        ]
    )
    fix_positions(b, now)


_LIT = ("garlic", "candle")
"""The uses a candle report shows by default (AMB-046)."""


def fix_positions(b: Batch[DraculaState], now: datetime) -> None:
    """ORD-07: positions are final; partner rooms, key users, paintings, garlic, candles."""
    s = b.state
    t = thread(s)
    for naming, named in s.pairs.items():  # DRA-228, NTF-14
        if s.seats[naming].alive and s.order_of(naming, "key") is None:
            if s.left_to_choose(naming):
                continue  # AMB-031: he chose his own room
            room = s.position(naming)
            b.note(private("dracula/partner_room", [naming], t, partner=named, room=room))
    key_used, painting = False, None
    for (_, verb), order in s.orders.items():  # one pass: any key used, the painting
        if verb == "key":
            key_used = True
        elif verb == "paint" and painting is None:
            painting = order
    others = [p for p in s.designated if s.seats[p].alive] if key_used else []
    for user in s.living() if others else ():  # DRA-313, NTF-15: a key user joins them
        if (user, "key") in s.orders:
            b.note(private("dracula/key_joined", others, t, user=user))
    facts: list[Event] = []  # folded at once
    if painting is not None:  # DRA-390, DRA-391, AMB-057
        room = s.position(painting.actor)
        walls = room in ORDINARY or (room == SANCTUARY and s.options.room_objects_in_sanctuary)
        if walls and room is not None and room not in s.paintings:  # AMB-041
            facts += (
                Painted(room, painting.actor, painting.text),
                Fact("paint", room, painting.actor),
            )
        else:
            facts.append(Fact("paint_void", room or SANCTUARY, painting.actor))
    # AMB-046 candle_shows_magnifier: a magnifier use is seen in the room its user entered
    for verb in ("garlic", "candle", "magnifier") if s.options.candle_shows_magnifier else _LIT:
        for room, users in s.room_of_use(verb).items():
            for user in users:
                facts.append(Fact(verb, room, user))
    b.add(*facts)
    open_bites(b, now)


# -- ORD-08 … ORD-14: bites ---------------------------------------------------------------------


def bite_status(s: DraculaState, v: PlayerId) -> str:
    """NTF-16: what a vampire may do at the bite step (DRA-110 … DRA-113, AMB-043, AMB-061)."""
    known = s.bite_statuses  # asked of one state by each bot, each bite and the close
    status = known.get(v)
    if status is None:
        status = known[v] = _bite_status(s, v)
    return status


def _bite_status(s: DraculaState, v: PlayerId) -> str:
    pos = s.position(v)
    if pos == SANCTUARY:  # AMB-041 room_objects_in_sanctuary: garlic there nauseates too
        garlic = s.options.room_objects_in_sanctuary and s.used_in("garlic", SANCTUARY)
        return "nausea" if garlic else "sanctuary"
    if s.count_present(pos or "") <= 1:
        return "alone"
    if s.used_in("garlic", pos):
        return "nausea"
    if s.seats[v].dracula and s.number > 1:
        return "may"
    return "must"


def open_bites(b: Batch[DraculaState], now: datetime) -> None:
    """ORD-08: the bite step opens: each vampire learns who is in his room and whether he must
    or may bite (DRA-110 … DRA-112), the stake and phonograph holders their choices."""
    s = b.state
    end = now + s.options.bites
    b.add(PhaseStarted("bites", s.number, {"bites": end}))
    s = b.state
    t = thread(s)
    deadline = iso(end)  # every prompt of the step
    for v in s.vampires():
        room = s.position(v) or SANCTUARY
        others = [p for p in s.present(room) if p != v]
        status = bite_status(s, v)
        if status == "nausea":
            b.add(Fact("nausea", room, v))
            if not s.options.garlic_vampires_see_occupants:
                others = []  # AMB-043: the nausea notice only, not who is in the room
        b.note(
            private(
                "dracula/bite_prompt",
                [v],
                t,
                room=room,
                others=others,
                status=status,
                deadline=deadline,
            )
        )
    holder = s.holder(PHONOGRAPH)
    if holder is not None and not s.options.dance_in_sanctuary:
        holder = None if s.position(holder) == SANCTUARY else holder
    if holder is not None:  # DRA-400, AMB-058
        room = s.position(holder) or SANCTUARY
        others = [p for p in s.present(room) if p != holder]
        b.note(
            private(
                "dracula/phonograph_prompt",
                [holder],
                t,
                room=room,
                others=others,
                deadline=deadline,
            )
        )
    stakers = [p for p in s.present(SANCTUARY) if s.seats[p].human and STAKE in s.seats[p].hand]
    for p in stakers:  # NTF-18
        occupants = [o for o in s.present(SANCTUARY) if o != p]
        b.note(
            private(
                "dracula/optional_prompt", [p], t, what="stake", others=occupants, deadline=deadline
            )
        )
    grimoire = s.holder(GRIMOIRE)
    if grimoire is not None and s.order_of(grimoire, "curse") is None:
        b.note(
            private(
                "dracula/optional_prompt", [grimoire], t, what="curse", others=[], deadline=deadline
            )
        )


def _default_bites(b: Batch[DraculaState], rng: random.Random) -> None:
    """AMB-003: an obliged vampire who sent nothing bites a random player present."""
    s = b.state
    if s.options.missed_bite != "random":
        return
    bites: list[Event] = []  # folded at once
    for v in s.vampires():
        if bite_status(s, v) != "must" or s.order_of(v, "bite") is not None:
            continue
        room = s.position(v) or SANCTUARY
        others = [p for p in s.present(room) if p != v]
        if others:
            bites.append(Order(v, "bite", (rng.choice(others),), None, "", default=True))
    b.add(*bites)


def close_bites(b: Batch[DraculaState], now: datetime, rng: random.Random) -> None:
    """ORD-09 … ORD-14: the bite step closes: default bites (AMB-003), stakes before bites
    (ORD-11), conversions grouped by target (ORD-13), the waltz, then the notices together
    (ORD-14)."""
    _default_bites(b, rng)
    before = b.state
    t = thread(before)

    def room_of(p: PlayerId) -> str:
        return before.position(p) or SANCTUARY

    intents: list[Intent] = []
    acts: list[tuple[tuple[PlayerId, str], Order]] = []
    dance: Order | None = None  # the night's one waltz (DRA-400), read below
    for key, o in before.orders.items():
        if key[1] in ("stake", "bite"):
            acts.append((key, o))
        elif key[1] == "dance" and dance is None:
            dance = o
    if len(acts) > 1:  # in the table's order (most nights one bite: nothing to sort)
        rank = {p: i for i, p in enumerate(before.order)}
        acts.sort(key=lambda kv: rank[kv[0][0]])
    for (actor, verb), order in acts:
        if verb == "stake" and before.seats[actor].alive:
            intents.append(Intent("stake", order.targets[0], "stake", ORD_STAKES, (actor,)))
        if verb == "bite" and before.seats[actor].alive:
            intents.append(Intent("bite", order.targets[0], "bite", ORD_BITES, (actor,)))

    # Veto hooks, in this order; the trace records which one fired (DESIGN.md).
    def sanctuary(s: DraculaState, i: Intent) -> Veto | None:  # DRA-013, DRA-014
        if i.kind == "bite" and SANCTUARY in (room_of(i.target), room_of(i.actors[0])):
            return Veto("sanctuary")
        return None

    def garlic(s: DraculaState, i: Intent) -> Veto | None:  # DRA-281
        garlicked = i.kind == "bite" and before.used_in("garlic", room_of(i.actors[0]))
        return Veto("garlic") if garlicked else None

    def already_vampire(s: DraculaState, i: Intent) -> Veto | None:  # DRA-115
        if i.kind == "bite" and not before.seats[i.target].human:
            fact = Fact("bite", room_of(i.target), i.actors[0], (i.target,), (), "vampire")
            return Veto("vampire", (fact,))
        return None

    def crucifix(s: DraculaState, i: Intent) -> Veto | None:  # DRA-270 … DRA-274
        if i.kind == "bite" and CRUCIFIX in before.seats[i.target].hand:
            events: list[Event] = [
                Fact("bite", room_of(i.target), i.actors[0], (i.target,), (), "crucifix")
            ]
            if CRUCIFIX in s.seats[i.target].hand:
                events.append(Moved((CRUCIFIX,), f"hand:{i.target}", "gone", "used"))
            return Veto("crucifix", tuple(events))
        return None

    def effect(s: DraculaState, i: Intent) -> list[Event]:
        actor = i.actors[0]
        if i.kind == "bite":  # DRA-117; conversions are grouped below (DRA-144)
            return [Fact("bite", room_of(i.target), actor, (i.target,), (), "vampirised")]
        target = before.seats[i.target]  # ORD-11: stakes are simultaneous
        outcome = "survives" if target.human else ("dracula" if target.dracula else "dies")
        events: list[Event] = [Fact("stake", SANCTUARY, actor, (i.target,), (), outcome)]
        if outcome == "dies" and s.seats[i.target].alive:  # DRA-324
            events.append(PlayerDied(i.target, "stake"))
            specials = tuple(o for o in s.seats[i.target].hand if o in SPECIAL_OBJECTS)
            if specials:  # DRA-345
                events.append(Moved(specials, f"hand:{i.target}", "gone", "lost"))
                events.append(Fact("lost", SANCTUARY, None, (i.target,), specials))
        return events

    result = resolve(
        before, "night", intents, [sanctuary, garlic, already_vampire, crucifix], effect, evolve
    )
    b.add_folded(result.events, result.state)  # the resolution folded its events as it went

    # the night's bites and stakes are all this resolution's (no other step makes them)
    bites: list[Fact] = []
    stakes: list[Fact] = []
    for e in result.events:
        if type(e) is Fact:
            if e.kind == "bite" and e.actor is not None:
                bites.append(e)
            elif e.kind == "stake":
                stakes.append(e)

    # ORD-13: conversions, grouped by target.
    biters: dict[PlayerId, list[PlayerId]] = {}
    dropped: dict[PlayerId, tuple[str, ...]] = {}
    for f in bites:
        if f.outcome == "vampirised":
            assert f.actor is not None
            biters.setdefault(f.targets[0], []).append(f.actor)
    seats = result.state.seats  # the hands as the resolution left them
    conversions: list[Event] = []  # folded at once
    for target, who in biters.items():
        conversions += (Converted(target, tuple(who)), Fact("converted", room_of(target), target))
        normals = tuple(o for o in seats[target].hand if o not in SPECIAL_OBJECTS)
        if normals:  # DRA-253
            conversions.append(
                Moved(normals, f"hand:{target}", f"floor:{room_of(target)}", "dropped")
            )
            dropped[target] = normals
    b.add(*conversions)

    # ORD-14: the step-5 notices, all together.
    for target, who in biters.items():  # DRA-140, DRA-141
        # DRA-253: told what fell, never « your objects fell » to who held none
        b.note(
            private(
                "dracula/converted",
                [target],
                t,
                count=len(who),
                dropped=list(dropped.get(target, ())),
            )
        )
    for f in bites:
        assert f.actor is not None
        if f.outcome == "vampire":  # DRA-116
            b.note(private("dracula/bit_vampire", [f.actor], t, target=f.targets[0]))
        elif f.outcome == "crucifix":  # DRA-272
            b.note(private("dracula/crucifix_biter", [f.actor], t, target=f.targets[0]))
        elif f.outcome == "vampirised" and before.options.notify_successful_bite:  # AMB-060
            b.note(private("dracula/bite_succeeded", [f.actor], t, target=f.targets[0]))
    bitten_vampires: dict[PlayerId, int] = {}
    crossed: dict[PlayerId, int] = {}
    for f in bites:
        if f.outcome == "vampire":
            bitten_vampires[f.targets[0]] = bitten_vampires.get(f.targets[0], 0) + 1
        if f.outcome == "crucifix":
            crossed[f.targets[0]] = crossed.get(f.targets[0], 0) + 1
    for v, n in bitten_vampires.items():  # DRA-143
        count = n if before.options.bitten_vampire_gets_count else None
        b.note(private("dracula/bitten_too", [v], t, count=count))
    for h, n in crossed.items():  # DRA-273
        b.note(private("dracula/crucifix_holder", [h], t, count=n))
    if stakes:  # DRA-322, NTF-25: every sanctuary occupant witnesses
        occupants = before.present(SANCTUARY)
        scenes = [{"user": f.actor, "target": f.targets[0], "outcome": f.outcome} for f in stakes]
        b.note(private("dracula/stake_scene", occupants, t, scenes=scenes))
        for f in stakes:
            if f.outcome == "dies":  # DRA-326, NTF-26
                b.note(private("dracula/staked_dead", [f.targets[0]], t))
    if dance is not None and not (
        b.state.options.staked_orders_apply or b.state.seats[dance.actor].alive
    ):  # AMB-049 staked_orders_apply = false: a staked holder's waltz does not happen
        dance = None
    if dance is not None:  # AMB-049: a dance ordered by a staked holder still happens
        end = now + before.options.dance_reply
        b.add(
            Danced(dance.actor, dance.targets[0]),
            Fact("dance", room_of(dance.actor), dance.actor, dance.targets),
            private(
                "dracula/waltz",
                [dance.targets[0]],
                t,
                text=dance.text,
                deadline=iso(end),
                replies=before.options.dance_replies,
            ),  # DRA-403, DRA-404, NTF-27
            PhaseStarted("dance_reply", before.number, {"dance_reply": end}),
        )
        return
    dawn(b, now, rng)


def close_dance_reply(b: Batch[DraculaState], now: datetime, rng: random.Random) -> None:
    """ORD-15: the waltz partner's replies reach the phonograph holder (DRA-405, AMB-058,
    NTF-28); then dawn."""
    s = b.state
    if s.dance is not None:
        holder, partner = s.dance
        for reply in s.replies(partner):  # DRA-405, AMB-058, NTF-28: each one at the close
            b.note(private("dracula/waltz_reply", [holder], thread(s), text=reply.text))
    dawn(b, now, rng)


# -- ORD-16 … ORD-21: dawn ---------------------------------------------------------------------


def dawn(b: Batch[DraculaState], now: datetime, rng: random.Random) -> None:
    """ORD-16 … ORD-21: dawn: Night 2's objects delivered (DRA-204), objects picked up and
    destroyed (DRA-161, DRA-361), the paintings read (DRA-165), the grimoire's new holder's
    curse window (AMB-053)."""
    s = b.state
    t = thread(s)
    received: dict[PlayerId, list[str]] = {}
    moves: list[Event] = []  # folded at once: a delivery changes no side, no floor
    for p, obj in sorted(s.assignment.items()):  # ORD-16, DRA-204, DRA-205
        pid = PlayerId(p)
        if s.seats[pid].human:
            moves.append(Moved((obj,), f"assigned:{p}", f"hand:{p}", "received"))
            received[pid] = [obj]
        else:
            room = s.position(pid) or ORDINARY[0]
            moves.append(Moved((obj,), f"assigned:{p}", f"floor:{room}", "undelivered"))
    b.add(*moves)
    picked: dict[PlayerId, list[str]] = {}
    s = b.state
    thief = s.holder(MANUAL)
    grimoire_before = s.holder(GRIMOIRE)
    pickups: list[Event] = []  # folded at once: a pickup changes its own room's floor only
    for room in ORDINARY:  # ORD-17: DRA-361 before DRA-161
        objects = s.floor.get(room, ())
        if not objects:
            continue
        humans = [p for p in s.present(room) if s.seats[p].human]
        taker: PlayerId | None = None
        if thief is not None and thief in humans:
            taker = thief
        elif len(humans) == 1:
            taker = humans[0]
        if taker is not None:
            pickups += (
                Moved(objects, f"floor:{room}", f"hand:{taker}", "picked"),
                Fact("pickup", room, taker, (), objects),
            )
            picked.setdefault(taker, []).extend(objects)
    b.add(*pickups)
    destroyed: list[str] = []
    s = b.state
    if thief is not None and not s.seats[thief].human:  # ORD-18, DRA-362, AMB-052
        room = s.position(thief) or SANCTUARY
        objects = s.floor.get(room, ())
        if room in ORDINARY and objects:
            b.add(
                Moved(objects, f"floor:{room}", "gone", "destroyed"),
                Fact("destroy", room, thief, (), objects),
            )
            destroyed = list(objects)
    s = b.state
    new_grimoire = s.holder(GRIMOIRE) if grimoire_before is None else None
    window = s.options.dawn_curse.total_seconds() > 0 and new_grimoire is not None
    for p, objs in received.items():  # NTF-29
        b.note(private("dracula/received_object", [p], t, objects=objs))
    for p, objs in picked.items():  # DRA-163, NTF-30
        b.note(private("dracula/picked_up", [p], t, objects=objs))
    if destroyed and thief is not None and s.options.notify_destroyed:  # NTF-31
        b.note(private("dracula/destroyed", [thief], t, objects=destroyed))
    for f in s.facts:  # NTF-36
        if f.kind == "paint_void" and f.actor is not None:
            b.note(private("dracula/paint_void", [f.actor], t, room=f.room))
    for room, (_, text) in sorted(s.paintings.items()):  # ORD-20, DRA-165, DRA-392
        readers = [p for p in s.present(room) if s.seats[p].human]
        if s.options.paint_repeat == "first_time_per_player":  # AMB-057
            readers = [p for p in readers if p not in s.painting_readers.get(room, ())]
            if readers:
                b.add(PaintingRead(room, tuple(readers)))
        if readers:
            b.note(private("dracula/painting", readers, t, room=room, text=text))
    if window and new_grimoire is not None:  # ORD-21, AMB-053, NTF-33
        end = now + s.options.dawn_curse
        b.note(private("dracula/dawn_curse", [new_grimoire], t, deadline=iso(end)))
        b.add(PhaseStarted("dawn_curse", s.number, {"dawn_curse": end}))
        return
    end_night(b, now)


def close_dawn_curse(b: Batch[DraculaState], now: datetime, rng: random.Random) -> None:
    """ORD-21: the grimoire's dawn window closes: the night ends."""
    end_night(b, now)


# -- ORD-22 … ORD-24: end of night and morning ---------------------------------------------------


def candle_report(s: DraculaState, room: str) -> dict[str, Any]:
    """AMB-046: who was there, the bites, the object uses, the pickups and destructions."""
    o = s.options
    lines = []
    for f in s.facts:
        if f.room != room or f.kind in ("converted", "paint_void"):
            continue
        text = ""
        if f.kind == "paint" and o.candle_shows_paint_text and room in s.paintings:
            text = s.paintings[room][1]
        hide = f.kind == "curse" and not o.candle_shows_curse_targets
        lines.append(
            {
                "kind": f.kind,
                "actor": f.actor or "",
                "targets": [] if hide else list(f.targets),
                "objects": list(f.items),
                "outcome": f.outcome,
                "text": text,
            }
        )
    return {"room": room, "present": s.present(room), "lines": lines}


def end_night(b: Batch[DraculaState], now: datetime) -> None:
    """ORD-22, ORD-23: the night's curses fall (DRA-370 … DRA-372, AMB-049), the candle reports
    go out (DRA-292) and the cursed are told (DRA-373, AMB-054)."""
    s = b.state
    t = thread(s)
    curses: list[Order] = []  # AMB-053
    defaults: dict[PlayerId, list[dict[str, Any]]] = {}
    # AMB-049 staked_orders_apply = false: a staked curser's curses fall, unless his targets
    # were told at once (AMB-054)
    void = not s.options.staked_orders_apply and s.options.curse_notice != "immediate"
    for (actor, verb), order in s.orders.items():  # one pass: the curses and AMB-003's defaults
        if verb.startswith("curse") and not (void and not s.seats[actor].alive):
            curses.append(order)
        if order.default:
            defaults.setdefault(actor, []).append(
                {"verb": verb, "word": order.word or "", "targets": list(order.targets)}
            )
    falling: list[Event] = []  # folded at once
    for curse in curses:  # DRA-370 … DRA-372
        falling.append(
            Fact("curse", s.position(curse.actor) or SANCTUARY, curse.actor, curse.targets)
        )
        falling += [Cursed(target) for target in curse.targets]
    b.add(*falling)
    s = b.state
    for room in s.room_of_use(CANDLE):  # ORD-22, DRA-292, AMB-045
        present = s.present(room)
        if present:
            b.note(private("dracula/candle_report", present, t, **candle_report(s, room)))
    for p in s.newly_cursed if s.options.curse_notice == "end_of_night" else ():
        b.note(private("dracula/cursed", [p], t))  # ORD-23, DRA-373, NTF-35, AMB-054
    for p, items in defaults.items():  # AMB-003, NTF-37
        b.note(private("dracula/defaults", [p], t, defaults=items))


def morning_params(s: DraculaState) -> dict[str, Any]:
    """NTF-38: DRA-181 … DRA-186, AMB-055, AMB-059, AMB-079."""
    converted = 0
    lost: dict[str, list[str]] = {}
    dead_now: dict[PlayerId, None] = {}  # two stakes may kill one vampire: told once (DRA-184)
    nauseous: set[PlayerId] = set()
    for f in s.facts:  # one pass over the night's facts
        kind = f.kind
        if kind == "converted":
            converted += 1
        elif kind == "lost":  # as lost_objects
            lost[f.targets[0]] = list(f.items)
        elif kind == "stake":
            if f.outcome == "dies":
                dead_now[f.targets[0]] = None
        elif kind == "nausea" and f.actor is not None:
            nauseous.add(f.actor)
    killed = [{"name": p, "objects": lost.get(p, [])} for p in dead_now]
    livid = sorted(nauseous)
    total = 0
    positions = []
    seats, position = s.seats, s.position
    for p in s.order:
        seat = seats[p]
        total += seat.cursed
        killed_now = p in dead_now
        if not seat.alive and not killed_now:
            positions.append({"name": p, "position": "dead", "killed": False})
        else:
            positions.append({"name": p, "position": position(p) or "-", "killed": killed_now})
    whole_round = s.options.cursed_count == "total"
    cursed = total if whole_round else len(s.newly_cursed)
    return {
        "vampirised": converted,
        "cursed": cursed,
        # AMB-055: « total » counts the whole round, not the night: the sentence says which
        "cursed_scope": "round" if whole_round else "night",
        "cursed_total": total if s.options.cursed_count == "both" else None,
        "positions": positions,
        "killed": killed,
        "livid": livid,
        "pairs": [{"naming": a, "named": n} for a, n in s.pairs.items()] if s.number == 4 else [],
    }


def morning(b: Batch[DraculaState], next_deadline: datetime | None) -> None:
    """ORD-24: the morning post (DRA-180 … DRA-188), and the telepathy held for the vampires
    (DRA-425, AMB-071)."""
    s = b.state
    t = thread(s, "morning")
    b.note(
        public(
            "dracula/morning",
            t,
            round=s.round,
            night=s.number,
            next_day=s.number + 1 if next_deadline is not None else None,
            deadline=iso(next_deadline) if next_deadline is not None else None,
            **morning_params(s),
        )
    )
    if s.telepathy_held is not None:  # DRA-425, DRA-187, NTF-39, AMB-071
        recipients = [v for v in s.vampires() if not s.seats[v].dracula]
        if recipients:
            b.note(private("dracula/telepathy", recipients, t, text=s.telepathy_held))
        b.add(Telepathy(s.telepathy_held, False))


def lost_objects(state: DraculaState) -> Mapping[str, list[str]]:
    """The objects each bitten human dropped tonight (DRA-253), by player."""
    return {f.targets[0]: list(f.items) for f in state.facts if f.kind == "lost"}


def curse_reminders(b: Batch[DraculaState], deadline: datetime) -> None:
    """Each cursed player is reminded that his first post of the day must declare a room
    (DRA-374 … DRA-377), before ``deadline``."""
    s = b.state
    seats = s.seats
    cursed = [p for p in s.living() if seats[p].cursed]
    if not cursed:
        return
    t, day, due = thread(s, "day"), s.number, iso(deadline)
    for p in cursed:  # AMB-056.8, NTF-45
        b.note(private("dracula/curse_reminder", [p], t, day=day, deadline=due))


__all__ = [
    "close_bites",
    "close_dance_reply",
    "close_dawn_curse",
    "close_dracula_room",
    "close_magnifier",
    "close_rooms",
    "iso",
    "morning",
    "open_night",
]
