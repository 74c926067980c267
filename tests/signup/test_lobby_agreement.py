"""The lobby's roster agrees with the volunteers it names, as they asked at sign-up (« elle »,
« il »): a lobby of women is « Inscrites », one volunteer « Inscrit » or « Inscrite », a mixed
or unsaid lobby « Inscrits »; English has one word for all."""

from __future__ import annotations

import pytest

from tests.signup.helpers import GM, opened, public, send, to


@pytest.mark.parametrize(
    ("volunteers", "said"),
    [
        (["Anne elle", "Chloé elle", "Inès elle"], "Inscrites (3 sur 12) : Anne, Chloé et Inès."),
        (["Anne elle", "Bruno il", "Chloé elle"], "Inscrits (3 sur 12) : Anne, Bruno et Chloé."),
        (["Anne elle", "Bruno", "Chloé elle"], "Inscrits (3 sur 12) : Anne, Bruno et Chloé."),
        (["Anne elle"], "Inscrite (1 sur 12) : Anne."),
        (["Bruno il"], "Inscrit (1 sur 12) : Bruno."),
    ],
)
def test_the_roster_agrees_with_the_volunteers(volunteers: list[str], said: str) -> None:
    """The game master's STATUT, a volunteer's STATUT and the list's count post all read the
    roster in the words that agree with the volunteers."""
    table, _ = opened(seats=(8, 12))
    step = None
    for i, volunteer in enumerate(volunteers):
        step = send(table, f"v{i}@example.org", f"INSCRIPTION {volunteer}")
    assert step is not None
    assert said in public(step)[0].body
    assert said in to(send(table, GM, "STATUT"), GM)[0].body
    assert said in to(send(table, "v0@example.org", "STATUT"), "v0@example.org")[0].body


def test_an_empty_lobby_and_an_english_one_read_as_before() -> None:
    table, _ = opened(seats=(8, 12))
    assert (
        "Inscrits (0 sur 12) : personne pour l'instant."
        in to(send(table, GM, "STATUT"), GM)[0].body
    )
    table, _ = opened(seats=(8, 12), lang="en")
    send(table, "v0@example.org", "JOIN Anne she")
    assert "Signed up (1 of 12): Anne." in to(send(table, GM, "STATUS"), GM)[0].body
