"""Requirement 5 in the engine: ``receive(strong=False)`` (the sender passed ``[auth] methods``
but not ``final_methods``) refuses exactly the commands the rules call final, with a reason,
and accepts the others."""

from __future__ import annotations

from email.message import EmailMessage

from tests.dracula.scenario import QUIET, advance, table_from
from tests.dracula.scenario import Game as DraculaGame
from tests.dracula.scenario import mail as dracula_mail
from tests.loupgarou.scenario import LG
from tests.support.game_by_mail import address


def _private(sender: str, body: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = address(sender)
    msg["To"] = "moderator"
    msg["Subject"] = ""
    msg["Message-ID"] = f"<{sender}-{abs(hash(body))}@test>"
    msg.set_content(body)
    return msg


def test_dracula_orders_are_final_so_a_weak_mail_cannot_give_them() -> None:
    """Dracula AMB-007: every accepted order is final, hence needs the strong layers."""
    g = advance(DraculaGame(options=QUIET), 3)
    t = table_from(g)
    order = dracula_mail("Eve", "ROOM boudoir", to="mj@example.org")
    weak = t.receive(order, channel="private", now=g.now, strong=False)
    assert not weak.events and "stronger authentication" in weak.outgoing[0].body
    strong = t.receive(order, channel="private", now=g.now, strong=True)
    assert strong.events
    help_ = t.receive(
        dracula_mail("Eve", "HELP", to="mj@example.org"), channel="private", now=g.now, strong=False
    )
    assert "stronger authentication" not in help_.outgoing[0].body


def test_loupgarou_vote_final_only_when_changes_are_off() -> None:
    """LG: a vote is final only with ``vote_changes_allowed = false``; a weak mail may still
    vote when votes can be changed."""
    for changes, accepted in ((True, True), (False, False)):
        g = LG(options={"vote_changes_allowed": changes})
        g.to_night1(mayor="ivan")
        g.night()
        msg = _private("judy", "VOTE bob")
        msg.replace_header("To", "list")
        step = g.table.receive(msg, channel="list", now=g.now, strong=False)
        assert bool(step.events) is accepted, changes
