"""``ROLES`` lists each seat's conditions, not only its card and side."""

from __future__ import annotations

from tests.desk.desk_game import DeskGame


def test_roles_shows_each_seats_conditions() -> None:
    """The game master sees the conditions the rules list for a seat: here the player Penny
    joined at the deal (CAS-201, CAS-370)."""
    g = DeskGame("chasse-aux-sorcieres")
    penny = next(
        p["name"] for p in g.table.summary()["players"] if "penny" in p.get("conditions", [])
    )
    g.admin("ROLES")
    line = next(x for x in g.admin_reply().splitlines() if x.startswith(f"  - {penny}: "))
    assert "conditions: Penny" in line
