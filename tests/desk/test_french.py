"""The desk in French: keywords, several commands in one mail, and the French texts."""

from __future__ import annotations

from datetime import timedelta

from tests.desk.desk_game import DeskGame


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
    assert "La table de Lupus in Tabula" in reply
    assert "Aperçu : si la phase était close maintenant" in reply
    assert "Les commandes du meneur" in reply and "ANNULER RESOLUTION 24h" in reply
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
