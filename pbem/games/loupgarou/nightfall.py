"""Night falls in Loup-Garou: the public announcement, then the council's and each night card's
prompt (LG-210, LG-710, LG-711, LG-D04, LG-D38, LG-D40).

Apart from :mod:`pbem.games.loupgarou.night`, which resolves the night into the dawn: the
election and the lynch let the next night fall, and the night's prompts list the pack the
election's bite also lists; in one module with the night's resolution they made an import
circle (night, dawn, election, victory).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from pbem.core.events import Event, PhaseStarted, private, public
from pbem.core.folded import Batch
from pbem.core.ids import PlayerId
from pbem.core.roles import prompt_of
from pbem.games.loupgarou.roles import (
    CARDS,
    GIRL,
    MASTER,
    PIPER,
    SEER,
    THIEF,
    THIEF_NIGHTS,
    VILLAGERS,
    WITCH,
    WOLF,
    WOLVES,
)
from pbem.games.loupgarou.state import LoupGarouState, evolve, iso


def start_night(
    state: LoupGarouState,
    number: int,
    now: datetime,
    extra: Mapping[str, datetime] | None = None,
) -> list[Event]:
    """LG-210, LG-710, LG-711: the public announcement, then the private prompts."""
    batch = Batch(state, evolve)
    open_night(batch, number, now, extra)
    return batch.events


def open_night(
    batch: Batch[LoupGarouState],
    number: int,
    now: datetime,
    extra: Mapping[str, datetime] | None = None,
) -> None:
    """:func:`start_night`'s events, added to ``batch`` (a close that ends with the night)."""
    o = batch.state.options
    t_a = now + o.night_council_duration
    t_end = t_a + o.night_witch_duration
    thread = f"night-{number}"
    started = PhaseStarted("night", number, {"council": t_a, "night": t_end, **(extra or {})})
    s = batch.add(started)
    events: list[Event] = [
        public("loupgarou/night_start", thread, number=number, council=iso(t_a), end=iso(t_end))
    ]
    council = list(s.council)
    joined = [p for p in council if p not in s.previous_council and s.seat(p).role == THIEF]
    left = [
        p
        for p in s.previous_council
        if p not in council and s.seat(p).alive and s.seat(p).role == THIEF
    ]
    for member in council:  # LG-711, LG-D38, LG-D40
        events.append(
            private(
                "loupgarou/council_prompt",  # the council's, by team (LG-510), not a card's
                [member],
                thread,
                number=number,
                wolves=wolf_list(s, council),
                detail=o.wolves_list_detail,
                joined=[j for j in joined if j != member],
                left=left,
                welcome=member in joined,
                deadline=iso(t_a),
                end=iso(t_end),
            )
        )
    for seer in s.holders(SEER):
        if s.powered(seer):
            events.append(private(prompt_of(CARDS, SEER), [seer], thread, end=iso(t_end)))
    for girl in s.holders(GIRL):
        if s.powered(girl):
            events.append(
                private(
                    prompt_of(CARDS, GIRL),
                    [girl],
                    thread,
                    matchmaking=number == 2,
                    end=iso(t_end),
                )
            )
    for piper in s.holders(PIPER):  # LG-394: the Piper never loses his power
        events.append(private(prompt_of(CARDS, PIPER), [piper], thread, end=iso(t_end)))
    for witch in s.holders(WITCH):
        if s.powered(witch) and not (s.life_used and s.death_used):
            events.append(
                private(
                    prompt_of(CARDS, WITCH),
                    [witch],
                    thread,
                    life=not s.life_used,
                    death=not s.death_used,
                    council=iso(t_a),
                    end=iso(t_end),
                )
            )
    for thief in s.holders(THIEF):
        choices = thief_choices(s, thief)
        if choices:
            events.append(
                private(
                    prompt_of(CARDS, THIEF),
                    [thief],
                    thread,
                    number=number,
                    choices=list(choices),
                    end=iso(t_end),
                )
            )
    batch.add(*events)  # prompts: notices, which change no state


def thief_choices(s: LoupGarouState, thief: PlayerId) -> tuple[str, ...]:
    """LG-321, LG-322, LG-316, LG-331, LG-D37: what the thief may ask tonight."""
    if s.phase != "night" or s.young_wolf == thief or not s.seat(thief).alive:
        return ()
    allowed = THIEF_NIGHTS.get(s.number, ())
    team = s.seat(thief).team
    out: list[str] = []
    if "wolf" in allowed and team == VILLAGERS and s.powered(thief):
        out.append("wolf")
    if "villager" in allowed and team == WOLVES:
        out.append("villager")
    return tuple(out)


def wolf_list(state: LoupGarouState, wolves: Sequence[PlayerId]) -> list[dict[str, str]]:
    """LG-D04: each Wolf's name, card and pack status."""
    out = []
    for w in wolves:
        role = state.seat(w).role
        if role == MASTER:
            status = "master"
        elif role == WOLF:
            status = "wolf"
        elif state.young_wolf == w:
            status = "young_wolf"
        else:
            status = "thief"
        out.append({"name": w, "role": role, "status": status})
    return out
