"""What players read about a deadline the game master moved."""

from __future__ import annotations

from tests.desk.desk_game import DeskGame


def test_an_order_after_an_extension_is_changeable_until_the_new_deadline() -> None:
    g = DeskGame("lupus-in-tabula")
    g.admin("EXTEND 2d")
    _, new = g.earliest()
    g.mail("p1", "KILL p5")
    assert f"until {g.table.renderer.when(new, 'en')}" in g.reply()


def test_a_paused_game_does_not_close_early_when_everyone_has_acted() -> None:
    g = DeskGame("lupus-in-tabula", options={"early_close": True})
    g.admin("PAUSE")
    for wolf in ("p1", "p2"):
        g.mail(wolf, "KILL p5")
    g.mail("p3", "SCAN p4")
    for villager in ("p4", "p5", "p6", "p7", "p8"):
        g.mail(villager, "PASS")
    assert g.phase == "night" and g.alive("p5")
    g.admin("RESUME")
    g.mail("p8", "PASS")  # the next order closes the night: everyone has acted (LUP-D29)
    assert g.phase != "night" and not g.alive("p5")
