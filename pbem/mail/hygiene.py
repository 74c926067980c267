"""RFC 3834 hygiene: which inbound mail must never be parsed or answered (requirement 8).

A minimal stand-in for ``pbem.mail.inbound.automatic_reason`` (written on another branch); the
service calls whichever is present. Pure.
"""

from __future__ import annotations

from collections.abc import Collection
from email.message import EmailMessage, Message
from email.utils import getaddresses

_AUTO_SENDERS = ("mailer-daemon", "postmaster", "noreply", "no-reply", "do-not-reply")


def _addr(value: str | None) -> str:
    if not value:
        return ""
    return (getaddresses([str(value)])[0][1] or "").lower()


def automatic_reason(
    msg: Message | EmailMessage, our_addresses: Collection[str], *, list_post: bool = False
) -> str | None:
    """Why ``msg`` is automatic (never parse, never answer), or ``None`` for human mail.

    Deliberately NOT a reason: ``X-Auto-Response-Suppress`` (Outlook puts it on human mail,
    RELIABILITY §0.5). ``Precedence: list`` is a reason only outside list posts, since lists add it.
    """
    ours = {a.lower() for a in our_addresses}
    loops = [str(v).strip().lower() for v in msg.get_all("X-Loop", [])]
    if any(_addr(v) in ours or v in ours for v in loops):
        return "x-loop"
    if _addr(msg.get("From")) in ours:
        return "own-mail"
    rp = msg.get("Return-Path")
    if rp is not None and str(rp).strip() in ("<>", ""):
        return "null-return-path"
    auto = str(msg.get("Auto-Submitted", "no")).split(";")[0].strip().lower()
    if auto and auto != "no":
        return "auto-submitted"
    ctype = msg.get_content_type()
    if ctype == "multipart/report" or ctype == "message/delivery-status":
        return "delivery-report"
    prec = str(msg.get("Precedence", "")).strip().lower()
    if prec in ("bulk", "junk") or (prec == "list" and not list_post):
        return "precedence-" + prec
    for h in ("X-Autoreply", "X-Autorespond", "X-Auto-Reply"):
        if msg.get(h) is not None:
            return h.lower()
    local = _addr(msg.get("From")).partition("@")[0]
    if local in _AUTO_SENDERS or local.endswith("-bounces") or local.startswith("bounce"):
        return "robot-sender"
    return None
