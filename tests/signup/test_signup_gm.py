"""The game master's lines before the start: a typo of a sign-up command is answered with the
command meant, a command of the running game is told it waits for the start; both were
« Ignorées (ce ne sont pas des commandes) »."""

from __future__ import annotations

import pytest

from tests.signup.helpers import GM, opened, send, to


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_game_masters_typo_or_game_command_before_the_start_is_answered(lang: str) -> None:
    table, _ = opened(lang=lang)
    typo, later = ("DEMARER", "PAUSE") if lang == "fr" else ("STRAT", "REMOVE bob")
    (reply,) = to(send(table, GM, f"{typo}\n{later}\nBonjour"), GM)
    if lang == "fr":
        assert (
            "✗ DEMARER — Commande inconnue « DEMARER ». Vouliez-vous dire DEMARRER ?" in reply.body
        )
        assert "✗ PAUSE — « PAUSE » est une commande de la partie en cours" in reply.body
        assert "· Bonjour" in reply.body  # free text stays free text
        (reply,) = to(send(table, GM, "ANNULER"), GM)  # ANNULER alone is a player's word
        assert "Vouliez-vous dire ANNULER PARTIE ?" in reply.body
    else:
        assert '✗ STRAT — Unknown command "STRAT". Did you mean START?' in reply.body
        assert '✗ REMOVE bob — "REMOVE" is a command of the game once it runs' in reply.body
    assert not table.started and table.lobby.status == "open"
