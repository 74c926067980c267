"""The lobby's roster agrees with the volunteers it names, as they asked at sign-up (« elle »,
« il »): a lobby of women is « Inscrites », one volunteer « Inscrit » or « Inscrite », a mixed
or unsaid lobby « Inscrits »; English has one word for all."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from pbem.tools.simulate import EPOCH
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


WOMEN = ["Anne elle", "Chloé elle", "Inès elle"]
MIXED = ["Anne elle", "Bruno il", "Chloé elle"]


def _lobby_of(volunteers: list[str]) -> Any:
    table, _ = opened(seats=(8, 12))
    for i, volunteer in enumerate(volunteers):
        send(table, f"v{i}@example.org", f"INSCRIPTION {volunteer}")
    return table


@pytest.mark.parametrize(
    ("volunteers", "said"),
    [
        (
            WOMEN,
            (
                "DEMARRER : commencer avec les inscrites actuelles, si les règles acceptent leur",
                "ANNULER PARTIE : annuler la partie ; chaque inscrite est prévenue",
                "STATUT : les inscrites et le banc",
            ),
        ),
        (
            MIXED,
            (
                "DEMARRER : commencer avec les inscrits actuels, si les règles acceptent leur",
                "ANNULER PARTIE : annuler la partie ; chaque inscrit est prévenu",
                "STATUT : les inscrits et le banc",
            ),
        ),
    ],
)
def test_the_game_masters_help_agrees_with_the_volunteers(
    volunteers: list[str], said: tuple[str, ...]
) -> None:
    """The game master's AIDE names the current sign-ups as the roster does: a lobby of women
    is « les inscrites actuelles », « chaque inscrite est prévenue »."""
    table = _lobby_of(volunteers)
    body = to(send(table, GM, "AIDE"), GM)[0].body
    assert all(words in body for words in said), body


@pytest.mark.parametrize(
    ("volunteers", "said"),
    [
        (WOMEN, ("avec les inscrites actuelles", "chaque inscrite est prévenue")),
        (MIXED, ("avec les inscrits actuels", "chaque inscrit est prévenu")),
        (["Anne elle"], ("avec l'inscrite actuelle, si les règles acceptent son nombre",)),
    ],
)
def test_the_deadlines_question_agrees_with_the_volunteers(
    volunteers: list[str], said: tuple[str, ...]
) -> None:
    """At the deadline with too few sign-ups the game master is asked what to do; DEMARRER's
    line agrees with who signed up."""
    table = _lobby_of(volunteers)
    step = table.on_deadline("signup", EPOCH + timedelta(days=3))
    body = to(step, GM)[0].body
    assert all(words in body for words in said), body


@pytest.mark.parametrize(
    ("volunteers", "said"),
    [(WOMEN, "3 inscrites : les règles"), (MIXED, "3 inscrits : les règles")],
)
def test_a_refused_start_counts_the_sign_ups_in_their_words(
    volunteers: list[str], said: str
) -> None:
    """DEMARRER refused for a count the rules do not accept: « 3 inscrites » for three women."""
    table = _lobby_of(volunteers)
    assert said in to(send(table, GM, "DEMARRER"), GM)[0].body


@pytest.mark.parametrize(
    ("volunteers", "said"),
    [
        (WOMEN, "Merci à toutes celles qui s'étaient inscrites."),
        (MIXED, "Merci à tous ceux qui s'étaient inscrits."),
        (["Anne elle"], "Merci à celle qui s'était inscrite."),
    ],
)
def test_the_cancellation_thanks_the_volunteers_in_their_words(
    volunteers: list[str], said: str
) -> None:
    """ANNULER PARTIE: the list's notice thanks the volunteers with the words that agree."""
    table = _lobby_of(volunteers)
    assert said in public(send(table, GM, "ANNULER PARTIE"))[0].body
