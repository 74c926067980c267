"""Sign-up words once the game runs (issue 13): a stranger's INSCRIPTION/JOIN is told the game
has started and how to volunteer (REMPLACANT/SUBSTITUTE), a volunteer is passed on to the game
masters, and a player's DESINSCRIPTION/LEAVE keeps his seat and reaches the game masters with
the desk commands that act on it (RETIRER, REMPLACER)."""

from __future__ import annotations

from typing import Any

import pytest

from pbem.signup.table import SignupTable, load
from pbem.table import Table
from pbem.tools.simulate import EPOCH
from tests.signup.helpers import GM, lobby_setup, mail, names, opened, send, to


def _started() -> tuple[SignupTable, list[dict[str, Any]]]:
    """A lobby filled up to its start, and its log."""
    table, step = opened(seats=(8, 8))
    log = list(step.events)
    for i, name in enumerate(names(8)):
        log += send(table, f"v{i}@example.org", f"INSCRIPTION {name}").events
    assert table.started
    return table, log


def _running(kept: bool) -> SignupTable | Table:
    """The game just started: the lobby's object the daemon keeps, or the plain Table it
    loads after a restart."""
    table, log = _started()
    if kept:
        return table
    game = load(lobby_setup(seats=(8, 8)), log)
    assert isinstance(game, Table)
    return game


def test_a_strangers_sign_up_after_the_start_is_told_how_to_volunteer() -> None:
    table, _ = _started()
    step = send(table, "late@example.org", "INSCRIPTION Tardif")
    (reply,) = to(step, "late@example.org")
    assert "a déjà commencé" in reply.body and "REMPLACANT [votre nom]" in reply.body
    assert "n'est pas inscrite comme joueur" not in reply.body  # not the generic reply
    assert not step.events and not to(step, GM)  # nobody else is bothered by a plain JOIN
    english = send(table, "late@example.org", "JOIN Latecomer")
    assert "SUBSTITUTE [your name]" in to(english, "late@example.org")[0].body


def test_a_strangers_mail_without_a_sign_up_word_still_gets_the_not_a_player_reply() -> None:
    table, _ = _started()
    step = send(table, "late@example.org", "VOTE Anne")
    assert "n'est pas inscrite comme joueur" in to(step, "late@example.org")[0].body


def test_a_strangers_offer_to_substitute_after_the_start_reaches_the_game_masters() -> None:
    table, _ = _started()
    step = send(table, "late@example.org", "REMPLACANT Tardif")
    # issue 13's substitutes (pbem/seats/substitution.py): the volunteer waits on the game's bench, and
    # the game masters get the command that gives him a seat
    assert "banc des remplaçants" in to(step, "late@example.org")[0].body
    (notice,) = to(step, GM)
    assert "Proposition de remplacement : Tardif" in notice.subject  # his gender not given
    assert "REMPLACER nom par Tardif" in notice.body and "late@example.org" in notice.body
    assert notice.html is not None  # the HTML alternative of the game's mails
    assert [type(e).__name__ for e in step.facts] == ["BenchJoined"]


@pytest.mark.parametrize("kept", [True, False], ids=["kept-lobby", "after-restart"])
def test_a_players_leave_after_the_start_keeps_his_seat_and_tells_the_game_masters(
    kept: bool,
) -> None:
    running = _running(kept)
    before = dict(running.player_emails)
    step = running.receive(mail("v2@example.org", "DESINSCRIPTION"), channel="private", now=EPOCH)
    running.apply(step)
    (reply,) = to(step, "v2@example.org")
    assert "transmis au maître du jeu" in reply.body
    assert "votre place reste la vôtre" in reply.body
    assert "Commande inconnue" not in reply.body
    (notice,) = to(step, GM)
    # it was « [village] Chloé demande… », the game's tag, where every other mail of a running
    # game, the bench's offer beside it too, names the game as its players read it
    assert notice.subject == "[Lupus in Tabula] Chloé demande à quitter la partie"
    assert "RETIRER" in notice.body and "REMPLACER" in notice.body
    assert not step.events and dict(running.player_emails) == before


def test_a_leave_beside_a_command_is_answered_and_the_command_still_runs() -> None:
    table, _ = _started()
    wolf = next(p["name"] for p in table.summary()["players"] if p["role"] == "werewolf")
    victim = next(n for n in names(8) if n != wolf)
    address = table.player_emails[wolf]
    step = table.receive(mail(address, f"LEAVE\nTUER {victim}"), channel="private", now=EPOCH)
    (reply,) = to(step, address)
    assert "passed on to the game master" in reply.body or "transmis au maître" in reply.body
    assert "Commande inconnue" not in reply.body
    assert step.events  # the kill counts
    assert len(to(step, GM)) == 1


def test_the_players_help_names_the_wish_to_leave() -> None:
    table, _ = _started()
    step = send(table, "v0@example.org", "AIDE")
    assert "DESINSCRIPTION — demander à quitter la partie" in to(step, "v0@example.org")[0].body


def test_a_started_lobby_hands_every_delivery_keyword_to_its_game() -> None:
    # issue 11: the lobby's receive takes the same Delivery as the game's Table and passes it
    # on whole: the daemon's administrators (admins=) run the desk of a game they do not
    # administer, anyone else is not a player
    table, _ = _started()
    boss = "boss@example.org"
    as_admin = _help_reply(table, boss, admins=(boss,))
    assert "Les commandes du meneur" in as_admin
    assert "n'est pas inscrite comme joueur" in _help_reply(table, boss)


def _help_reply(table: SignupTable, sender: str, **delivery: Any) -> str:
    step = table.receive(mail(sender, "AIDE"), channel="private", now=EPOCH, **delivery)
    (reply,) = to(step, sender)
    return reply.body


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("REMPLACANTE Zoé elle", "Une remplaçante se propose : Zoé"),
        ("REMPLACANT Hugo il", "Un remplaçant se propose : Hugo"),
    ],
)
def test_the_game_masters_are_told_of_a_volunteer_as_she_said(line: str, said: str) -> None:
    """Issue 13: the volunteer's « il »/« elle » (REMPLACANT nom elle) reaches the game
    masters' notice: « Une remplaçante se propose : Zoé »."""
    table, _ = _started()
    (notice,) = to(send(table, "late@example.org", line), GM)
    assert said in notice.subject
