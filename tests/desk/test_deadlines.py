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


def test_a_deadline_a_close_in_a_pause_leaves_standing_keeps_its_time_lg_d31() -> None:
    """LG-D31: the dead Mayor's sash closes (CLORE) in a pause while the day's vote runs on:
    the new pause starts at the close for what it opened; the day's deadline, frozen since the
    PAUSE, gets back at REPRISE exactly what it had left then."""
    g = DeskGame("loup-garou")
    g.until("night", 1)
    mayor = g.table.state.mayor
    assert mayor is not None
    g.mail("alice", f"KILL {mayor}")
    g.mail("bob", f"KILL {mayor}")
    g.until("day")
    assert set(g.table.deadlines()) == {"day", "sash"}
    left = g.table.deadlines()["day"] - g.now
    g.admin("PAUSE")
    g.advance(3600)
    g.admin("CLOSE")
    assert set(g.table.rules.deadlines(g.table.state)) == {"day"}
    g.advance(5 * 3600)
    g.admin("RESUME")
    assert g.table.deadlines()["day"] - g.now == left
