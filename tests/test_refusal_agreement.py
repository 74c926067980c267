"""Refusals that speak of their reader or of a player agree with him or her (polish9): a
nominee who votes in round 2 is « Vous êtes nommée » (LUP-408), the Thief refused a villager's
life on Night 2 is told to become « une louve » (LG-321), and a name given twice is said
without a gendered word (« Vous nommez judy deux fois », LG-620)."""

from __future__ import annotations

from tests.loupgarou.scenario import LG, ROLES
from tests.lupus.scenario import rejected, votes
from tests.support.game_by_mail import Game, lupus_roles


def test_lup_408_a_nominee_is_told_in_words_that_agree_with_her() -> None:
    """LUP-408: the nominees do not vote in round 2; the refusal tells each nominee so, in the
    words of his or her own gender (« les nommés » named no one in particular)."""
    g = Game(
        lupus_roles(10, p4="medium", p5="possessed"), lang="fr", genders={"p1": "f", "p2": "m"}
    )
    g.deadline()  # a quiet Night 1
    g.deadline()
    votes(g, {"p3": "p1", "p4": "p2"})
    g.until("round2")
    said = rejected(g, "p1", "VOTE p2", post=True)
    assert "Vous êtes nommée : vous ne votez pas au second tour." in said
    said = rejected(g, "p2", "VOTE p1", post=True)
    assert "Vous êtes nommé : vous ne votez pas au second tour." in said


class _Women(LG):
    """The usual Loup-Garou deal, its players' genders given."""

    def __init__(self, genders: dict[str, str]) -> None:
        self.names = list(ROLES)
        Game.__init__(self, ROLES, game="loup-garou", lang="fr", genders=genders)


def test_lg_321_the_thief_is_told_to_become_a_she_wolf() -> None:
    """LG-321: on Night 2 the Thief may only become a Wolf; a woman is told « devenir une
    louve », as « Vous êtes déjà une louve » speaks to her."""
    g = _Women({"carol": "f"})
    g.to_night1()
    while not (g.state.phase == "night" and g.state.number == 2):
        if g.state.phase == "night":
            g.deadline("council")
            g.deadline("night")
        else:
            g.deadline()
    said = g.reply(g.send("carol", "DEVENIR VILLAGEOIS"))
    assert "le seul choix possible est de devenir une louve (DEVENIR LOUP)." in said


def test_lg_390_lg_620_a_name_given_twice_is_named() -> None:
    """LG-390, LG-620: the Piper charms two different players; « ENVOUTER judy judy » is
    refused naming her, not « Le même joueur est nommé deux fois » whoever Judy is."""
    g = _Women({"judy": "f"})
    g.to_night1()
    said = g.reply(g.send("heidi", "ENVOUTER judy judy"))
    assert "Vous nommez judy deux fois." in said and "même joueur" not in said
