"""Each game's phases are a closed set (issue 11): a ``Literal`` type, so that mypy refuses a
comparison with a phase the game does not have, and a fold that refuses a ``PhaseStarted``
of a phase outside it instead of carrying a typo along."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import get_args

import pytest

from pbem.core.events import PhaseStarted
from pbem.core.phases import phase_of
from pbem.games import rules_for
from pbem.games.chasse.subphases import CHASSE_PHASES, ChassePhase
from pbem.games.dracula.state import DRACULA_PHASES, DraculaPhase
from pbem.games.loupgarou.state import LOUPGAROU_PHASES, LoupGarouPhase
from pbem.games.lupus.state import LUPUS_PHASES, LupusPhase

NOW = datetime(2026, 1, 5, 18, tzinfo=UTC)


def test_phase_of_reads_a_member_and_refuses_the_rest() -> None:
    assert phase_of("round1", LUPUS_PHASES) == "round1"
    with pytest.raises(ValueError, match="'round3' is not one of"):
        phase_of("round3", LUPUS_PHASES)


@pytest.mark.parametrize(
    ("game", "phases", "kind", "known"),
    [
        ("lupus-in-tabula", LUPUS_PHASES, LupusPhase, "round2"),  # LUP-004, LUP-400
        ("loup-garou", LOUPGAROU_PHASES, LoupGarouPhase, "election"),  # LG-004, LG-500
        ("chasse-aux-sorcieres", CHASSE_PHASES, ChassePhase, "W1"),  # CAS-220, CAS-221
        ("dracula", DRACULA_PHASES, DraculaPhase, "dawn_wait"),  # DRA-082
    ],
)
def test_a_phase_the_game_does_not_have_is_refused_when_folded(
    game: str, phases: tuple[str, ...], kind: object, known: str
) -> None:
    assert phases == get_args(kind) and "setup" in phases and "over" in phases
    rules = rules_for(game)
    started = rules.evolve(rules.new_state(), PhaseStarted(known, 1, {known: NOW}))
    assert started.phase == known
    with pytest.raises(ValueError, match="'nigth' is not one of"):
        rules.evolve(rules.new_state(), PhaseStarted("nigth", 1, {"nigth": NOW}))
