"""What players read about a deadline the game master moved."""

from __future__ import annotations

from tests.desk.helpers import DeskGame


def test_an_order_after_an_extension_is_changeable_until_the_new_deadline() -> None:
    g = DeskGame("lupus-in-tabula")
    g.admin("EXTEND 2d")
    _, new = g.earliest()
    g.mail("p1", "KILL p5")
    assert f"until {g.table.renderer.when(new, 'en')}" in g.reply()
