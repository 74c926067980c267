"""ROLLBACK with orders that arrived after the resolution (issue 14): kept where still legal,
dropped otherwise, every affected player told."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from pbem.core.errors import IllegalNow
from pbem.core.events import RolledBack
from tests.desk.desk_game import DeskGame


def to_night_one() -> DeskGame:
    g = DeskGame("loup-garou", lang="fr")
    g.mail("alice", "MORDRE ivan")
    g.deadline()
    for name in g.names:
        g.mail(name, "MAIRE ivan")
    g.deadline()
    assert (g.phase, g.number) == ("night", 1)
    return g


def test_rollback_of_a_night_council_reapplies_the_later_orders_where_legal() -> None:
    g = to_night_one()
    for wolf in g.table.state.council:
        g.mail(wolf, "TUER judy")
    g.deadline()  # the council closes (LG: the wolves' victim is known to the witch)
    assert "council" not in g.table.deadlines()
    g.mail("dave", "SONDER alice")  # legal before the council closes too
    g.mail("eve", "SAUVER")  # the witch saves the victim: only once the victim is known
    g.advance(60)
    g.admin("ANNULER RESOLUTION 24h")
    assert "✓ ANNULER RESOLUTION 24h" in g.admin_reply()
    assert set(g.table.deadlines()) == {"council", "night"}
    assert g.table.deadlines()["council"] == g.now + timedelta(hours=24)
    # the seer's order stands, re-applied; the witch's is dropped with the rules' reason
    dave = g.text_to("dave")
    assert "réappliqués :\n  - SONDER alice" in dave
    assert "Vos ordres qui tiennent :\n  - SONDER alice" in dave
    eve = g.text_to("eve")
    assert "abandonnés :\n  - SAUVER judy : La victime des loups n'est pas encore connue" in eve
    # the wolves' votes sent before the resolution stand
    assert "Vos ordres qui tiennent :\n  - TUER judy" in g.text_to("alice")
    assert "Résolution annulée" in g.public_text()
    # the council closes again on the votes that stand
    g.deadline()
    assert "council" not in g.table.deadlines()


def test_rollbacks_drop_a_vote_no_longer_legal_and_keep_the_voided_events() -> None:
    g = DeskGame("lupus-in-tabula")
    g.mail("p1", "KILL p5")
    g.mail("p2", "KILL p5")
    g.deadline()
    assert not g.alive("p5")
    log = list(g.table.events)
    g.deadline()  # the debate closes: round 1 of the votes
    g.post("p4", "VOTE p6")
    g.admin("ROLLBACK 2h")  # the debate is open again: voting has not started
    assert g.phase == "debate"
    assert "dropped:\n  - VOTE p6: Voting has not started yet" in g.text_to("p4")
    g.admin("ROLLBACK 2h")  # and the night before it
    assert g.alive("p5") and g.phase == "night"
    assert "Your orders that stand:\n  - KILL p5" in g.text_to("p1")
    rolled = [e for e in g.table.events if isinstance(e, RolledBack)]
    assert g.table.events[: len(log)] == log  # the audit trail: nothing removed
    assert [r.end for r in rolled][-1] > len(log) and len(rolled) == 2


def test_rollback_without_a_resolution_is_rejected() -> None:
    g = DeskGame("lupus-in-tabula")
    g.admin("ROLLBACK 24h")
    assert "There is no resolution to roll back." in g.admin_reply()
    g.admin("ROLLBACK soon")
    assert "Unreadable duration" in g.admin_reply()


def test_rollback_in_dracula_keeps_the_rooms_chosen_and_drops_dracula_s_later_choice() -> None:
    """Dracula's orders are its own ``Order`` events, of the same shape as ``ActionSet``."""
    g = DeskGame("dracula")
    g.deadline()  # day 1 closes: the humans choose their rooms
    g.mail("bob", "ROOM BOUDOIR")
    g.mail("cid", "ROOM BALLROOM")
    g.deadline()  # the rooms close: Dracula chooses last (DRA: first night)
    g.mail("ana", "ROOM DUNGEONS")
    g.admin("ROLLBACK 1h")
    assert set(g.table.deadlines()) == {"rooms"}
    assert "Your orders that stand:\n  - ROOM BOUDOIR" in g.text_to("bob")
    assert "Your orders that stand:\n  - ROOM BALLROOM" in g.text_to("cid")
    assert "dropped:\n  - ROOM DUNGEONS: On the first night you choose your room last" in (
        g.text_to("ana")
    )


