"""The idle warning counts its phases as a game master would: one phase is « la dernière
phase », not « 1 phases » (docs/seats.md, found by the season test)."""

from __future__ import annotations

import pytest

from pbem.mail.render import shared_renderer


@pytest.mark.parametrize(
    ("lang", "one", "many"),
    [
        ("fr", "lors de la dernière phase, qui s'est close", "lors des 3 dernières phases"),
        ("en", "in the last phase, and it closed", "each of the last 3 phases"),
    ],
)
def test_one_idle_phase_is_said_in_the_singular(lang: str, one: str, many: str) -> None:
    renderer = shared_renderer("UTC")
    params = {"game": "village1", "name": "Inès", "commands": [], "deadline": None}
    single = renderer.text("seats/idle_warning", lang, {**params, "count": 1})
    several = renderer.text("seats/idle_warning", lang, {**params, "count": 3})
    assert one in single and "1 phases" not in single
    assert single.splitlines()[1].startswith("Inès, ")  # the Subject line stays its own
    assert many in several
