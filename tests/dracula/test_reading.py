"""A Dracula game read as its players read it: the words that agree with each reader, the
seed's names, no English in a French mail nor French in an English one (dracula5)."""

from __future__ import annotations

import pytest

from pbem.mail.render import Renderer
from tests.dracula.scenario import mail, table_from
from tests.dracula.test_curse import cursed_game

T = "2026-01-06T18:00:00+00:00"


@pytest.mark.parametrize(
    ("gender", "phrase"),
    [("f", "« Je suis maudite ! »"), ("m", "« Je suis maudit ! »"), (None, "« Je suis maudit ! »")],
)
def test_dra_374_a_cursed_woman_is_told_to_write_maudite(gender: str | None, phrase: str) -> None:
    """DRA-374, AMB-056.3, AMB-056.8, NTF-35, NTF-45: the seed's phrase is the masculine, and
    a cursed woman writes « Je suis maudite ! » (both are read): the curse notice, the
    morning's reminder and the public flag tell each player the phrase that agrees with
    him or her; an unknown gender keeps the seed's."""
    r = Renderer()
    genders = {"Dan": gender} if gender else {}
    base = {"game": "Dracula", "name": "Dan", "genders": genders}
    assert phrase in r.text("dracula/cursed", "fr", base)
    assert phrase in r.text("dracula/curse_reminder", "fr", {**base, "day": 3, "deadline": T})
    assert phrase in r.text("dracula/curse_flag", "fr", {**base, "player": "Dan"})


def test_dra_374_a_cursed_post_bounced_tells_a_woman_maudite() -> None:
    """DRA-374, AMB-056.4: a cursed woman's first post that does not declare comes back with
    the phrase she writes, « Je suis maudite ! »."""
    g = cursed_game()
    table = table_from(g, lang="fr", genders={"Dan": "f"})
    step = table.receive(mail("Dan", "Bonjour à tous"), channel="list", now=g.now, relay=True)
    (bounce,) = step.outgoing
    assert "« Je suis maudite ! »" in bounce.body and "maudit !" not in bounce.body


def test_dra_374_an_english_mail_gives_the_english_phrase() -> None:
    """DRA-374, AMB-056.3 (the options' ``curse_phrases`` read « I am cursed! » as well): an
    English mail tells the English phrase, never the French one."""
    r = Renderer()
    base = {"game": "Dracula", "name": "Dan", "player": "Dan", "day": 3, "deadline": T}
    for template in ("dracula/cursed", "dracula/curse_reminder", "dracula/curse_flag"):
        text = r.text(template, "en", base)
        assert '"I am cursed!"' in text and "maudit" not in text
    assert '"I am cursed!"' in r.text("reasons/cursed_post", "en", base)