def test_rollback_names_a_seat_that_changed_hands_as_the_players_know_it() -> None:
    """Issue 13 with issue 14, LUP-603, LUP-617: after REMPLACER p5 par Zoe, the orders a
    rollback lists (standing, and dropped with the rules' reason) named the seat « p5 »: they
    name it « Zoe », as the receipts and the rules' reasons do."""
    g = DeskGame("lupus-in-tabula")
    g.admin("REPLACE p5 WITH zoe@example.net Zoe")
    g.admin("REPLACE p6 WITH yann@example.net Yann")
    g.mail("p1", "KILL Zoe")
    g.mail("p2", "KILL Zoe")
    g.deadline()
    g.deadline()  # the debate closes: round 1 of the votes
    g.post("p4", "VOTE Yann")
    g.admin("ROLLBACK 2h")  # the debate is open again: voting has not started
    assert "dropped:\n  - VOTE Yann: Voting has not started yet" in g.text_to("p4")
    g.admin("ROLLBACK 2h")  # and the night before it
    assert "Your orders that stand:\n  - KILL Zoe" in g.text_to("p1")
    assert not any(
        " p5" in m.body or " p6" in m.body
        for m in g.last
        if m.to and m.to[0].startswith(("p1@", "p2@", "p4@"))
    )


def test_a_second_curse_of_the_night_is_told_as_its_command_amb_053() -> None:
    """AMB-053: Dracula logs a night's second curse as « curse#2 »; the orders a rollback lists
    named it « CURSE#2 », a command nobody can send: it is « MAUDIRE »/« CURSE »."""
    from pbem.desk.common import order_text
    from pbem.games.dracula import Dracula
    from pbem.games.dracula.events import Order

    specs = Dracula().all_commands
    second = Order("Cid", "curse#2", ("Fay",))  # type: ignore[arg-type]
    assert order_text(second, specs, "fr", {"Fay": "Zoe"}) == "MAUDIRE Zoe"
    assert order_text(second, specs, "en") == "CURSE Fay"


def test_a_rollback_tells_a_dropped_order_s_reason_in_words_that_agree_with_its_reader(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """LG-621, LG-D37: a rollback's dropped orders carry the rules' reasons as the receipts
    do, for their reader: « Vous êtes déjà une louve » to Eve, not the neutral « un loup »
    (the reason was rendered without its reader). The rules are made to refuse Eve's order
    again as the Thief's refusal does: no four-night game to reach it."""
    g = DeskGame("loup-garou", lang="fr", genders={"eve": "f"})
    g.mail("alice", "MORDRE ivan")
    g.deadline()
    for name in g.names:
        g.mail(name, "MAIRE ivan")
    g.deadline()
    for wolf in g.table.state.council:
        g.mail(wolf, "TUER judy")
    g.deadline()
    g.mail("eve", "SAUVER")
    rules = g.table.rules
    decide = rules.decide

    def refuse_eve(state: Any, actor: Any, command: Any, now: Any, channel: str) -> Any:
        if actor == "eve":
            raise IllegalNow("already_wolf")
        return decide(state, actor, command, now, channel)

    monkeypatch.setattr(rules, "decide", refuse_eve)
    g.admin("ANNULER RESOLUTION 24h")
    assert "abandonnés :\n  - SAUVER judy : Vous êtes déjà une louve." in g.text_to("eve")
