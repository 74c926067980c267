"""The game masters' idle notices read as a careful MJ writes them (docs/seats.md)."""

from __future__ import annotations

import pytest

from pbem.mail.render import Renderer


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        (
            "fr",
            "Volontaire sur le banc : Zoé.\nPour confier la place à Zoé, envoyez : REMPLACER bob par Zoé",
        ),
        ("en", "Volunteer on the bench: Zoé.\nTo give the seat to Zoé, send: REPLACE bob BY Zoé"),
    ],
)
def test_on_idle_offer_names_the_one_volunteer_and_counts_one_phase(lang: str, said: str) -> None:
    """docs/seats.md, ``on_idle = offer`` (``idle_act_after``): the game masters get the bench's
    volunteers and the REMPLACER command; one volunteer is named in it (not « à l'un d'eux …
    par nom »), and one phase is « une phase », not « 1 phases »."""
    params = {"game": "G", "player": "bob", "count": 1, "removable": True, "bench": ["Zoé"]}
    text = Renderer().text("seats/idle_offer", lang, params)
    assert said in text
    assert ("depuis une phase" if lang == "fr" else "for one phase") in text
    ask = Renderer().text("seats/idle_ask", lang, {**params, "count": 3})
    assert ("depuis 3 phases" if lang == "fr" else "for 3 phases") in ask
