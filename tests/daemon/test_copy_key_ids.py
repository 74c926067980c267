"""The copy keys' Message-ID and the sender's From read without the header registry when they
are plain (issue 23) read exactly as the registry reads them: the same keys for odd headers
(folded, commented, quoted, missing, duplicated, 8-bit, set by a program)."""

from __future__ import annotations

import re
from email.message import EmailMessage, Message

import pytest

from pbem.daemon.auth import _from
from pbem.daemon.dedup import _message_id, copy_keys
from pbem.daemon.intake.inbound import headers_of
from pbem.daemon.message import parse
from pbem.mail.address import getaddresses


def _registry_message_id(msg: Message) -> str:
    """The reading before issue 23: the header registry's, whitespace removed."""
    try:
        value = str(msg.get("Message-ID", "") or "")
    except Exception:
        return ""
    value = re.sub(r"\s+", "", value)
    return "" if value in ("", "<>") else value


def _registry_from(msg: Message) -> str:
    try:
        return (getaddresses([str(msg.get("From", ""))])[0][1] or "").lower()
    except Exception:
        return ""


MESSAGE_IDS = [
    "<plain.1@example.org>",
    "  <padded@example.org>  ",
    "\r\n <folded-before@example.org>",
    "<folded@\r\n example.org>",
    "<a b@example.org>",
    "<a@b> trailing",
    "<a@b>(comment)",
    "(comment) <a@b>",
    '<"quoted local"@example.org>',
    "<a@[192.0.2.1]>",
    "<no-right-part>",
    "<a@b",
    "a@b",
    "<>",
    "",
    "<=?utf-8?q?x?=@example.org>",
    "=?utf-8?q?=3Ca=40b=3E?=",
    "<a..b@example.org>",
    "<.a@example.org>",
    "<a.@example.org>",
    "<a@b.>",
    "<é@example.org>",
    "<a@b><c@d>",
    "<a\t@b>",
    "<!#$%&'*+/=?^_`{|}~-@x.y>",
]


@pytest.mark.parametrize("value", MESSAGE_IDS, ids=[f"id{i}" for i in range(len(MESSAGE_IDS))])
def test_message_id_reads_as_the_registry(value: str) -> None:
    raw = (
        f"From: alice@example.org\r\nMessage-ID: {value}\r\nSubject: x\r\n\r\nVOTE bob\r\n"
    ).encode("utf-8", "surrogateescape")
    for msg in (parse(raw), headers_of(raw)):
        assert _message_id(msg) == _registry_message_id(msg)


def test_message_id_missing_duplicated_and_lower_case() -> None:
    missing = parse(b"From: alice@example.org\r\n\r\nVOTE bob\r\n")
    assert _message_id(missing) == "" == _registry_message_id(missing)
    twice = parse(b"message-id: <first@x.y>\r\nMessage-ID: <second@x.y>\r\n\r\nx\r\n")
    assert _message_id(twice) == "<first@x.y>" == _registry_message_id(twice)
    odd_first = parse(b"Message-ID: (c) <first@x.y>\r\nMessage-ID: <second@x.y>\r\n\r\nx\r\n")
    assert _message_id(odd_first) == _registry_message_id(odd_first)


def test_message_id_set_by_a_program() -> None:
    msg = EmailMessage()
    msg["From"] = "alice@example.org"
    msg["Message-ID"] = "<set@example.org>"
    assert _message_id(msg) == "<set@example.org>" == _registry_message_id(msg)
    assert copy_keys(msg, "Alice@Example.org") == copy_keys(parse(bytes(msg)), "alice@example.org")


FROMS = [
    "alice@example.org",
    "Alice <ALICE@example.org>",
    '"Alice, the first" <alice@example.org>',
    "alice@example.org <mallory@evil.test>",
    "=?utf-8?q?Alice_=C3=A9?= <alice@example.org>",
    "frank@",
    "",
    "undisclosed-recipients:;",
    "a@b, c@d",
]


@pytest.mark.parametrize("value", FROMS, ids=[f"from{i}" for i in range(len(FROMS))])
def test_from_reads_as_before(value: str) -> None:
    raw = f"From: {value}\r\nSubject: x\r\n\r\nVOTE bob\r\n".encode()
    msg = parse(raw)
    assert _from(msg) == _registry_from(msg)
    assert _from(msg) == _registry_from(msg)  # the kept reading too
