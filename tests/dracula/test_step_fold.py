"""What a new step of a Dracula round resets when its ``PhaseStarted`` is folded, and what it
leaves as it was, at every step of whole games: a day forgets yesterday's votes (DRA-045 a vote
stands for its day only) and the running tally's time (AMB-015), posts (DRA-374 the first post of each day), declarations and pairs
(DRA-224), and after the first day the designated (DRA-050 a designated night); the rooms
step forgets the last night's orders, facts, curses and dance; the final choice starts with no
order; every step notes the orders it found (AMB-007: those are final). The seats and the kept readings of untouched fields (the living) stay the same objects
(issue 23: a step copies the state once, and only what it resets is changed)."""

from __future__ import annotations

import dataclasses
import random

from pbem.balance.fastgame import RulesGame, play_rules
from pbem.core.events import PhaseStarted
from pbem.games.dracula.state import DraculaState, Seat, _quick_reseat, evolve
from pbem.tools.demo import demo_setup

_DAY = {"votes": (), "last_tally": None, "posted": frozenset(), "declared": {}, "pairs": {}}
_ROOMS = {"orders": {}, "facts": (), "newly_cursed": (), "dance": None}


def _expected(before: DraculaState, event: PhaseStarted) -> DraculaState:
    """The step's state as ``dataclasses.replace`` builds it from the rules' words."""
    changes: dict[str, object] = {
        "phase": event.phase,
        "deadlines": event.deadlines,
        "number": event.number,
    }
    if event.phase == "day":
        changes.update(_DAY)
        if event.number > 0:
            changes["designated"] = ()
    if event.phase == "rooms":
        changes.update(_ROOMS)
    if event.phase == "final_choice":
        changes["orders"] = {}
    changes["step_orders"] = changes.get("orders", before.orders)  # AMB-007: what it found
    return dataclasses.replace(before, **changes)  # type: ignore[arg-type]


def test_a_step_resets_what_it_starts_afresh_and_keeps_the_rest() -> None:
    steps: set[str] = set()
    for seed in (0, 1):
        game = play_rules(RulesGame.new(demo_setup("dracula", 0, seed, "fr")), random.Random(seed))
        assert game.finished
        state = DraculaState()
        for event in game.ruled:
            before = state
            living = before.living() if before.seats else None  # a kept reading
            state = evolve(state, event)
            if type(event) is not PhaseStarted:
                continue
            steps.add(event.phase)
            assert state == _expected(before, event), (seed, event)
            assert state.seats is before.seats
            if living is not None:
                assert state.__dict__["_living"] is before.__dict__["_living"]
    assert {"day", "rooms", "bites", "final_choice"} <= steps


def test_a_seat_a_fold_copies_is_the_seat_dataclasses_replace_builds() -> None:
    """Objects moved (DRA-250 hands), conversions (AMB-062 credits), curses (DRA-370) and the
    designated night (DRA-050) copy a seat's fields with the changes: the same seat, holding
    its fields only, as ``dataclasses.replace`` builds it."""
    names = [f.name for f in dataclasses.fields(Seat)]
    seen = 0
    game = play_rules(RulesGame.new(demo_setup("dracula", 0, 0, "fr")), random.Random(0))
    state = DraculaState()
    for event in game.ruled:
        before, state = state, evolve(state, event)
        for name, seat in state.seats.items():
            old = before.seats.get(name)
            if old is None or old is seat:
                continue
            changes = {n: getattr(seat, n) for n in names if getattr(old, n) != getattr(seat, n)}
            assert seat == dataclasses.replace(old, **changes), event  # type: ignore[arg-type]
            assert list(vars(seat)) == names, event
            assert _quick_reseat(old, **changes) == seat
            seen += 1
    assert seen > 20
