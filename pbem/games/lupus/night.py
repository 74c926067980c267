"""Lupus in Tabula's nights resolved at their deadline, in the order of LUP-216 (the night
falls in :mod:`pbem.games.lupus.nightfall`)."""

from __future__ import annotations

import random
from datetime import datetime

from pbem.core.errors import IllegalNow
from pbem.core.events import (
    ActionSet,
    Event,
    PlayerDied,
    RoleChanged,
    private,
)
from pbem.core.folded import Batch
from pbem.core.ids import PlayerId
from pbem.core.match import fold
from pbem.core.resolve import Intent, Veto, resolve
from pbem.games.lupus import ending
from pbem.games.lupus.roles import (
    HAMSTER,
    MYTH,
    NIGHT_ORDER,
    SEER,
    WOLF,
)
from pbem.games.lupus.state import LupusState, NightResolved, evolve
from pbem.games.village.voting import ranked


def resolve_night(state: LupusState, now: datetime, rng: random.Random) -> list[Event]:
    """The night resolves at its deadline in the order of LUP-216."""
    o = state.options
    day = state.number
    thread = f"day-{day}"

    # LUP-D05: the council's victim, a tie broken by a recorded draw.
    kill_votes: dict[PlayerId, int] = {}  # in arrival order, as ranked() keeps ties
    kills: dict[PlayerId, PlayerId] = {}  # each wolf's victim, for the trace's actors
    seats = state.seats
    owl: PlayerId | None = None  # the Owl's designee (LUP-D11), the first one recorded
    protected: set[PlayerId] = set()  # LUP-341: the Bodyguard's ward
    for (actor, verb), (_, a) in state.actions.items():  # one reading of the night's actions
        if verb == "kill":
            if seats[actor].role == WOLF:
                kill_votes[a.targets[0]] = kill_votes.get(a.targets[0], 0) + 1
                kills[actor] = a.targets[0]
        elif verb == "nominate":
            if owl is None:
                owl = a.targets[0]
        elif verb == "protect":
            protected.add(a.targets[0])
    top = ranked(kill_votes)
    drawn: tuple[PlayerId, ...] = ()
    victim: PlayerId | None = None
    if top and len(top[0]) == 1:
        victim = top[0][0]
    elif top and o.wolves_tie == "random":
        drawn = tuple(top[0])
        victim = rng.choice(drawn)

    probe = night_probe(state)
    myth_choice = myth_target(state, rng)

    resolved = NightResolved(victim, drawn, probe, owl)
    intents: list[Intent] = []
    if probe is not None and state.seat(probe).role == HAMSTER:
        # LUP-372: the probe kills the Werehamster; its Seers (LUP-D07: both, if they agreed)
        # are named in the trace, as the wolves are (the archive's « (par …) »)
        probers = tuple(
            actor
            for (actor, verb), (_, a) in state.actions.items()
            if verb == "scan" and seats[actor].role == SEER and a.targets[0] == probe
        )
        intents.append(Intent("kill", probe, "probe", NIGHT_ORDER["scan"], probers))
    if victim is not None:
        # LUP-300, LUP-D05: the Werewolves who named the victim (the archive's « (par …) »)
        pack = tuple(wolf for wolf, target in kills.items() if target == victim)
        intents.append(Intent("kill", victim, "wolves", NIGHT_ORDER["kill"], pack))

    def bodyguard(s: LupusState, intent: Intent) -> Veto | None:
        # LUP-341, LUP-D09: only against the wolves, not against the Seer's probe.
        return (
            Veto("bodyguard") if intent.cause == "wolves" and intent.target in protected else None
        )

    def werehamster(s: LupusState, intent: Intent) -> Veto | None:
        is_hamster = s.seat(intent.target).role == HAMSTER
        return Veto("werehamster") if intent.cause == "wolves" and is_hamster else None  # LUP-371

    def die(s: LupusState, intent: Intent) -> list[Event]:
        return [PlayerDied(intent.target, intent.cause)] if s.seat(intent.target).alive else []

    batch = Batch(state, evolve)
    after = batch.add(resolved)
    result = resolve(after, "night", intents, [bodyguard, werehamster], die, evolve)
    batch.add_folded(result.events, result.state)
    after = result.state

    # LUP-381, LUP-D14: the Mythomaniac takes the role after the attacks (so a victim of
    # Night 2 dies unchanged) and acts in it from Night 3.
    myth_notices: list[Event] = []
    if myth_choice is not None:
        myth, target = myth_choice
        became = state.seat(target).role if state.seat(target).role in (WOLF, SEER) else None
        if after.seat(myth).alive:
            partners = [p for p in (after.holders(became) if became else []) if p != myth]
            if became:
                after = batch.add(RoleChanged(myth, became))
                if partners:
                    myth_notices.append(
                        private("lupus/myth_joined", partners, thread, myth=myth, role=became)
                    )
            myth_notices.insert(
                0,
                private(
                    "lupus/myth_result",
                    [myth],
                    thread,
                    target=target,
                    became=became,
                    partners=partners,
                ),
            )

    # Dawn, private first (LUP-720..LUP-722), then public (LUP-730).
    seats_after = after.seats
    if probe is not None and o.seer_result_timing == "dawn":
        seers = [s for s in state.holders(SEER) if seats_after[s].alive]  # LUP-D06
        if seers:
            batch.add(
                private(
                    "lupus/seer_result",
                    seers,
                    thread,
                    target=probe,
                    is_wolf=state.seat(probe).role == WOLF,
                )
            )
    batch.add(*myth_notices)
    council = [w for w in state.holders(WOLF) if seats_after[w].alive]
    if council:
        batch.add(
            private("lupus/wolves_victim", council, thread, victim=victim, drawn_among=list(drawn))
        )
    dead = sorted((p for p in state.living() if not seats_after[p].alive), key=fold)
    ending.after_deaths(
        batch,
        now,
        "lupus/dawn",
        thread,
        dead=dead,
        # LUP-D11 (2), (4): announced at dawn only if it stands (a dead designee lapses).
        owl=owl if o.owl_pick_announced == "dawn" and owl and after.seat(owl).alive else None,
    )
    return batch.events


