"""Issue 15: every mail pbem sends has the HTML alternative, the daemon's own too (alerts,
reminders, held-mail and too-big notices, confirmation requests, no-game replies), behind the
same ``[smtp] html`` switch as the game's mails. The daemon's end-to-end view of one of them
is tests/daemon/test_confirmations.py::test_the_confirmation_request_has_an_html_alternative."""

from __future__ import annotations

import ast
import email
import email.policy
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem.daemon.outbox import OutboxSender
from pbem.daemon.oversize import too_big_reply
from pbem.mail.html import alternative
from pbem.mail.render import bilingual, shared_renderer
from tests.support.mailparts import html_of, text_of

ROOT = Path(__file__).resolve().parents[1]
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _calls_of_build(path: Path) -> list[ast.Call]:
    """The ``build(...)`` calls of a module, and the ``….daemon_mail(...)`` ones (Replies'
    own mails: one ``build`` that always passes the HTML alternative, scanned here too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Name) and node.func.id == "build")
            or (isinstance(node.func, ast.Attribute) and node.func.attr == "daemon_mail")
        )
    ]


def test_every_mail_the_daemon_builds_is_given_its_html_alternative() -> None:
    """Each ``build(...)`` of the daemon passes ``html=``: a mail added later without it
    would be the one text-only mail of a player's mailbox."""
    calls = {
        f"{path.relative_to(ROOT)}:{call.lineno}": call
        for path in sorted((ROOT / "pbem").rglob("*.py"))
        for call in _calls_of_build(path)
    }
    # the daemon's alerts, notices and replies (four through Replies.game_notice), the digest,
    # the archive
    assert len(calls) >= 13
    missing = [
        where
        for where, call in calls.items()
        if isinstance(call.func, ast.Name) and "html" not in {k.arg for k in call.keywords}
    ]
    assert missing == []


def _parse(raw: bytes) -> EmailMessage:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def _too_big(*, html: bool) -> EmailMessage:
    header = b"From: alice@example.test\r\nSubject: photos\r\nMessage-ID: <a@example.test>\r\n\r\n"
    reply = too_big_reply(
        header,
        size=30_000_000,
        cap=1_000_000,
        moderator="moderator@example.test",
        our_addresses=("moderator@example.test",),
        texts=lambda template, params: bilingual(shared_renderer(), template, params),
        now=NOW,
        id_key=b"k",
        html=html,
    )
    assert reply is not None
    return _parse(str(reply[1]["raw"]).encode("latin-1"))


def test_the_too_big_reply_is_text_then_html_saying_the_same() -> None:
    msg = _too_big(html=True)
    assert msg.get_content_type() == "multipart/alternative"
    text, page = text_of(msg), html_of(msg)
    assert page is not None
    assert "a pas été lu" in text and "a pas été lu" in page
    assert "was not read" in text and 'lang="en"' in page  # the English half, marked as such


def test_html_false_keeps_the_daemons_mails_text_only() -> None:
    """``[smtp] html = false``: the daemon's own mails are text only, like the game's."""
    msg = _too_big(html=False)
    assert msg.get_content_type() == "text/plain"
    assert alternative("s", "b", enabled=False) == ""


@pytest.mark.parametrize("html_mail", [True, False])
def test_an_alert_of_the_outbox_sender_follows_the_html_switch(html_mail: bool) -> None:
    sender = OutboxSender(
        transport=None,  # type: ignore[arg-type]  # never sends here
        stores=list,
        alert_store=None,  # type: ignore[arg-type]
        clock=lambda: NOW,
        moderator="moderator@example.test",
        admins=["gm@example.test"],
        bounce_address="bounce@example.test",
        html_mail=html_mail,
    )
    row = sender._alert_row("dead:x", NOW, ("[pbem] lettre morte", "Un message n'est pas parti.\n"))
    msg = _parse(str(row["raw"]).encode("latin-1"))
    assert "n'est pas parti" in text_of(msg)
    assert (html_of(msg) is not None) is html_mail
