"""The readings a Dracula state keeps (issue 23: the living, the holders, the night's
positions and rooms, the bite statuses…) and hands on to the next state when an event leaves
their fields alone: at every event of whole games, each one says what a fresh computation
says (DRA-110 … DRA-113 bite statuses, DRA-227 pair rooms, DRA-281 garlic)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from pbem.balance.fastgame import RulesGame, play_rules
from pbem.games.dracula import night
from pbem.games.dracula.manor import ORDINARY, SANCTUARY
from pbem.games.dracula.state import _READ_FROM, DraculaState, evolve
from pbem.tools.demo import demo_setup


def _fresh(state: DraculaState) -> DraculaState:
    """The same fields, no reading kept."""
    return DraculaState(**{f.name: getattr(state, f.name) for f in dataclasses.fields(state)})


def _readings(state: DraculaState) -> dict[str, object]:
    """Everything read from ``state`` through its kept readings (asking fills them)."""
    read: dict[str, object] = {
        name: getattr(state, name) for name in _READ_FROM if name not in ("_uses", "bite_statuses")
    }
    read["positions"] = {p: state.position(p) for p in state.order}
    read["present"] = {room: state.present(room) for room in (*ORDINARY, SANCTUARY)}
    read["uses"] = {verb: state.room_of_use(verb) for verb in ("garlic", "candle")}
    if state.phase == "bites":
        read["bites"] = {v: night.bite_status(state, v) for v in state.vampires()}
    read["voted"] = {p: state.has_voted(p) for p in state.order}
    read["named"] = {p: state.is_named(p) for p in state.order}
    return read


@pytest.mark.parametrize("seed", [0, 1])
def test_kept_readings_say_what_a_fresh_state_says(seed: int) -> None:
    game = play_rules(RulesGame.new(demo_setup("dracula", 0, seed, "fr")), random.Random(seed))
    assert game.finished
    state = DraculaState()
    checked = 0
    for event in game.ruled:
        state = evolve(state, event)
        if state.seats:
            assert _readings(state) == _readings(_fresh(state)), (seed, event)
            checked += 1
    assert state == game.state
    assert checked > 500
