"""AIDE / HELP (issue 15): what this player can send now, with each command's argument,
meaning and deadline, in a mail whose Subject says it is the help."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.support.game_by_mail import Game, lupus_roles


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


def test_rules_mails_the_players_rules_page_with_this_games_options() -> None:
    """REGLES / RULES: the game's rules page in the player's language, the options this game
    changes from the defaults, under a Subject of its own; AIDE lists it."""
    g = Game(lupus_roles(8), lang="fr", options={"ghost_variant": True})
    (reply,) = [m for m in g.mail("p3", "REGLES") if m.to == ("p3@example.org",)]
    assert reply.subject == "[Lupus in Tabula] Les règles du jeu"
    title = "Lupus in Tabula — les règles pour les joueurs"
    assert reply.body.startswith(f"{title}\n{'=' * len(title)}\n")  # plain text, no « # »
    assert "- Variante du fantôme : oui" in reply.body
    g = Game(lupus_roles(8), lang="en")
    (reply,) = [m for m in g.mail("p3", "RULES") if m.to == ("p3@example.org",)]
    assert reply.subject == "[Lupus in Tabula] The rules of the game"
    assert "Winning." in reply.body and "default options" in reply.body
    assert "**" not in reply.body and "<b>Winning.</b>" in reply.html  # the page keeps bold
    (helped,) = [m for m in g.mail("p3", "HELP") if m.to == ("p3@example.org",)]
    assert "  RULES — the rules of the game, by mail" in helped.body


def test_every_game_ships_its_players_rules_page_as_in_the_docs() -> None:
    """The package's copy (REGLES from a wheel) is the docs' page, in both languages."""
    from pathlib import Path

    from pbem.games import GAMES
    from pbem.rules import rules_page

    docs = Path(__file__).resolve().parents[1] / "docs" / "players"
    for game in GAMES:
        for lang in ("fr", "en"):
            page = (docs / f"{game.id}.{lang}.md").read_text(encoding="utf-8").strip()
            services = (docs / f"services.{lang}.md").read_text(encoding="utf-8").strip()
            assert rules_page(game.id, lang) == f"{page}\n\n{services}"


def test_help_offers_a_link_per_choice_of_each_command_it_lists() -> None:
    """The AIDE reply's HTML has a quick action per legal choice of each command it lists
    (LUP-320: the Seer scans one other living player a night), none for AIDE itself; its
    text says what the buttons are."""
    g = Game(lupus_roles(8), lang="fr", moderator="mj@example.org")
    (reply,) = [m for m in g.mail("p3", "AIDE") if m.to == ("p3@example.org",)]
    bodies = {
        parse_qs(urlsplit(unescape(h)).query)["body"][0]
        for h in re.findall(r'href="(mailto:[^"]+)"', reply.html)
    }
    assert bodies == {"RIEN"} | {f"SONDER p{n}" for n in range(1, 9) if n != 3}
    assert "bouton" in reply.body


def test_every_rules_page_says_how_substitutes_idleness_and_removal_work() -> None:
    """docs/seats.md for players: the bench's command, the idle policy with the defaults of
    pbem/core/idle.py (IdleOptions), what a removal does, in both languages."""
    from pbem.core.idle import IdleOptions
    from pbem.games import GAMES
    from pbem.rules import rules_page

    d = IdleOptions()
    assert (d.on_idle, d.removal_reveal) == ("offer", "as_death")  # what the pages say
    said = {
        "fr": [
            "**Remplaçants, absences et retraits.**",
            "REMPLACANT [nom] [il|elle]",
            f"passer {d.idle_warn_after} phases de suite",
            f"au bout de {d.idle_act_after} phases",
            "proposé au meneur pour un remplaçant",  # on_idle = offer, said in words
            "à moins que les options de la partie n'en décident autrement",  # removal_reveal
            "quitte la partie comme s'il était mort",
        ],
        "en": [
            "**Substitutes, absences and removals.**",
            "SUBSTITUTE [name] [he|she|they]",
            f"let {d.idle_warn_after} phases in a row pass",
            f"after {d.idle_act_after} phases",
            "offered to the game master for a substitute",  # on_idle = offer, in words
            "unless the game's options say otherwise",  # removal_reveal
            "leaves the game as if dead",
        ],
    }
    for game in GAMES:
        for lang, phrases in said.items():
            page = rules_page(game.id, lang)
            assert [p for p in phrases if p not in page] == [], (game.id, lang)


def test_help_lists_the_judges_services_in_their_one_order() -> None:
    """AIDE's services (issue 25) come from pbem.core.commands.JUDGE_COMMANDS, in its order,
    after REGLES: no second list in the table that could drift from it."""
    from pbem.core.commands import JUDGE_COMMANDS, RULES

    g = Game(lupus_roles(8), lang="en")
    (reply,) = [m for m in g.mail("p3", "HELP") if m.to == ("p3@example.org",)]
    shown = [line.split(" — ")[0].split()[0] for line in reply.body.splitlines() if " — " in line]
    keywords = [spec.keyword("en") for spec in (RULES, *JUDGE_COMMANDS)]
    at = shown.index(keywords[0])
    assert shown[at : at + len(keywords)] == keywords


@pytest.mark.parametrize(
    ("lang", "line"),
    [("fr", "ADRESSE [nouvelle@adresse|ANNULER]"), ("en", "ADDRESS [new@address|CANCEL]")],
)
def test_help_shows_what_the_address_service_takes(lang: str, line: str) -> None:
    """AIDE wrote « ADRESSE [texte] » and « ANNULER [texte] »: the service takes a new address
    or the word to cancel a pending change (pbem/judge/address.py); ANNULER takes the keyword
    of the command to cancel."""
    g = Game(lupus_roles(8), lang=lang)
    (reply,) = [
        m for m in g.mail("p3", "AIDE" if lang == "fr" else "HELP") if m.to == ("p3@example.org",)
    ]
    assert line in reply.body
    assert "[texte]" not in reply.body and "[text]" not in reply.body


@pytest.mark.parametrize(
    ("lang", "status", "subject"),
    [("fr", "STATUT", "Votre situation"), ("en", "STATUS", "Your situation")],
)
def test_status_alone_is_answered_under_a_subject_that_says_so(
    lang: str, status: str, subject: str
) -> None:
    """LUP-622: a STATUT alone was answered « Vos commandes », though it ordered nothing; it
    is « Votre situation », as AIDE's answer is « Aide : … ». With an order, the receipt."""
    g = Game(lupus_roles(8), lang=lang)
    (reply,) = [m for m in g.mail("p3", status) if m.to == ("p3@example.org",)]
    assert reply.subject == f"[Lupus in Tabula] {subject}"
    (reply,) = [m for m in g.mail("p3", f"{status}\nSCAN p1") if m.to == ("p3@example.org",)]
    assert reply.subject.endswith(("Vos commandes", "Your commands"))
