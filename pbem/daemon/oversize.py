"""The answer to a mail too large to be read (issue 10 item 5), pure.

A mail over ``imap.max_size`` is read through its text parts (:mod:`pbem.mail.partial`). When
even those are too large (or it has none), it is quarantined and the admins alerted, and its
sender is told, from the header alone, that it was not read and why: no order sent by a player
is dropped without a word.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from datetime import datetime
from email.parser import BytesHeaderParser
from email.policy import compat32
from typing import Any

from pbem.core.errors import MailError
from pbem.daemon.outbox import OutboxRow, make_row
from pbem.mail.address import getaddresses
from pbem.mail.envelope import build
from pbem.mail.html import alternative
from pbem.mail.inbound import automatic_reason

Texts = Callable[[str, Mapping[str, Any]], tuple[str, str]]


def too_big_reply(
    header: bytes,
    *,
    size: int,
    cap: int,
    moderator: str,
    our_addresses: Collection[str],
    texts: Texts,
    now: datetime,
    id_key: bytes,
    html: bool = True,
) -> tuple[str, OutboxRow] | None:
    """``(sender, outbox row)`` telling the sender his mail was too large to be read; None for
    mail never answered (RFC 3834: automatic mail, bounces, our own echoes) or without a
    usable sender. The row has a null envelope sender, like every reply to a stranger."""
    head = BytesHeaderParser(policy=compat32).parsebytes(header)
    try:
        if automatic_reason(head, our_addresses=our_addresses) is not None:
            return None
        pairs = getaddresses([str(v) for v in head.get_all("From", [])])
    except (MailError, TypeError, ValueError):
        return None
    sender = pairs[0][1].strip().lower() if pairs else ""
    local, at, domain = sender.rpartition("@")
    if not (local and at and "." in domain) or sender in {a.lower() for a in our_addresses}:
        return None
    subject_in = " ".join(str(head.get("Subject", "") or "").split())[:200]
    mid_in = str(head.get("Message-ID", "") or "").strip() or None
    subject, body = texts("daemon/too_big", {"size": size, "cap": cap, "subject": subject_in})
    mid, raw = build(
        key=f"toobig:{mid_in}:{sender}:{size}",
        sender=moderator,
        to=(sender,),
        subject=subject,
        body=body,
        html=alternative(subject, body, enabled=html),
        date=now,
        auto="auto-replied",
        id_key=id_key,
        in_reply_to=mid_in,
    )
    row = make_row(message_id=mid, raw=raw, rcpts=[sender], mail_from="", now=now, kind="reply")
    return sender, row
