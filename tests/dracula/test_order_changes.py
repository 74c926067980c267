"""AMB-007 ``private_orders_final = false``: the last valid private order of a step wins;
ANNULER / CANCEL withdraws one; an order whose step has closed stays final."""

from __future__ import annotations

import random

import pytest

from pbem.core.errors import SetupError
from pbem.core.game import GameSpec
from pbem.core.ids import PlayerId
from pbem.games.dracula import Dracula
from tests.dracula.scenario import NOW, QUIET, Game, advance, mail, players, table_from

CHANGING = {**QUIET, "private_orders_final": False}


def test_amb_007_early_close_needs_final_orders() -> None:
    """AMB-007: "required anyway for early closing": the combination is refused at setup."""
    options = {"early_close": True, "private_orders_final": False}
    with pytest.raises(SetupError, match="AMB-007"):
        Dracula().setup(GameSpec(players(), options, "en"), NOW, random.Random(0))


def test_amb_007_a_new_room_replaces_the_first_until_the_step_closes() -> None:
    """AMB-007 false: the last room sent before the room choice closes is where he goes;
    once the step has closed, the room is final."""
    g = advance(Game(options=CHANGING), 3)
    g.do("Cid", "ROOM boudoir")
    g.do("Cid", "ROOM dungeons")
    assert g.state.position(PlayerId("Cid")) == "dungeons"
    g.do("Dan", "ROOM ballroom")
    g.do("Dan", "CANCEL ROOM")
    assert g.state.order_of(PlayerId("Dan"), "room") is None
    g.rooms({"Bob": "dungeons"})
    g.close("rooms")
    assert g.phase == "bites"
    assert g.fails("Cid", "ROOM boudoir") == "not_now"
    assert g.fails("Cid", "CANCEL ROOM") == "order_final"


def test_amb_007_default_orders_are_final_and_cancel_is_refused() -> None:
    """AMB-007 true (default): a second room is refused, ANNULER too."""
    g = advance(Game(options=QUIET), 3)
    g.do("Cid", "ROOM boudoir")
    assert g.fails("Cid", "ROOM dungeons") == "order_final"
    assert g.fails("Cid", "CANCEL ROOM") == "orders_final"


def test_amb_007_a_cancelled_garlic_goes_back_to_the_hand_and_does_nothing() -> None:
    """AMB-007 false, AMB-040: a use withdrawn is not consumed and has no effect; a use
    repeated is refused with the way to withdraw it."""
    g = advance(Game(options=CHANGING), 3)
    g.give("Cid", "garlic")
    g.do("Cid", "GARLIC")
    assert "garlic" not in g.state.seat(PlayerId("Cid")).hand
    assert g.fails("Cid", "GARLIC") == "order_standing"
    assert "cancel" in g.rules.available_verbs(g.state, PlayerId("Cid"))
    g.do("Cid", "CANCEL GARLIC")
    assert "garlic" in g.state.seat(PlayerId("Cid")).hand
    assert "cancel" not in g.rules.available_verbs(g.state, PlayerId("Cid"))
    g.mark()
    g.night({"Cid": "dungeons", "Bob": "dungeons"}, {"Bob": "Cid"})
    assert g.to("Bob", "bite_prompt")[0].params["status"] != "nausea"
    assert g.side("Cid") == "vampire"  # no garlic: Bob bit him


def test_amb_007_a_vampire_changes_his_bite_and_dracula_his_abstention() -> None:
    """AMB-007 false: the last bite before the bites close is the one made; Dracula's
    MORDRE PERSONNE is replaced by a bite (DRA-113: the same kind of order)."""
    g = advance(Game(options=CHANGING), 3)
    g.rooms({"Ana": "boudoir", "Bob": "boudoir", "Cid": "boudoir", "Dan": "boudoir"})
    g.close("rooms")
    g.do("Bob", "BITE Cid")
    g.do("Bob", "BITE Dan")
    g.do("Ana", "BITE NOBODY")
    g.do("Ana", "BITE Cid")
    assert g.state.orders[(PlayerId("Bob"), "bite")].targets == ("Dan",)
    assert g.state.order_of(PlayerId("Ana"), "abstain") is None
    g.close("bites")
    assert g.side("Dan") == "vampire" and g.side("Cid") == "vampire"


