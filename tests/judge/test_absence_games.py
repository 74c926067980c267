"""Declared absences where the games' rules differ (issue 25): who may be excused (a Lupus
ghost still votes, a dead or removed seat no longer plays) and Dracula's rounds, where no seat
leaves and a silent player's orders are drawn by default."""

from __future__ import annotations

from pbem.core.events import PhaseClosed
from tests.desk.desk_game import DeskGame
from tests.support.game_by_mail import address


def refusal(g: DeskGame, name: str) -> str:
    (mail,) = [m for m in g.last if m.to == (address(name),)]
    return mail.body


def wolves_kill(g: DeskGame, victim: str) -> None:
    for wolf in ("p1", "p2"):  # lupus_roles(8): p1 and p2 are the wolves
        g.mail(wolf, f"TUER {victim}")
    g.deadline()


def round1_awaited(g: DeskGame) -> tuple[str, ...]:
    g.until("round1")
    g.deadline()
    closes = [e for e in g.table.events if isinstance(e, PhaseClosed) and e.key == "round1"]
    return closes[-1].awaited


def test_a_lupus_ghost_still_votes_so_may_be_excused() -> None:
    """LUP-501, LUP-502, LUP-400: the devoured p5 becomes a ghost who is awaited in the
    round-1 vote; his declared absence excuses him from it."""
    options = {"ghost_variant": True}
    control = DeskGame("lupus-in-tabula", lang="fr", options=options)
    g = DeskGame("lupus-in-tabula", lang="fr", options=options)
    for game in (control, g):
        wolves_kill(game, "p5")
        assert not game.alive("p5")
    g.mail("p5", "ABSENCE du 07/01 au 08/01")
    assert "Absence notée du mercredi 7 janvier au jeudi 8 janvier" in refusal(g, "p5")
    assert "p5" in round1_awaited(control)
    assert "p5" not in round1_awaited(g)


def test_a_dead_lupus_player_without_ghosts_and_a_removed_seat_may_not() -> None:
    """LUP-005: an eliminated player takes no further part; a removed seat is gone."""
    g = DeskGame("lupus-in-tabula", lang="fr")
    wolves_kill(g, "p5")
    g.mail("p5", "ABSENCE le 08/01")
    assert "Vous ne jouez plus dans cette partie : une absence ne s'y déclare plus." in (
        refusal(g, "p5")
    )
    g = DeskGame("loup-garou", lang="en")
    g.admin("REMOVE carol")
    g.mail("carol", "ABSENT on 08/01")
    (told,) = [m for m in g.last if m.to == (address("carol"),)]
    assert "You no longer play in this game: no absence can be declared in it." in told.body


def test_a_dracula_absence_over_the_round_change_excuses_the_seat_in_both_rounds() -> None:
    """DRA-006, DRA-009: the round ends and a new one starts with roles dealt again; bob's
    absence runs by the calendar across it. AMB-003 and AMB-064 still draw his missing
    choices (the rules' defaults are not the idle count's business): he is only not counted."""
    control = DeskGame("dracula", lang="fr")
    g = DeskGame("dracula", lang="fr")
    g.mail("bob", "ABSENCE du 14/01 au 17/01")
    for game in (control, g):
        while game.table.summary().get("round", 1) < 2 or game.now.day < 17:
            game.deadline()
    assert g.table.summary()["round"] == 2
    away = [
        (c.key, "bob" in c.awaited, "bob" in a.awaited)
        for c, a in zip(
            [e for e in control.table.events if isinstance(e, PhaseClosed)],
            [e for e in g.table.events if isinstance(e, PhaseClosed)],
            strict=True,
        )
    ]
    excused = [key for key, counted, absent in away if counted and not absent]
    # round 1's last room choice and its final choice (AMB-064's default), round 2's first
    assert excused == ["rooms", "final_choice", "rooms"]
    assert [k for k, counted, absent in away if counted and absent] == ["rooms", "rooms"]
