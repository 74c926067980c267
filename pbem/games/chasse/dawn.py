"""Chasse aux sorcières' dawn: the deaths, the lovers' grief (:mod:`pbem.games.chasse.grief`)
and Prue's trigger (:mod:`pbem.games.chasse.revenge`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pbem.core.events import Event, PhaseStarted, PlayerDied, public
from pbem.core.match import fold
from pbem.core.resolve import Intent, Veto, resolve
from pbem.games.chasse import revenge, victory
from pbem.games.chasse.grief import grief_deaths, grief_params
from pbem.games.chasse.roles import NIGHT_STEPS, PAIGE, PIPER
from pbem.games.chasse.state import ChasseState, evolve, evolve_all, iso
from pbem.games.village.cards import PowerSpent


def dawn(state: ChasseState, now: datetime) -> list[Event]:
    """CAS-225, CAS-230..CAS-235: Piper's kill, Paige's heal, then the morning."""
    o = state.options
    day = state.number
    thread = f"day-{day}"
    events: list[Event] = []
    piper = state.holder(PIPER)
    paige = state.holder(PAIGE)
    burn = state.action(piper, "burn") if piper and PIPER not in state.spent else None
    heal = state.action(paige, "heal") if paige and PAIGE not in state.spent else None
    # CAS-D16 (4): usage lines for the powers unused at dusk whose card is not revealed.
    revealed = {state.seat(p).role for p in state.order if not state.alive(p)}
    lines = {
        card: (used is not None)
        for card, used in ((PIPER, burn), (PAIGE, heal))
        if card not in state.spent and card not in revealed
    }
    if burn is not None:
        events.append(PowerSpent(PIPER))  # CAS-340: once per game
    if heal is not None:
        events.append(PowerSpent(PAIGE))  # CAS-350: once per game
    intents: list[Intent] = []
    if state.victim is not None:
        intents.append(Intent("kill", state.victim, "demons", NIGHT_STEPS["kill"]))
    burned = burn.targets[0] if burn is not None else None
    if burn is not None and burned is not None:
        intents.append(Intent("kill", burned, "piper", NIGHT_STEPS["burn"], (burn.actor,)))

    def paige_heals(s: ChasseState, intent: Intent) -> Veto | None:
        # CAS-343, CAS-353, CAS-D15: Paige heals the Demons' victim only.
        return Veto("paige") if heal is not None and intent.cause == "demons" else None

    def die(s: ChasseState, intent: Intent) -> list[Event]:
        return [PlayerDied(intent.target, intent.cause)] if s.alive(intent.target) else []

    after = evolve_all(events, state)
    result = resolve(after, f"night-{day}", intents, [paige_heals], die, evolve)
    events += result.events
    after = result.state
    grief = grief_deaths(after)  # CAS-234, CAS-335
    events += grief
    after = evolve_all(grief, after)
    dead = sorted(
        (p for p in state.living() if not after.alive(p) and after.seat(p).cause != "grief"),
        key=fold,
    )
    params: dict[str, Any] = {
        "day": day,
        "dead": [{"name": p, "role": after.seat(p).role} for p in dead],
        "grief": grief_params(grief, after),
        "lines": lines,
        "burned": burned if o.attribute_piper_kill else None,
    }
    prue = revenge.prue_trigger(state, after, ("demons",))  # CAS-235, CAS-320, CAS-D17
    ended = victory.check_victory(after)  # CAS-104, CAS-D22 (a)
    if ended:  # CAS-721, CAS-105: no day, no revenge
        return [
            *events,
            public("chasse/dawn", thread, deadline=None, revenge=None, **params),
            *ended,
        ]
    t_day = now + o.day_duration
    events.append(PhaseStarted("day", day, {"day": t_day}))
    revenge_until = now + o.revenge_window if prue else None
    events.append(
        public(
            "chasse/dawn",
            thread,
            deadline=iso(t_day),
            revenge={"prue": prue, "until": iso(revenge_until)} if prue and revenge_until else None,
            **params,
        )
    )
    if prue and revenge_until:
        events += revenge.open_revenge(prue, revenge_until, "dawn", thread)
    return events
