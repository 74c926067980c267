"""Issue 10, item 8: malformed headers are data. No header value makes the table raise, on a
private mail or a list post, nor the release of a held post (the daemon-level test is
tests/daemon/test_malformed_headers.py)."""

from __future__ import annotations

import pytest

from pbem.mail.address import is_mailable
from pbem.mail.inbound import message_id_of, parse_bytes, sender_of
from pbem.table import Table
from pbem.tools.simulate import EPOCH
from tests.test_sender_identity import setup

VALUES = [
    *("", "<>", "<<>>", "@", "frank@", "@x", '"unterminated <a@b>', "a@b.c, ", ",,,"),
    *("=?utf-8?q?=FF?= <a@b>", "=?x?q?a?=", "<a@b.c", "(comment", '"" <>', "\\", ":;"),
    *("a@[1.2.3", "=?utf-8?b?####?=", "group: a@b;", "group:;", "\x00", "é@é", "<\udcff@x>"),
]
HEADERS = ["From", "To", "Cc", "Message-ID", "In-Reply-To", "References", "Subject", "Date"]


@pytest.fixture(scope="module")
def table() -> Table:
    t, step = Table.new(setup("alice@example.org"), EPOCH)
    t.apply(step)
    return t


@pytest.mark.parametrize("header", HEADERS)
def test_malformed_header_values_never_raise_in_the_table(header: str, table: Table) -> None:
    for value in VALUES:
        head = {"From": "alice@example.org", "To": "mj@example.org", "Message-ID": "<1@x>"}
        head[header] = value
        raw = "".join(f"{k}: {v}\r\n" for k, v in head.items()) + "\r\nKILL dave\r\n"
        msg = parse_bytes(raw.encode("utf-8", "surrogateescape"))
        for channel in ("private", "list"):
            table.receive(msg, channel=channel, now=EPOCH)  # type: ignore[arg-type]
        table.release(msg, EPOCH)


@pytest.mark.parametrize(
    ("raw", "sender", "message_id"),
    [
        (b"From: frank@\r\nMessage-ID: <>\r\n", None, None),
        (b"From: Alice <ALICE@example.org>\r\nMessage-ID: <a@b>\r\n", "alice@example.org", "<a@b>"),
        ("From: Zoé <zoé@exemple.fr>\r\n".encode(), "zoé@exemple.fr", None),
        (b"Message-ID: <\xff@x>\r\n", "", None),
    ],
)
def test_sender_and_message_id_are_read_without_raising(
    raw: bytes, sender: str | None, message_id: str | None
) -> None:
    """``sender`` None: no mailable address (the stdlib gives "" or "frank@" by version)."""
    msg = parse_bytes(raw + b"\r\nbody\r\n")
    if sender is None:
        assert not is_mailable(sender_of(msg))
    else:
        assert sender_of(msg) == sender
    assert message_id_of(msg) == message_id
