"""French as a forum game master writes it (issue 22): counts with their nouns, one person or
several, « ou » between the names one may vote for, the words of the seeds (« ex æquo »), no
room id, no English word, a suggestion in the player's own language."""

from __future__ import annotations

from typing import Any

import pytest

from pbem.mail.render import Renderer
from pbem.table import Table
from pbem.tools.bots import plain_mail
from pbem.tools.demo import demo_setup
from pbem.tools.simulate import EPOCH

T = "2026-01-06T18:00:00+00:00"
RENDERER = Renderer()


def fr(template: str, **params: Any) -> str:
    return RENDERER.text(template, "fr", {"game": "g", "genders": {}, **params})


def test_one_flame_is_une_flamme() -> None:
    """DRA-470: « Vous ne tenez qu'une flamme. », never « que 1 flamme(s) »."""
    assert fr("reasons/too_many_flames", count=1) == "Vous ne tenez qu'une flamme."
    assert fr("reasons/too_many_flames", count=3) == "Vous ne tenez que 3 flammes."
    assert "one flame" in RENDERER.text("reasons/too_many_flames", "en", {"count": 1})


@pytest.mark.parametrize("template", ["dracula/phonograph_prompt", "dracula/bite_prompt"])
def test_one_person_in_the_room_is_not_l_un_d_eux(template: str) -> None:
    """DRA-300, DRA-112: alone with Inès, « l'entraîner » / « le mordre », not « l'un d'eux »."""
    params = {"room": "dungeons", "deadline": T, "status": "must"}
    one = fr(template, others=["Inès"], **params)
    assert "avec Inès" in one and "l'un d'eux" not in one
    several = fr(template, others=["Inès", "Hugo"], **params)
    assert "l'un d'eux" in several


def test_vote_for_one_nominee_or_another() -> None:
    """LUP-341: the nominees are alternatives: « votez pour Chloé ou Élodie »."""
    text = fr("reasons/not_a_nominee", name="Bruno", nominees=["Chloé", "Élodie"])
    assert "votez pour Chloé ou Élodie." in text
    three = fr("reasons/not_a_nominee", name="Bruno", nominees=["Chloé", "Élodie", "Hugo"])
    assert "votez pour Chloé, Élodie ou Hugo." in three


def test_ex_aequo_and_the_dusk_and_the_calendar() -> None:
    """CAS-D19, AMB-056.7, DRA-040: « ex æquo », no « ce sera les geôles », no « journée 1 12 h »."""
    assert "ex æquo" in fr("chasse/penny", name="Alice")
    dusk = {"round": 1, "day": 2, "designated": [], "drawn": [], "ranking": []}
    text = fr("dracula/dusk", cursed_defaults=[{"name": "Inès", "room": "dungeons"}], **dusk)
    assert "passera donc la nuit dans les geôles" in text and "ce sera" not in text


def test_declared_room_is_named_in_french() -> None:
    """DRA-378, AMB-056.5: « vous avez déclaré aller dans la salle de bal », not ballroom."""
    text = fr("reasons/declared_room", room="ballroom")
    assert text.endswith("vous avez déclaré aller dans la salle de bal.")


def test_a_suggestion_is_in_the_players_language() -> None:
    """An English player's PASZ is answered « Did you mean PASS? », not « PASSE? » (PAUSE,
    the game master's command, is answered as his: tests/desk/test_gm_replies.py)."""
    setup = demo_setup("lupus-in-tabula", 0, 1, "en")
    table, first = Table.new(setup, EPOCH)
    table.apply(first)
    player = setup["players"][0]["email"]
    step = table.receive(
        plain_mail(player, setup["moderator"], "PASZ\n"), channel="private", now=EPOCH
    )
    (reply,) = [m for m in step.outgoing if m.to == (player,)]
    assert "Did you mean PASS?" in reply.body and "PASSE" not in reply.body
