"""``GameEnded.termination`` is the :class:`Termination` enum end to end (issue 11), while a
store keeps the string it always held: an old log loads, a new one is written the same."""

from __future__ import annotations

from pbem.core.events import COMMON_EVENTS, EventCodec, GameEnded
from pbem.core.ids import PlayerId
from pbem.core.outcome import Termination
from pbem.games.lupus.rules import LupusInTabula
from pbem.games.lupus.state import LupusState


def test_game_ended_from_an_old_log_holds_the_termination_enum() -> None:
    codec = EventCodec(COMMON_EVENTS)
    stored = {"type": "GameEnded", "termination": "victory", "side": "village", "winners": ["A"]}
    event = codec.decode(stored)
    assert isinstance(event, GameEnded)
    assert event.termination is Termination.VICTORY


def test_game_ended_is_stored_as_the_same_string() -> None:
    codec = EventCodec(COMMON_EVENTS)
    event = GameEnded(Termination.NO_WINNER, None, ())
    assert codec.encode(event) == {
        "type": "GameEnded",
        "termination": "no_winner",
        "side": None,
        "winners": [],
    }
    assert codec.decode(codec.encode(event)) == event


def test_a_game_ended_by_the_rules_folds_into_its_outcome() -> None:
    rules = LupusInTabula()
    ended = GameEnded(Termination.VICTORY, "village", (PlayerId("A"),))
    state = rules.evolve(rules.new_state(), ended)
    assert isinstance(state, LupusState)
    outcome = rules.outcome(state)
    assert outcome is not None and outcome.termination is Termination.VICTORY
