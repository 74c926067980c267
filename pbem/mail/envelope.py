"""Outgoing mail as bytes: stable Message-ID, threading and loop-safety headers (RELIABILITY §2.4).

Pure: the time comes in as an argument. The bytes are built once, at commit time, and stored in the
outbox, so a retry resends exactly the same message with the same Message-ID (requirement 9).
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from email.charset import QP, Charset
from email.header import Header
from email.mime.text import MIMEText
from email.policy import compat32
from email.utils import format_datetime, getaddresses
from typing import Protocol


class OutgoingLike(Protocol):
    """The fields of the engine's ``Outgoing`` this module reads (structural, no import)."""

    @property
    def key(self) -> str: ...
    @property
    def to(self) -> tuple[str, ...]: ...
    @property
    def public(self) -> bool: ...
    @property
    def subject(self) -> str: ...
    @property
    def body(self) -> str: ...
    @property
    def in_reply_to(self) -> str | None: ...
    @property
    def thread(self) -> str: ...
    @property
    def auto(self) -> str: ...


def domain_of(address: str) -> str:
    """The domain part of an address (lower-cased), or ``localhost``."""
    addr = getaddresses([address])[0][1] or address
    return addr.rpartition("@")[2].lower() or "localhost"


def message_id(key: str, domain: str) -> str:
    """The Message-ID of an outgoing message: a function of its stable key only."""
    return f"<{hashlib.sha256(key.encode()).hexdigest()[:32]}@{domain}>"


def thread_root(thread: str, domain: str) -> str:
    """A stable pseudo Message-ID every post of one phase refers to, so a phase is one thread."""
    return message_id("thread:" + thread, domain)


_UTF8_QP = Charset("utf-8")
_UTF8_QP.body_encoding = QP
_WIRE = compat32.clone(linesep="\r\n", max_line_length=78)


def _header(value: str) -> str:
    """RFC 2047-encode a non-ASCII header value."""
    if value.isascii():
        return value
    return Header(value, "utf-8", maxlinelen=76).encode()


def _clean(value: str) -> str:
    """Header values never carry CR/LF: player text cannot inject headers."""
    return " ".join(value.replace("\r", " ").replace("\n", " ").split())


def build(
    *,
    key: str,
    sender: str,
    to: tuple[str, ...],
    subject: str,
    body: str,
    date: datetime,
    auto: str = "auto-generated",
    public: bool = False,
    in_reply_to: str | None = None,
    thread: str | None = None,
) -> tuple[str, bytes]:
    """Render one message; returns ``(message_id, bytes)``."""
    domain = domain_of(sender)
    mid = message_id(key, domain)
    # compat32 + MIMEText: the same bytes a modern EmailMessage would give for plain text, at a
    # fraction of the header-parsing cost (this runs once per reply, on the writer's thread)
    msg = MIMEText(body, "plain", _UTF8_QP)  # type: ignore[arg-type]  # a Charset is accepted
    msg["From"] = sender
    msg["To"] = ", ".join(_clean(t) for t in to)
    msg["Subject"] = _header(_clean(subject))
    msg["Date"] = format_datetime(date)
    msg["Message-ID"] = mid
    refs: list[str] = []
    if thread and public:
        refs.append(thread_root(thread, domain))
    if in_reply_to:
        refs.append(_clean(in_reply_to))
    if refs:
        msg["In-Reply-To"] = refs[-1]
        msg["References"] = " ".join(refs)
    msg["Auto-Submitted"] = auto if auto in ("auto-replied", "auto-generated") else "auto-generated"
    msg["X-Loop"] = sender
    msg["X-Auto-Response-Suppress"] = "OOF, AutoReply"
    if public:
        # only on broadcast results: some providers file private mail marked bulk as spam (§2.4)
        msg["Precedence"] = "bulk"
    return mid, msg.as_bytes(policy=_WIRE)


def build_outgoing(out: OutgoingLike, *, sender: str, date: datetime) -> tuple[str, bytes]:
    """:func:`build` for an engine ``Outgoing``."""
    return build(
        key=out.key,
        sender=sender,
        to=out.to,
        subject=out.subject,
        body=out.body,
        date=date,
        auto=out.auto,
        public=out.public,
        in_reply_to=out.in_reply_to,
        thread=out.thread,
    )
