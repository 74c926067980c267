"""Lupus in Tabula's nights: the prompts, then the night resolved at its deadline in the order of
LUP-216."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from pbem.core.errors import IllegalNow
from pbem.core.events import (
    ActionSet,
    Event,
    Notice,
    PlayerDied,
    RoleChanged,
    private,
    public,
)
from pbem.core.folded import Batch
from pbem.core.ids import PlayerId
from pbem.core.match import fold
from pbem.core.moments import iso
from pbem.core.resolve import Intent, Veto, resolve
from pbem.games.lupus import ending
from pbem.games.lupus.roles import (
    HAMSTER,
    MASON,
    MEDIUM,
    MYTH,
    NIGHT_ORDER,
    ROLE_TABLE,
    SEER,
    WOLF,
    acts_on_night,
)
from pbem.games.lupus.state import LupusState, NightResolved, evolve, phase_started
from pbem.games.village.voting import ranked


def _wolves_params(state: LupusState, holder: PlayerId, holders: list[PlayerId]) -> dict[str, Any]:
    """LUP-711, LUP-D05: the pack's list every night, and the tie rule in force."""
    return {"wolves": holders, "tie": state.options.wolves_tie}


def _seer_params(state: LupusState, holder: PlayerId, holders: list[PlayerId]) -> dict[str, Any]:
    """LUP-D04, LUP-D07: the other Seer, and the options in force."""
    return {
        "partners": [s for s in holders if s != holder],
        "immediate": state.options.seer_result_timing == "immediate",
        "require_same": state.options.seer_pair_agreement == "require_same",
    }


PromptParams = Callable[[LupusState, PlayerId, list[PlayerId]], dict[str, Any]]

# The prompts that say more than the deadline: the hooks of the table's odd cards.
PROMPT_PARAMS: Mapping[str, PromptParams] = {
    WOLF: _wolves_params,
    SEER: _seer_params,
}


@functools.lru_cache(maxsize=32)
def prompted(number: int) -> tuple[tuple[str, str, PromptParams | None], ...]:
    """LUP-711: the cards prompted on night ``number`` (those with a prompt and an action
    that night, LUP-380), in the table's order, each with its prompt and what it says beyond
    the deadline (the same every game: worked out once per night number, issue 23)."""
    return tuple(
        (card.id, card.prompt, PROMPT_PARAMS.get(card.id))
        for card in ROLE_TABLE
        if card.prompt is not None and acts_on_night(card.id, number)
    )


def _nightfall(number: int, end: datetime) -> tuple[str, str, Notice]:
    """Night ``number``'s deadline as written, its thread and its public notice (LUP-604),
    kept per night and deadline (bounded at 256): games set up alike fall into each night at
    the same time, thousands of them in a balance run (issue 23); a notice is read only."""
    key = (number, end)
    found = _NIGHTFALLS.get(key)
    if found is None:
        if len(_NIGHTFALLS) >= 256:  # a table's times change from game to game
            _NIGHTFALLS.clear()
        deadline, thread = iso(end), f"night-{number}"
        notice = public("lupus/night_start", thread, number=number, deadline=deadline)
        found = _NIGHTFALLS[key] = (deadline, thread, notice)
    return found


_NIGHTFALLS: dict[tuple[int, datetime], tuple[str, str, Notice]] = {}


def _prompt(prompt: str, holder: PlayerId, thread: str, deadline: str) -> Notice:
    """``private(prompt, [holder], thread, deadline=deadline)``, kept (bounded at 4,096): a
    card's prompt that says the deadline alone is the same notice in every game that deals
    him the card and falls into that night at that time (LUP-711)."""
    key = (prompt, holder, thread, deadline)
    found = _PROMPTS.get(key)
    if found is None:
        if len(_PROMPTS) >= 4096:
            _PROMPTS.clear()
        found = _PROMPTS[key] = Notice(prompt, (holder,), False, {"deadline": deadline}, thread)
    return found


_PROMPTS: dict[tuple[str, PlayerId, str, str], Notice] = {}


def start_night(batch: Batch[LupusState], number: int, now: datetime) -> None:
    """Night ``number`` falls: the prompts of every night role (LUP-711), added to ``batch``."""
    end = now + batch.state.options.night_duration
    deadline, thread, nightfall = _nightfall(number, end)
    state = batch.add(phase_started("night", number, end), nightfall)
    living = state.living_holders()
    prompts: list[Event] = []  # notices all: added at once, the state read is this one
    for card, prompt, params_of in prompted(number):  # LUP-711: each card that acts tonight
        found = living.get(card)
        if not found:
            continue
        holders = list(found)
        for holder in holders:
            if params_of is None:  # the deadline alone: the same notice in every game
                prompts.append(_prompt(prompt, holder, thread, deadline))
                continue
            # private(prompt, [holder], thread, deadline=…, **its params), built without
            # packing them into keywords and out again (+1 % of a 16-player game's instructions)
            params: dict[str, Any] = {"deadline": deadline}
            params.update(params_of(state, holder, holders))
            prompts.append(Notice(prompt, (holder,), False, params, thread))
    if number == 1:  # LUP-360, LUP-D12
        masons = list(living.get(MASON, ()))
        for mason in masons:
            others = [m for m in masons if m != mason]
            prompts.append(private("lupus/masons", [mason], thread, others=others))
    if number >= 2:  # LUP-320, LUP-D10
        for medium in living.get(MEDIUM, ()):
            lynched = state.lynched.get(number - 1)
            was_wolf = lynched is not None and state.seat(lynched).role == WOLF
            prompts.append(
                private(
                    "lupus/medium_result",
                    [medium],
                    thread,
                    day=number - 1,
                    lynched=lynched,
                    was_wolf=was_wolf,
                )
            )
    batch.add(*prompts)


def resolve_night(state: LupusState, now: datetime, rng: random.Random) -> list[Event]:
    """The night resolves at its deadline in the order of LUP-216."""
    o = state.options
    day = state.number
    thread = f"day-{day}"

    # LUP-D05: the council's victim, a tie broken by a recorded draw.
    kill_votes: dict[PlayerId, int] = {}  # in arrival order, as ranked() keeps ties
    seats = state.seats
    owl: PlayerId | None = None  # the Owl's designee (LUP-D11), the first one recorded
    protected: set[PlayerId] = set()  # LUP-341: the Bodyguard's ward
    for (actor, verb), (_, a) in state.actions.items():  # one reading of the night's actions
        if verb == "kill":
            if seats[actor].role == WOLF:
                kill_votes[a.targets[0]] = kill_votes.get(a.targets[0], 0) + 1
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
        intents.append(Intent("kill", probe, "probe", NIGHT_ORDER["scan"]))  # LUP-372
    if victim is not None:
        intents.append(Intent("kill", victim, "wolves", NIGHT_ORDER["kill"]))

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
