"""Night falls in Lupus in Tabula: the phase, its public notice (LUP-604) and each night
role's prompt (LUP-711), the Masons' first night (LUP-360) and the Medium's result (LUP-320).

Apart from :mod:`pbem.games.lupus.night`, which resolves the night: the day's end
(:mod:`pbem.games.lupus.ending`) lets the next night fall, and the night's resolution ends in
that same ending; one module for both was an import circle.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from pbem.core.events import Event, Notice, private, public
from pbem.core.folded import Batch
from pbem.core.ids import PlayerId
from pbem.core.moments import iso
from pbem.games.lupus.roles import MASON, MEDIUM, ROLE_TABLE, SEER, WOLF, acts_on_night
from pbem.games.lupus.state import LupusState, phase_started


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
