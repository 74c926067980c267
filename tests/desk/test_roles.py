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


def test_roles_names_a_seat_that_changed_hands_as_the_players_know_it() -> None:
    """Issue 13, LUP-617: after REPLACE p5 WITH Zoe, the orders ROLES lists named the seat
    « KILL p5 »; they name it « KILL Zoe », as the rollback notice and the receipts do; the
    history of the wolf who sent it shows the order as his receipt did."""
    g = DeskGame("lupus-in-tabula")
    g.admin("REPLACE p5 WITH zoe@example.net Zoe")
    g.mail("p1", "KILL Zoe")
    g.admin("ROLES")
    line = next(x for x in g.admin_reply().splitlines() if x.startswith("  - p1: "))
    assert "orders: KILL Zoe" in line and "p5" not in line
    g.admin("HISTORY p1 ALL")
    assert "KILL Zoe" in g.admin_reply() and "KILL p5" not in g.admin_reply()


def test_roles_names_each_card_in_its_holder_s_gender() -> None:
    """LUP-701: a woman is « Voyante », « Loup-Garou » has no feminine; the game master's
    ROLES said « p3 : Voyant » of her, where her own role mail says « Voyante »."""
    g = DeskGame("lupus-in-tabula", lang="fr", genders={"p3": "f", "p4": "m"})
    g.admin("ROLES")
    lines = g.admin_reply().splitlines()
    assert next(x for x in lines if x.startswith("  - p3 : ")).startswith("  - p3 : Voyante,")
    assert next(x for x in lines if x.startswith("  - p4 : ")).startswith("  - p4 : Villageois,")