def night_probe(state: LupusState) -> PlayerId | None:
    """LUP-D07: the pair's probe is the last one received (or agreed, ``require_same``)."""
    probes = sorted(
        (seq, a)
        for (actor, v), (seq, a) in state.actions.items()
        if v == "scan" and state.seat(actor).role == SEER
    )
    if not probes:
        return None
    if (
        state.options.seer_pair_agreement == "require_same"
        and len({a.targets[0] for _, a in probes}) > 1
    ):
        return None
    return probes[-1][1].targets[0]


def myth_target(state: LupusState, rng: random.Random) -> tuple[PlayerId, PlayerId] | None:
    """LUP-380, LUP-D14: the Mythomaniac's choice on Night 2 (drawn if missing)."""
    if state.number != 2:
        return None
    for myth in state.holders(MYTH):
        chosen = state.action(myth, "copy")
        if chosen is not None:
            return myth, chosen.targets[0]
        if state.options.myth_if_missing == "random":  # LUP-D14
            others = [p for p in state.living() if p != myth]
            return myth, rng.choice(others)
    return None


def probe_made(state: LupusState) -> bool:
    """LUP-D04 alternative (``seer_result_timing = immediate``): the first valid probe of the
    night is final and answered, so a Seer's probe once made closes the night's probes."""
    return state.options.seer_result_timing == "immediate" and any(
        state.action(s, "scan") for s in state.holders(SEER)
    )


def decide_scan(state: LupusState, actor: PlayerId, target: PlayerId, thread: str) -> list[Event]:
    """The Seer's probe (LUP-610), relayed to the other Seer or answered at once."""
    seers = state.holders(SEER)
    others = [s for s in seers if s != actor]
    if state.options.seer_result_timing == "immediate":
        if probe_made(state):
            raise IllegalNow("already_final")
        is_wolf = state.seat(target).role == WOLF
        return [
            ActionSet(actor, "scan", (target,)),
            private("lupus/seer_result", seers, thread, target=target, is_wolf=is_wolf),
        ]
    events: list[Event] = [ActionSet(actor, "scan", (target,))]
    if others:  # LUP-712: each probe relayed to the other Seer
        events.append(private("lupus/seer_relay", others, thread, sender=actor, target=target))
    return events