def test_amb_007_a_curse_told_at_once_cannot_be_taken_back() -> None:
    """AMB-007 false with AMB-054 curse_notice = immediate: the target was told, so the
    curse is final; with the default notice it is withdrawn and nobody is cursed."""
    g = advance(Game(options={**CHANGING, "curse_notice": "immediate"}), 3)
    g.give("Cid", "grimoire")
    g.do("Cid", "CURSE Dan")
    assert g.fails("Cid", "CANCEL CURSE") == "order_final"
    g2 = advance(Game(options=CHANGING), 3)
    g2.give("Cid", "grimoire")
    g2.do("Cid", "CURSE Dan Eve")
    g2.do("Cid", "CANCEL CURSE")
    g2.do("Cid", "CURSE Fay")
    g2.night({"Bob": "dungeons"})
    g2.finish_night()
    cursed = [p for p in ("Dan", "Eve", "Fay") if g2.state.seat(PlayerId(p)).cursed]
    assert cursed == ["Fay"]


@pytest.mark.parametrize(
    ("lang", "changeable", "cancel"),
    [
        ("fr", "modifiable d'ici là", "ANNULER PIECE"),
        ("en", "you may change it until then", "CANCEL ROOM"),
    ],
)
def test_amb_007_the_receipt_says_the_order_may_change(
    lang: str, changeable: str, cancel: str
) -> None:
    """AMB-007 false by mail: the receipt of a private order gives its deadline and says it
    may change (the default says « définitif »); a bare ANNULER names the player's order."""
    g = advance(Game(options=CHANGING), 3)
    table = table_from(g, lang=lang)
    room = "PIECE boudoir" if lang == "fr" else "ROOM boudoir"
    step = table.receive(mail("Cid", room, to="mj@example.org"), channel="private", now=g.now)
    (reply,) = [m for m in step.outgoing if "/reply/" in m.key]
    assert changeable in reply.body, reply.body
    table.apply(step)
    bare = "ANNULER" if lang == "fr" else "CANCEL"
    step = table.receive(mail("Cid", bare, to="mj@example.org"), channel="private", now=g.now)
    (reply,) = [m for m in step.outgoing if "/reply/" in m.key]
    assert cancel in reply.body, reply.body


def test_amb_007_a_changeable_order_is_offered_again_with_cancel() -> None:
    """AMB-007 false: once a room is sent, ROOM stays among the commands (a new one replaces
    it) with ANNULER; by default neither is offered."""
    g = advance(Game(options=CHANGING), 3)
    g.do("Cid", "ROOM boudoir")
    verbs = g.rules.available_verbs(g.state, PlayerId("Cid"))
    assert {"room", "cancel"} <= verbs
    quiet = advance(Game(options=QUIET), 3)
    quiet.do("Cid", "ROOM boudoir")
    assert not {"room", "cancel"} & quiet.rules.available_verbs(quiet.state, PlayerId("Cid"))


def test_amb_053_amb_007_two_curses_in_one_mail_add_up_where_orders_may_change() -> None:
    """AMB-053 with AMB-007 false: a grimoire holder's two curse lines in one mail both stand
    (``curse``, ``curse#2``), as they do by default; the receipt read the first as replaced
    by the second, and the mail was played again without it, so its target was never cursed."""
    g = advance(Game(options=CHANGING), 3)
    g.give("Cid", "grimoire")
    table = table_from(g, lang="en")
    body = "CURSE Dan\nCURSE Eve"
    step = table.receive(mail("Cid", body, to="mj@example.org"), channel="private", now=g.now)
    (reply,) = [m for m in step.outgoing if "/reply/" in m.key]
    assert "replaced" not in reply.body, reply.body
    table.apply(step)
    assert {v for a, v in table.state.orders if a == "Cid"} == {"curse", "curse#2"}
