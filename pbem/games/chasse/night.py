"""Chasse aux sorcières' nights, driven by the sub-phase tables: each sub-phase resolved at its
deadline, then the next one opened (:mod:`pbem.games.chasse.nightfall`) or the dawn."""

from __future__ import annotations

import random
from datetime import datetime

from pbem.core.events import Event, private
from pbem.core.ids import PlayerId
from pbem.core.resolve import Intent, Veto, resolve
from pbem.games.chasse import dawn
from pbem.games.chasse.nightfall import leo_forced, start_subphase
from pbem.games.chasse.roles import (
    COLE,
    COOP,
    DEMON,
    LEO,
    NIGHT_STEPS,
    PHOEBE,
)
from pbem.games.chasse.state import ChasseState, VictimFixed, evolve, evolve_all
from pbem.games.chasse.subphases import night_sequence
from pbem.games.village.cards import PowerSpent, exchange_with_leftover, swap_cards
from pbem.games.village.events import LoversFormed


def close_subphase(state: ChasseState, now: datetime, rng: random.Random) -> list[Event]:
    """Resolve the sub-phase whose deadline passed, then start the next one (or the dawn)."""
    sequence = night_sequence(state.number)
    if state.phase == sequence[-1]:
        return dawn.dawn(state, now)  # CAS-225
    resolvers = {"L": resolve_l, "C": resolve_c, "W1": resolve_w1}
    events = resolvers[state.phase](state, rng)
    after = evolve_all(events, state)
    nxt = sequence[sequence.index(state.phase) + 1]
    return events + start_subphase(after, nxt, state.number, now)


def resolve_l(state: ChasseState, rng: random.Random) -> list[Event]:
    """CAS-222, CAS-361..CAS-366, CAS-D04: Léo's choice applies at ``T_L``."""
    leo = state.holder(LEO)
    if leo is None:
        return []
    events: list[Event] = []
    taken = state.action(leo, "take")
    card = taken.word if taken is not None else None
    if card is None and leo_forced(state):
        card = DEMON  # CAS-362, CAS-D04: forced, the two cards are identical
    if card is not None and card in state.leftover:
        events += exchange_with_leftover(state.leftover, leo, LEO, card)  # CAS-364
    events.append(  # CAS-711
        private("chasse/leo_result", [leo], "night-1", role=card or LEO, changed=bool(card))
    )
    return events


def resolve_c(state: ChasseState, rng: random.Random) -> list[Event]:
    """CAS-223, CAS-330..CAS-334, CAS-D06: the Lovers are formed and told at ``T_C``."""
    events: list[Event] = []
    coop = state.holder(COOP)
    chosen = state.action(coop, "lovers") if coop is not None else None
    lovers: tuple[PlayerId, ...] = ()
    how = "chosen"
    if chosen is not None and all(state.alive(p) for p in chosen.targets):
        lovers = chosen.targets
    elif state.options.lovers_if_missing == "random" and len(state.living()) >= 2:
        lovers, how = tuple(rng.sample(state.living(), 2)), "random"
    if lovers:
        events.append(LoversFormed(lovers, how))
        for lover in lovers:  # CAS-212, CAS-718
            partner = next(p for p in lovers if p != lover)
            role = state.seat(partner).role if state.options.lovers_told_partner_role else None
            events.append(private("chasse/lovers", [lover], "night-1", partner=partner, role=role))
    return events


def council_victim(state: ChasseState) -> tuple[PlayerId | None, tuple[PlayerId, ...]]:
    """CAS-410, CAS-D09: the last (or first) name received from a council member, and who
    sent that name (the archive's « (par …) »: not a member who named someone else)."""
    council = set(state.council())
    names = sorted(
        (seq, a)
        for (actor, verb), (seq, a) in state.actions.items()
        if verb == "kill" and actor in council and state.alive(a.targets[0])
    )
    if not names:
        return None, ()
    victim = (names[-1] if state.options.council_submission == "last" else names[0])[1].targets[0]
    return victim, tuple(a.actor for _, a in names if a.targets[0] == victim)


def resolve_w1(state: ChasseState, rng: random.Random) -> list[Event]:
    """CAS-223: step 7 (Phoebe, before the swap), step 8 (the victim), step 9 (Cole)."""
    number = state.number
    thread = f"night-{number}"
    victim, senders = council_victim(state)  # senders: who named the victim
    intents: list[Intent] = []
    phoebe = state.holder(PHOEBE)
    probe = state.action(phoebe, "scan") if phoebe is not None else None
    if phoebe is not None and probe is not None:
        intents.append(Intent("scan", probe.targets[0], "phoebe", NIGHT_STEPS["scan"], (phoebe,)))
    if victim is not None:
        intents.append(Intent("victim", victim, "council", NIGHT_STEPS["kill"], senders))
    cole = state.holder(COLE)
    swap = state.action(cole, "swap") if cole is not None and state.cole_active() else None
    if cole is not None and swap is not None:
        intents.append(Intent("swap", swap.targets[0], "cole", NIGHT_STEPS["swap"], (cole,)))

    def living_target(s: ChasseState, intent: Intent) -> Veto | None:
        return None if s.alive(intent.target) else Veto("target_dead")

    def effect(s: ChasseState, intent: Intent) -> list[Event]:
        target = intent.target
        if intent.kind == "scan":  # CAS-315, CAS-715, CAS-D13
            role = s.seat(target).role
            return [
                private("chasse/phoebe_result", intent.actors, thread, target=target, role=role)
            ]
        if intent.kind == "victim":
            return [VictimFixed(number, target)]
        return cole_swap(s, intent.actors[0], target, thread)

    events: list[Event] = []
    if victim is None:  # CAS-304: no name, no victim
        events.append(VictimFixed(number, None))
        state = evolve(state, events[0])
    council = state.council()
    result = resolve(state, f"night-{number}-W1", intents, [living_target], effect, evolve)
    events += result.events
    if council:  # CAS-715: the council learns the victim fixed (or none)
        events.append(private("chasse/council_victim", council, thread, victim=victim))
    return events


def cole_swap(state: ChasseState, cole: PlayerId, target: PlayerId, thread: str) -> list[Event]:
    """CAS-391..CAS-397, CAS-D11, CAS-D12: the cards are exchanged after step 8."""
    roles = {p: state.seat(p).role for p in state.order}
    got = roles[target]
    events: list[Event] = list(swap_cards(roles, cole, target))
    ended = got == DEMON  # CAS-394: Cole became a Demon, the power stops for good
    if ended:
        events.append(PowerSpent(COLE))
    events.append(
        private(
            "chasse/cole_result",
            [cole],
            thread,
            role=got,
            target=target,
            spent=got in state.spent,  # CAS-D07: a spent power moves with its card
        )
    )
    events.append(
        private(
            "chasse/cole_target",
            [target],
            thread,
            swapper=cole if state.options.cole_target_told_swapper else None,
            ended=ended,
        )
    )
    return events
