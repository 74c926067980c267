"""Night falls in Chasse aux sorcières: "Night N falls" with every sub-phase's deadline, and each
sub-phase opened with its prompts (CAS-202, CAS-238, CAS-703, CAS-712).

Apart from :mod:`pbem.games.chasse.night`, which resolves the sub-phases and leads to the dawn:
the dawn's revenge and the day's end let the next night fall, and one module for both was an
import circle (night, dawn, revenge).
"""

from __future__ import annotations

from datetime import datetime

from pbem.core.events import Event, PhaseStarted, private, public
from pbem.core.roles import prompt_of
from pbem.games.chasse.roles import BILLIE, CARDS, COLE, COOP, DEMON, LEO, PAIGE, PHOEBE, PIPER
from pbem.games.chasse.state import ChasseState, evolve, iso
from pbem.games.chasse.subphases import DURATION_OF, ChassePhase, night_sequence


def leo_forced(state: ChasseState) -> bool:
    """CAS-362: Léo must take a card when both leftover cards are Demons."""
    return len(state.leftover) == 2 and all(c == DEMON for c in state.leftover)  # CAS-362


def start_night(state: ChasseState, number: int, now: datetime) -> list[Event]:
    """CAS-202, CAS-238, CAS-703, CAS-712: "Night N falls" with every sub-phase deadline."""
    schedule: dict[str, str] = {}
    end = now
    for phase in night_sequence(number):
        end += getattr(state.options, DURATION_OF[phase])
        schedule[phase] = iso(end)
    notice = public("chasse/night_start", f"night-{number}", number=number, schedule=schedule)
    first = night_sequence(number)[0]
    return [notice, *start_subphase(state, first, number, now)]


def start_subphase(
    state: ChasseState, phase: ChassePhase, number: int, now: datetime
) -> list[Event]:
    """Open the sub-phase ``phase`` of night ``number`` with its prompts."""
    end = now + getattr(state.options, DURATION_OF[phase])
    started = PhaseStarted(phase, number, {phase: end})
    state = evolve(state, started)
    prompts = {
        "L": prompt_l,
        "C": prompt_c,
        "W1": prompt_w1,
        "W2": prompt_w2,
    }[phase]
    return [started, *prompts(state, f"night-{number}", iso(end))]


def prompt_l(state: ChasseState, thread: str, deadline: str) -> list[Event]:
    """Léo's prompt (sub-phase L of Night 1)."""
    leo = state.holder(LEO)
    if leo is None:  # CAS-366: the sub-phase runs all the same (CAS-226)
        return []
    return [  # CAS-210, CAS-360, CAS-710
        private(
            prompt_of(CARDS, LEO),
            [leo],
            thread,
            leftover=list(state.leftover),
            forced=leo_forced(state),
            deadline=deadline,
        )
    ]


def prompt_c(state: ChasseState, thread: str, deadline: str) -> list[Event]:
    """Coop's prompt (sub-phase C of Night 1)."""
    coop = state.holder(COOP)  # after Léo's exchange (CAS-222, CAS-X02)
    if coop is None:
        return []
    return [private(prompt_of(CARDS, COOP), [coop], thread, deadline=deadline)]  # CAS-717


def prompt_w1(state: ChasseState, thread: str, deadline: str) -> list[Event]:
    """The prompts of sub-phase W1: the council and the night cards."""
    events: list[Event] = []
    phoebe = state.holder(PHOEBE)
    if phoebe is not None:  # CAS-213, CAS-713
        events.append(private(prompt_of(CARDS, PHOEBE), [phoebe], thread, deadline=deadline))
    council = state.council()
    for member in council:  # CAS-214, CAS-302, CAS-381, CAS-D10: one list for all
        events.append(
            private(
                "chasse/council_prompt",
                [member],
                thread,
                council=council,
                billie=state.seat(member).role == BILLIE,
                deadline=deadline,
            )
        )
    cole = state.holder(COLE)
    if cole is not None and state.cole_active():  # CAS-215, CAS-395
        events.append(private(prompt_of(CARDS, COLE), [cole], thread, deadline=deadline))
    return events


def prompt_w2(state: ChasseState, thread: str, deadline: str) -> list[Event]:
    """CAS-224, CAS-716: Piper and Paige (after the swap) learn the victim."""
    events: list[Event] = []
    for card in (PIPER, PAIGE):  # CAS-341, CAS-345, CAS-351, CAS-355
        holder = state.holder(card)
        if holder is not None and card not in state.spent:
            events.append(
                private(
                    prompt_of(CARDS, card),
                    [holder],
                    thread,
                    victim=state.victim,
                    self_victim=state.victim == holder,
                    deadline=deadline,
                )
            )
    return events
