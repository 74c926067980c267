"""The seating a village state keeps (issue 23: who lives, who holds which card) and derives
after a death from the one before (LUP-607: the dead take no part; LG-100 alike): at every
event of whole Lupus and Loup-Garou games, it is what a fresh reading of the seats says."""

from __future__ import annotations

import random

import pytest

from pbem.balance.fastgame import RulesGame, play_rules
from pbem.core.events import PlayerDied
from pbem.games.village.state import _seating, read_seating
from pbem.tools.demo import demo_setup


@pytest.mark.parametrize(
    ("game", "players", "seed"), [("lupus-in-tabula", 16, 1), ("loup-garou", 0, 2)]
)
def test_the_kept_seating_is_a_fresh_reading_at_every_event(
    game: str, players: int, seed: int
) -> None:
    played = play_rules(RulesGame.new(demo_setup(game, players, seed, "fr")), random.Random(seed))
    assert played.finished
    rules = played.rules
    state = rules.new_state()
    deaths = 0
    for event in played.ruled:
        if state.seats:
            _seating(state.seats, state.order)  # asked at each event, as the rules ask it
        state = rules.evolve(state, event)
        deaths += isinstance(event, PlayerDied)
        if state.seats:
            assert _seating(state.seats, state.order) == read_seating(state.seats, state.order)
            assert state.living() == [p for p in state.order if state.seat(p).alive]
    assert deaths >= 3
