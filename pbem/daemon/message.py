"""Reading a raw mail the way the service needs it: its exactly-once key, its parse, its addresses."""

from __future__ import annotations

import contextlib
import email
import email.policy
import functools
import hashlib
import logging
from email.message import EmailMessage, Message

from pbem.mail.address import getaddresses
from pbem.mail.inbound import parse_once_policy
from pbem.mail.parse_once import reparse
from pbem.mail.scrub import without_codes

log = logging.getLogger(__name__)


def content_key(raw: bytes) -> str:
    """The exactly-once key: sha256 of the raw bytes (never the UID, never the Message-ID)."""
    return hashlib.sha256(raw).hexdigest()


def parse(raw: bytes, head: Message | None = None) -> EmailMessage:
    """Parse with the modern policy, each header parsed once (hostile input may raise: the
    caller shunts). ``head``: the headers-only parse of the same ``raw``
    (:func:`pbem.daemon.intake.inbound.headers_of`), whose reading a single-part mail reuses
    (:func:`pbem.mail.parse_once.reparse`)."""
    if head is not None:
        again = reparse(head)
        if again is not None:
            return again
    msg = email.message_from_bytes(raw, policy=parse_once_policy())
    assert isinstance(msg, EmailMessage)
    return msg


def header_addresses(msg: Message, *headers: str) -> list[str]:
    """The addresses in ``headers``, lower-case (a header that cannot be read is skipped)."""
    vals: list[str] = []
    for h in headers:
        for v in msg.get_all(h, []):
            try:
                vals.append(str(v))
            except Exception:  # a header the policy cannot render: ignore it
                continue
    return list(_addresses(tuple(vals)))


@functools.lru_cache(maxsize=1024)  # the same few players' headers, mail after mail
def _addresses(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(a.lower() for _, a in getaddresses(values) if a)


def visible_text(msg: EmailMessage) -> str:
    """Subject and text parts, quoted lines included (a plain reply quotes the request)."""
    out = [str(msg.get("Subject", "") or "")]
    with contextlib.suppress(Exception):
        for part in msg.walk():
            if part.get_content_maintype() == "text" and not part.is_multipart():
                out.append(str(part.get_content())[:100_000])
    return "\n".join(out)


def raw_without_codes(raw: bytes) -> bytes | None:
    """A list post without its secret codes (:mod:`pbem.mail.scrub`); None if it cannot be
    rebuilt (then it is not relayed: better silent than leaking a code)."""
    try:
        return without_codes(raw)
    except Exception:
        log.warning("a list post could not be cleaned of its codes: not relayed")
        return None


def safe_subject(raw: bytes) -> str:
    """The Subject of a mail that may not parse (read from its head alone, at most 200 characters);
    empty if unreadable."""
    with contextlib.suppress(Exception):
        head = raw.split(b"\n\n", 1)[0][:8192]
        m = email.message_from_bytes(head)
        return str(m.get("Subject", ""))[:200]
    return ""
