"""What a Dracula player is offered (his HELP, CMD-21: « list of commands valid for the
sender now ») against what the rules take: the object uses' combinations (DRA-300, DRA-311,
AMB-031, AMB-041) and PASSE (CMD-16, AMB-001), which a sweep of whole bot games found
offered but refused, or taken but never offered (tests/dracula/test_available_verbs.py)."""

from __future__ import annotations

from pbem.core.ids import PlayerId
from tests.dracula.scenario import QUIET, Game, advance


def _verbs(g: Game, name: str) -> frozenset[str]:
    return g.rules.available_verbs(g.state, PlayerId(name))


def test_the_magnifier_is_not_offered_once_a_room_is_chosen() -> None:
    """DRA-300, ORD-04: the magnifier is used instead of a room, at the first choice: once
    his room is chosen it is refused (« room_already_chosen »), so no longer offered."""
    g = advance(Game(options=QUIET), 3)
    g.give("Cid", "magnifier", "garlic")
    assert {"magnifier", "garlic"} <= _verbs(g, "Cid")
    g.do("Cid", "ROOM ballroom")
    assert "magnifier" not in _verbs(g, "Cid") and "garlic" in _verbs(g, "Cid")
    assert g.fails("Cid", "MAGNIFIER") == "room_already_chosen"


def test_the_key_is_offered_instead_of_a_room_and_never_with_garlic_candle_or_paint() -> None:
    """DRA-311: the key is used instead of a room; AMB-041: never with garlic, candle or a
    painting, either way round: each is offered only while it can still be taken."""
    g = advance(Game(options=QUIET), 3)
    g.give("Cid", "key", "garlic")
    g.give("Dan", "key")
    g.give("Fay", "key", "paintkit", "candle")
    g.do("Cid", "GARLIC")
    assert "key" not in _verbs(g, "Cid")
    assert g.fails("Cid", "KEY") == "not_with_key"
    g.do("Dan", "ROOM ballroom")
    assert "key" not in _verbs(g, "Dan")
    assert g.fails("Dan", "KEY") == "room_already_chosen"
    g.do("Fay", "KEY")
    assert {"paint", "candle"}.isdisjoint(_verbs(g, "Fay"))
    assert g.fails("Fay", "PAINT a rose") == "not_with_key"
    assert g.fails("Fay", "CANDLE") == "not_with_key"


def test_pass_is_offered_to_who_is_awaited_when_a_step_may_close_early() -> None:
    """CMD-16, AMB-001: PASSE tells the game master a player is done with the step, which
    closes early once nobody is awaited (early_close): HELP offers it to each awaited
    player until he sends it; without early_close it changes nothing and is not offered."""
    g = advance(Game(options={**QUIET, "early_close": True}), 3)
    assert "pass" in _verbs(g, "Cid") and "room" in _verbs(g, "Cid")
    g.do("Cid", "PASS")
    assert "pass" not in _verbs(g, "Cid")
    quiet = advance(Game(options=QUIET), 3)
    assert "pass" not in _verbs(quiet, "Cid")


def test_cancel_is_never_offered_as_orders_are_final() -> None:
    """AMB-007 (private_orders_final): an order given is final, so CANCEL is never offered,
    before or after an order, and CANCEL sent anyway says there is nothing to cancel."""
    g = advance(Game(options=QUIET), 3)
    assert "cancel" not in _verbs(g, "Cid")
    assert g.fails("Cid", "CANCEL") == "orders_final"
    g.do("Cid", "ROOM ballroom")
    assert "cancel" not in _verbs(g, "Cid")
    assert g.fails("Cid", "CANCEL ROOM") == "orders_final"


def test_the_players_rules_page_does_not_list_cancel_as_a_useful_command() -> None:
    """AMB-007: REGLES/RULES (pbem/rules, the same pages as docs/players) listed « ANNULER
    mot-clé » among the useful commands of a game that refuses every ANNULER."""
    from pathlib import Path

    import pbem.rules

    folder = Path(pbem.rules.__file__).parent
    for lang, word in (("fr", "ANNULER"), ("en", "CANCEL")):
        (useful,) = [
            line
            for line in (folder / f"dracula.{lang}.md").read_text(encoding="utf-8").splitlines()
            if line.startswith(("**Commandes utiles", "**Useful commands"))
        ]
        assert f"{word} mot-clé" not in useful and f"{word} keyword" not in useful
        assert f"({word} " in useful  # said to be refused
