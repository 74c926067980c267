"""AIDE / HELP (issue 15): what this player can send now, with each command's argument,
meaning and deadline, in a mail whose Subject says it is the help."""

from __future__ import annotations

from tests.harness import Game, lupus_roles


def test_help_lists_each_command_with_its_argument_meaning_and_deadline() -> None:
    g = Game(lupus_roles(8), lang="fr")  # night 1: p3 is the Seer
    (reply,) = [m for m in g.mail("p3", "AIDE") if m.to == ("p3@example.org",)]
    assert reply.subject == "[Lupus in Tabula] Aide : ce que vous pouvez envoyer"
    assert "Ce que vous pouvez envoyer maintenant, jusqu'au " in reply.body
    assert "  SONDER nom — sonder un joueur : le modérateur vous dit s'il est Loup-Garou" in (
        reply.body
    )
    assert "  AIDE — la liste de ce que vous pouvez envoyer maintenant" in reply.body
    assert "TUER" not in reply.body  # only what this player can send now


def test_help_in_english_names_arguments_and_a_help_subject() -> None:
    g = Game(lupus_roles(8), lang="en")
    (reply,) = [m for m in g.mail("p1", "HELP") if m.to == ("p1@example.org",)]
    assert reply.subject == "[Lupus in Tabula] Help: what you can send"
    assert "  KILL name — vote for the pack's victim" in reply.body
    assert "  PACK text — send a message to the other Werewolves" in reply.body


def test_help_with_other_commands_keeps_the_receipt_subject() -> None:
    g = Game(lupus_roles(8), lang="en")
    (reply,) = [m for m in g.mail("p3", "SCAN p1\nHELP") if m.to == ("p3@example.org",)]
    assert reply.subject == "[Lupus in Tabula] Your commands"
    assert "✓ SCAN p1" in reply.body and "What you can send now" in reply.body
