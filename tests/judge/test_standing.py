"""The game master sees the seats' standing (issue 25 follow-up): the declared absences in
progress or to come and the observers, by mail (desk ``STATUT``/``STATUS``) and in ``pbem
status``, in French and English; empty lists say so in the mail and are left out of ``pbem
status`` like its other empty lists."""

from __future__ import annotations

from datetime import timedelta

from pbem.daemon import status
from tests.desk.desk_game import DeskGame
from tests.judge.test_observer import ZOE, send

OTHER = "ann@elsewhere.example"


def _followed(lang: str, **options: str) -> DeskGame:
    """A game where p3 is away today and tomorrow, p2 on the 12th, p5's absence is over,
    Zoe observes and Ann waits for the game master's answer."""
    g = DeskGame("lupus-in-tabula", lang=lang, genders={"p3": "f"}, options=options)
    word, since, to = ("ABSENCE", "du", "au") if lang == "fr" else ("ABSENT", "from", "to")
    g.mail("p5", f"{word} 05/01")
    g.mail("p3", f"{word} {since} 05/01 {to} 06/01 vacances")
    g.mail("p2", f"{word} 12/01")
    send(g, ZOE, "OBSERVER")
    g.admin(f"{'SPECTATEURS ACCEPTER' if lang == 'fr' else 'OBSERVERS ACCEPT'} {ZOE}")
    send(g, OTHER, "SPECTATE")
    g.now += timedelta(days=1)  # the 6th: p5's absence is over, p3's in progress
    return g


def test_the_game_masters_status_lists_absences_and_observers_in_french() -> None:
    g = _followed("fr")
    g.admin("STATUT")
    body = g.admin_reply()
    assert "Absences en cours ou à venir dans Lupus in Tabula :" in body
    assert "  - p3 : du lundi 5 janvier au mardi 6 janvier, en cours (vacances)" in body
    assert "  - p2 : le lundi 12 janvier\n" in body
    assert "p5" not in body, "an absence over is not shown"
    assert "Les absences ne déplacent pas les échéances" in body
    assert f"Spectateurs de Lupus in Tabula : {ZOE}. En attente de votre réponse : {OTHER}." in (
        body
    )


def test_the_game_masters_status_in_english_says_when_deadlines_move_and_when_none() -> None:
    g = _followed("en", absence_mode="extend")
    g.admin("STATUS")
    body = g.admin_reply()
    assert "  - p3: from Mon 5 Jan to Tue 6 Jan, in progress (vacances)" in body
    assert "A deadline falling in an absence moves past it." in body
    assert f"Observers of Lupus in Tabula: {ZOE}. Awaiting your answer: {OTHER}." in body
    empty = DeskGame("loup-garou", lang="en")
    empty.admin("STATUS")
    body = empty.admin_reply()
    assert "Absences in progress or to come in Loup-Garou: none." in body
    assert "Observers of Loup-Garou: none." in body
    fr = DeskGame("dracula", lang="fr")
    fr.admin("ETAT")
    assert "Absences en cours ou à venir dans Dracula : aucune." in fr.admin_reply()


def test_pbem_status_shows_absences_and_observers_per_game() -> None:
    g = _followed("en", absence_mode="extend")
    data = status._play(g.table, {}, "UTC", g.now)
    assert data["absences"][0] == {
        "player": "p3",
        "first": "2026-01-05",
        "last": "2026-01-06",
        "why": "vacances",
        "current": True,
    }
    assert [a["player"] for a in data["absences"]] == ["p3", "p2"]
    assert data["absences_move_deadlines"] is True
    assert data["observers"] == {"approved": [ZOE], "waiting": [OTHER]}
    text = "\n".join(
        status._render_game(
            {
                "id": "g1",
                "game": "lupus-in-tabula",
                "players": 8,
                "stalled": [],
                "unreachable": [],
                "held_posts": 0,
                "awaiting_confirmation": 0,
                "outbox_pending": 0,
                **data,
            }
        )
    )
    assert (
        "  absences (deadlines move past them): p3 2026-01-05 to 2026-01-06 (now), "
        "p2 2026-01-12" in text
    )
    assert f"  observers: {ZOE}; waiting for approval: {OTHER}" in text
    quiet = status._play(DeskGame("dracula").table, {}, "UTC", g.now)
    assert quiet["absences"] == [] and quiet["observers"] == {"approved": [], "waiting": []}
    shown = status._render_game(
        {
            "id": "g2",
            "game": "dracula",
            "players": 8,
            "stalled": [],
            "unreachable": [],
            "held_posts": 0,
            "awaiting_confirmation": 0,
            "outbox_pending": 0,
            **quiet,
        }
    )
    assert not any("absences" in line or "observers" in line for line in shown)
