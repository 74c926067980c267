"""The parts of a mail pbem sent, as a test reads them.

Every mail pbem sends may be multipart/alternative (a text part, then its HTML alternative:
issue 15), where ``get_content()`` of the whole message fails: tests read the part they
check through these helpers instead."""

from __future__ import annotations

import email
from email.message import EmailMessage, Message

from pbem.mail.parse_once import parse_once_policy


def parse(raw: bytes) -> EmailMessage:
    """A raw mail parsed as the daemon parses it: ``email.policy.default``'s results, each header
    parsed once (that policy alone re-parses a header on every read, and ``get_body`` reads each
    part's Content-Type dozens of times)."""
    msg = email.message_from_bytes(raw, policy=parse_once_policy())
    assert isinstance(msg, EmailMessage)
    return msg


def text_of(msg: Message) -> str:
    """The text/plain part of ``msg`` (the message itself when it is text only)."""
    assert isinstance(msg, EmailMessage), "parse with parse() or policy=email.policy.default"
    part = msg.get_body(("plain",))
    assert part is not None, f"no text part in a {msg.get_content_type()} mail"
    return str(part.get_content())


def html_of(msg: Message) -> str | None:
    """The text/html alternative of ``msg``, or None when it is text only."""
    assert isinstance(msg, EmailMessage), "parse with parse() or policy=email.policy.default"
    part = msg.get_body(("html",))
    return None if part is None else str(part.get_content())
