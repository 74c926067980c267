"""Two women in love are « les Amoureuses » and « l'une de vous » (Chasse's Coop, CAS lovers;
Loup-Garou's Cupidon, LG-619): the couple agrees in gender, masculine as soon as one is a man
or unknown, as French does."""

from __future__ import annotations

import pytest

from pbem.mail.render import shared_renderer

RENDERER = shared_renderer("UTC")


@pytest.mark.parametrize(
    ("genders", "couple", "one"),
    [
        ({"Inès": "f", "Zoé": "f"}, "les Amoureuses", "l'une de vous"),
        ({"Inès": "f", "Zoé": "m"}, "les Amoureux", "l'un de vous"),
        ({"Inès": "f"}, "les Amoureux", "l'un de vous"),
    ],
)
def test_the_lovers_agree_with_the_couple(genders: dict[str, str], couple: str, one: str) -> None:
    chasse = RENDERER.text(
        "chasse/lovers",
        "fr",
        {"game": "g", "name": "Inès", "partner": "Zoé", "role": None, "genders": genders},
    )
    assert f"Vous êtes {couple}." in chasse
    loupgarou = RENDERER.text(
        "loupgarou/lovers",
        "fr",
        {"game": "g", "name": "Inès", "other": "Zoé", "role": "villager", "genders": genders},
    )
    assert f"Si {one} meurt" in loupgarou


@pytest.mark.parametrize(
    ("genders", "last"),
    [
        ({"Inès": "f", "Zoé": "f"}, "les deux dernières vivantes"),
        ({"Inès": "f", "Zoé": "m"}, "les deux derniers vivants"),
    ],
)
def test_lg_619_the_lovers_mail_names_no_cupid_and_agrees_to_the_end(
    genders: dict[str, str], last: str
) -> None:
    """LG-619: the Little Girl, not a Cupidon (no such card in this rule set's seed), makes the
    Lovers; their mail's subject names no role, and two women win as « les deux dernières
    vivantes »."""
    subject, body = RENDERER.mail(
        "loupgarou/lovers",
        "fr",
        {"game": "g", "name": "Inès", "other": "Zoé", "role": "villager", "genders": genders},
    )
    assert subject == "[g] Le coup de foudre" and "Cupidon" not in body
    assert f"Si vous êtes {last}, vous gagnez ensemble." in body
