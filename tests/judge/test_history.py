"""HISTORIQUE / HISTORY (issue 25 item 3): the game's public posts and the seat's own mails
again, re-rendered from the log, one mail with each piece in its own section."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pbem.core.errors import InvalidSyntax
from pbem.judge.history import Selection, selection
from tests.dracula.test_final import final
from tests.lupus.scenario import kill
from tests.support.game_by_mail import Game, lupus_roles


def history(g: Game, who: str, line: str) -> tuple[str, str, str]:
    (reply,) = [m for m in g.mail(who, line) if m.to == (f"{who}@example.org",)]
    return reply.subject, reply.body, str(reply.html)


def test_a_wolf_gets_the_packs_mails_a_villager_never() -> None:
    """LUP-004: the pack's night mails are the wolves'; a villager's history has the list's
    posts and his own mails only, and the pack's choice never shows in it."""
    g = Game(lupus_roles(8), lang="fr")
    kill(g, "p8")
    g.mail("p3", "SONDER p1")
    g.deadline()
    subject, wolf, html = history(g, "p1", "HISTORIQUE")
    assert subject == "[Lupus in Tabula] Historique de la partie"
    assert "Nuit 1\n======" in wolf and "Avant la partie\n===============" in wolf
    assert "Pour vous — Votre rôle" in wolf and "vous êtes un Loup-Garou" in wolf
    assert "Pour vous — Nuit : la meute chasse" in wolf
    assert "Vos ordres\n----------\n  TUER p8" in wolf
    assert "Sur la liste — Une nouvelle partie commence" in wolf
    assert "**" not in wolf and "# " not in wolf  # the text part: plain headings
    assert "<h2" in html and "Pour vous — Votre rôle" in html
    _subject, villager, _html = history(g, "p4", "HISTORIQUE")
    assert "Sur la liste — Une nouvelle partie commence" in villager
    assert "la meute" not in villager.replace("la meute choisit", "")
    assert "TUER" not in villager and "Loup-Garou." not in villager.split("Votre rôle")[1][:80]
    assert "Les Loups-Garous sont" not in villager
    _subject, seer, _html = history(g, "p3", "HISTORIQUE nuit 1")
    assert "Vos ordres\n----------\n  SONDER p1" in seer
    assert "Avant la partie" not in seer  # one phase only


def test_history_in_english_by_phase_and_its_refusals() -> None:
    g = Game(lupus_roles(8), lang="en")
    g.until("round1")
    g.post("p4", "VOTE p5")  # LUP-617: a vote on the list is his order too
    _subject, day, _html = history(g, "p4", "HISTORY day 1")
    assert "Your orders\n-----------\n  VOTE p5" in day and "Night 1\n" not in day
    subject, body, _html = history(g, "p4", "HISTORY night 1")
    assert subject == "[Lupus in Tabula] History of the game"
    assert 'History of the game Lupus in Tabula: "night 1"' in body
    assert "Night 1\n=======" in body and "On the list — " in body
    g.mail("p4", "HISTORY monday")
    assert '✗ HISTORY monday — I do not know the phase "monday"' in g.reply()
    g.mail("p4", "HISTORY day 9")
    assert 'The game has had no phase "day 9" (yet)' in g.reply()
    g.mail("p4", "HISTORY round 1")  # no rounds in Lupus
    assert "I do not know the phase" in g.reply()
    (helped,) = [m for m in g.mail("p4", "HELP") if m.to == ("p4@example.org",)]
    assert "  HISTORY [phase|ALL] — the list's posts and your own mails again" in helped.body
    assert "  DIGEST [ON|OFF] — one mail a day with the day's public posts" in helped.body


def test_a_ghost_reads_his_history_and_a_substitute_gets_the_seats() -> None:
    """LUP-005: a dead player no longer speaks, but may read: his history comes back. A
    substitute (issue 13) gets the whole history of the seat, the role card included."""
    g = Game(lupus_roles(9, p4="medium"), options={"ghost_variant": True})
    kill(g, "p8")
    g.until("debate")
    assert not g.alive("p8")
    _subject, body, _html = history(g, "p8", "HISTORY")
    assert "For you — Your role" in body and "Night 1" in body
    from pbem.core.events import Substituted

    step = g.table.step(
        [Substituted("p5", "p5", "p5@example.org", "Zoe", "zoe@example.org", "en", "f")]
    )
    g._commit(step)
    (reply,) = [m for m in g.mail("zoe@example.org", "HISTORY") if m.to == ("zoe@example.org",)]
    assert "For you — Your role" in reply.body and "Zoe, you are" in reply.body


def test_dracula_history_counts_rounds() -> None:
    """DRA-006, DRA-490: a game of rounds; ROUND 1 DAY 1 is the first round's day, DAY 1
    alone the round in play's, and a round not yet played is refused with a reason."""
    g = final(rounds=2)
    g.close("final_choice")
    assert g.state.round == 2
    from tests.dracula.scenario import mail, table_from

    table = table_from(g)
    now = g.state.deadlines["day"] - timedelta(hours=1) if g.state.deadlines else None
    step = table.receive(
        mail("Bob", "HISTORY ROUND 1 DAY 1", to="mj@example.org"), channel="private", now=now
    )
    (reply,) = [m for m in step.outgoing if m.to == ("bob@example.org",)]
    assert "Round 1, day 1" in reply.body and "Round 2" not in reply.body
    step = table.receive(
        mail("Bob", "HISTORY DAY 1", to="mj@example.org"), channel="private", now=now
    )
    (reply,) = [m for m in step.outgoing if m.to == ("bob@example.org",)]
    assert "Round 1" not in reply.body and "(Nothing yet.)" in reply.body  # nothing to Bob yet
    step = table.receive(
        mail("Bob", "HISTORY ROUND 3", to="mj@example.org"), channel="private", now=now
    )
    (reply,) = [m for m in step.outgoing if m.to == ("bob@example.org",)]
    assert 'no phase "ROUND 3"' in reply.body


@pytest.mark.parametrize(
    ("text", "rounds", "wanted"),
    [
        ("", False, Selection()),
        ("TOUT", False, Selection()),
        ("jour 2", False, Selection("day", 2)),
        ("Nuit 1", False, Selection("night", 1)),
        ("journée 3", True, Selection("day", 3, 2)),
        ("manche 1", True, Selection(round=1)),
        ("round 1 night 4", True, Selection("night", 4, 1)),
    ],
)
def test_the_phases_a_player_may_type(text: str, rounds: bool, wanted: Selection) -> None:
    assert selection(text, rounds=rounds, current_round=2) == wanted


@pytest.mark.parametrize("text", ["lundi", "jour", "jour deux", "manche 1", "nuit 1 2"])
def test_what_is_no_phase(text: str) -> None:
    with pytest.raises(InvalidSyntax):
        selection(text, rounds=False, current_round=0)


def test_loup_garou_files_the_election_before_the_first_night_in_night_1() -> None:
    """LG-705, LG-706: the Mayor's election comes before the first night; a history of NUIT 1
    has it, with the Master Wolf's bite, and the Master Wolf's own mails are his alone."""
    from tests.loupgarou.scenario import LG

    g = LG()
    g.to_night1(bite="ivan")
    g.send("judy", "HISTORIQUE nuit 1")
    body = g.to("judy")[0].body
    assert "Avant la première nuit : élection du Maire\n" in body
    assert "Nuit 1\n======" in body
    g.send("alice", "HISTORIQUE")
    wolf = g.to("alice")[0].body
    assert "MORDRE ivan" in wolf and "MORDRE" not in body
