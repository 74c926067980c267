"""Whom to tell that his mail is held (quarantined), read from the held mail itself (issue 16).

A held mail may be the very mail that kills the process, so its sender is read as little as
possible: its header block only, cut at 16 KB, with the pure-Python compat32 header parser (no
MIME walk, no body, no C extension), and every error means "tell nobody".

Only a registered player is told: the mail is most likely his orders, and he must know they are
not in the game. A stranger's mail, or any automatic mail (bounces, auto-replies, bulk: RFC 3834,
requirement 8), gets no notice, so a held mail cannot make the daemon send backscatter to a
forged From.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection
from dataclasses import dataclass
from email.header import decode_header, make_header
from email.parser import BytesHeaderParser
from email.policy import compat32

from pbem.mail.address import parseaddr
from pbem.mail.inbound import automatic_reason

HEAD_LIMIT = 16384


@dataclass(frozen=True)
class HeldSender:
    """The registered player who sent a held mail, and what the notice quotes of it."""

    address: str
    subject: str
    message_id: str | None


def held_sender(
    raw: bytes, players: Collection[str], our_addresses: Collection[str]
) -> HeldSender | None:
    """The player to tell that ``raw`` is held, or None (a stranger, an automatic mail, a header
    block that cannot be read). ``players``: the registered addresses, lower case."""
    with contextlib.suppress(Exception):
        head = raw[:HEAD_LIMIT].replace(b"\r\n", b"\n").split(b"\n\n", 1)[0]
        msg = BytesHeaderParser(policy=compat32).parsebytes(head + b"\n\n")
        address = parseaddr(str(msg.get("From", ""))[:998])[1].strip().lower()
        if address not in players or address in {a.lower() for a in our_addresses}:
            return None
        if automatic_reason(msg, our_addresses=our_addresses) is not None:
            return None
        mid = str(msg.get("Message-ID", "") or "").strip()[:200] or None
        return HeldSender(address, _decoded(str(msg.get("Subject", ""))[:998]), mid)
    return None


def _decoded(value: str) -> str:
    """An RFC 2047 header as the sender wrote it, on one line; as is if it does not decode."""
    with contextlib.suppress(Exception):
        value = str(make_header(decode_header(value)))
    return " ".join(value.split())[:200]
