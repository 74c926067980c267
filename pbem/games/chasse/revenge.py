"""Prue's revenge: what triggers it (CAS-320, CAS-325, CAS-D17) and its window (CAS-D18)."""

from __future__ import annotations

from datetime import datetime

from pbem.core.commands import Command
from pbem.core.errors import IllegalNow
from pbem.core.events import Event, PlayerDied, private, public
from pbem.core.ids import PlayerId
from pbem.core.roles import prompt_of
from pbem.games.chasse import nightfall, victory
from pbem.games.chasse.grief import grief_deaths, grief_params
from pbem.games.chasse.roles import CARDS, PRUE
from pbem.games.chasse.state import ChasseState, RevengeClosed, RevengeOpened, evolve_all, iso


def open_revenge(prue: PlayerId, until: datetime, after: str, thread: str) -> list[Event]:
    """CAS-D18: Prue may retaliate until ``until``."""
    return [  # CAS-321, CAS-722, CAS-D18
        RevengeOpened(prue, until, after),
        private(prompt_of(CARDS, PRUE), [prue], thread, deadline=iso(until), after=after),
    ]


def revenge_closed(state: ChasseState, now: datetime) -> list[Event]:
    """CAS-324, CAS-D29: no answer, no revenge; after a lynch the night follows."""
    assert state.revenge is not None
    thread = f"day-{state.number}"
    events: list[Event] = [
        RevengeClosed(state.revenge.prue, None),
        public("chasse/revenge", thread, prue=state.revenge.prue, target=None, role=None, grief=[]),
    ]
    if state.revenge.after == "lynch":  # CAS-239
        return events + nightfall.start_night(evolve_all(events, state), state.number + 1, now)
    return events


def decide_revenge(
    state: ChasseState, actor: PlayerId, command: Command, now: datetime
) -> list[Event]:
    """CAS-319..CAS-323, CAS-619, CAS-D18: published at once, then grief and victory."""
    pending = state.revenge
    if pending is None or pending.prue != actor:
        raise IllegalNow("dead" if not state.alive(actor) else "no_revenge_now")
    target = command.targets[0]
    if not state.alive(target):
        raise IllegalNow("target_not_living", name=target)
    thread = f"day-{state.number}"
    events: list[Event] = [RevengeClosed(actor, target), PlayerDied(target, "revenge")]
    after = evolve_all(events, state)
    grief = grief_deaths(after)
    events += grief
    after = evolve_all(grief, after)
    events.append(
        public(
            "chasse/revenge",
            thread,
            prue=actor,
            target=target,
            role=after.seat(target).role,
            grief=grief_params(grief, after),
        )
    )
    ended = victory.check_victory(after)  # CAS-104, CAS-D22 (b)
    if ended:
        return events + ended
    if pending.after == "lynch":  # CAS-239
        return events + nightfall.start_night(after, state.number + 1, now)
    return events


def prue_trigger(
    before: ChasseState, after: ChasseState, causes: tuple[str, ...]
) -> PlayerId | None:
    """CAS-320, CAS-325, CAS-D17: a Prue eliminated by the Demons or lynched retaliates."""
    wanted = causes if after.options.prue_revenge_triggers == "demons,lynch" else None
    for p in before.living():
        seat = after.seat(p)
        if not seat.alive and seat.role == PRUE and (wanted is None or seat.cause in wanted):
            return p
    return None
