"""The desk in French: keywords, several commands in one mail, and the French texts."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from tests.desk.desk_game import GAMES, DeskGame


def test_french_commands_one_a_line_each_answered() -> None:
    g = DeskGame("lupus-in-tabula", lang="fr")
    _, due = g.earliest()
    g.admin("PAUSE travaux\nREPRISE\nPROLONGER 1j\nANNONCE Bonne chance à tous !\nbonjour")
    reply = g.admin_reply()
    for line in ("PAUSE travaux", "REPRISE", "PROLONGER 1j", "ANNONCE Bonne chance à tous !"):
        assert f"✓ {line}" in reply
    assert "· bonjour" in reply  # free text: ignored, and said so
    assert g.earliest()[1] == due + timedelta(days=1)
    posts = g.public_text()
    assert "Partie en pause" in posts and "Raison : travaux" in posts
    assert "Reprise de la partie" in posts and "Échéance repoussée" in posts
    assert "Bonne chance à tous !" in posts
    g.admin("ROLES\nAPERCU\nAIDE")
    reply = g.admin_reply()
    # a query changes nothing: it is not acknowledged « (définitif) » as an act is
    for query in ("ROLES", "APERCU", "AIDE"):
        assert f"✓ {query}\n" in reply and f"✓ {query} (définitif)" not in reply
    assert "La table de Lupus in Tabula" in reply
    assert "Aperçu : si la phase était close maintenant" in reply
    assert "Les commandes du meneur" in reply and "ANNULER RESOLUTION durée" in reply
    g.admin("PROLONGER bientôt\nREPRISE")
    reply = g.admin_reply()
    assert "✗ PROLONGER bientôt — Durée illisible" in reply
    assert "✗ REPRISE — La partie n'est pas en pause." in reply
    # a bare PROLONGER (the Subject « Prolonger » of a mail whose body says PROLONGER 1h is
    # one) was answered « Il manque le texte à transmettre »: it is the duration that is missing
    g.admin("PROLONGER\nANNULER RESOLUTION")
    reply = g.admin_reply()
    assert "✗ PROLONGER — Durée illisible" in reply
    assert "✗ ANNULER RESOLUTION — Durée illisible" in reply
    assert "texte à transmettre" not in reply
    g.admin("CLORE")
    assert g.phase == "debate"
    g.admin("ANNULER RESOLUTION 2h")
    assert g.phase == "night"
    assert "Résolution annulée" in g.public_text()
    g.admin("FIN NUL")
    assert g.table.finished
    assert "Personne ne l'emporte." in g.public_text()
    g.admin("FIN loups")
    assert "La partie est terminée." in g.admin_reply()


@pytest.mark.parametrize("game", GAMES)
def test_roles_in_french_names_phases_and_sides_in_french(game: str) -> None:
    """Issue 26 item 5: the French ROLES said « camp wolves », « phase day 2 »; each phase
    and side is now named as a game master writes it, in every game."""
    g = DeskGame(game, lang="fr")
    for _ in range(3):
        g.admin("ROLES")
        reply = g.admin_reply()
        head = reply.splitlines()[0]
        assert "phase" not in head and not re.search(r"\b(night|day|setup|round\d)\b", head), head
        assert not re.search(
            r"camp (werewolves|wolves|villagers|demons|good|lovers|pied_piper|vampire|human)\b",
            reply,
        ), reply
        g.deadline()


def test_roles_and_the_end_show_draculas_card_not_his_side() -> None:
    """DRA-007, issue 26 item 5: ROLES listed Dracula's holder as « vampire, camp vampire »
    and END's reveal too; the game master sees the card: Dracula."""
    g = DeskGame("dracula", lang="fr")
    g.admin("ROLES")
    line = next(x for x in g.admin_reply().splitlines() if x.startswith("  - ana"))
    assert line.startswith("  - ana : Dracula"), line
    assert "camp des vampires" in line, line
    g.admin("FIN nul")
    reveal = next(x for x in g.public_text().splitlines() if x.startswith("  - ana"))
    assert reveal.startswith("  - ana : Dracula"), reveal
