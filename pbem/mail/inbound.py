"""Minimal placeholder of the inbound extraction (replaced by the full module)."""

from __future__ import annotations

import email
import email.policy
import re
from dataclasses import dataclass
from email.message import EmailMessage, Message

from pbem.core.errors import MailError

_BOLD = re.compile(r"\*\*([^*\n]+)\*\*|(?<![\w*])\*([^*\s][^*\n]*?)\*(?![\w*])")


@dataclass(frozen=True)
class MailText:
    subject: str
    lines: tuple[str, ...]
    bold: tuple[str, ...]
    truncated: bool = False
    html_only: bool = False


def parse_bytes(raw: bytes) -> EmailMessage:
    try:
        msg = email.message_from_bytes(raw, policy=email.policy.default)
    except Exception as exc:
        raise MailError(str(exc)) from exc
    assert isinstance(msg, EmailMessage)
    return msg


def extract(msg: Message, *, max_lines: int = 60) -> MailText:
    body = ""
    for part in msg.walk():
        if part.get_content_type() == "text/plain":
            payload = part.get_payload(decode=True)
            if isinstance(payload, bytes):
                body = payload.decode(part.get_content_charset() or "utf-8", "replace")
            break
    lines: list[str] = []
    bold: list[str] = []
    for raw in body.splitlines():
        if raw.rstrip() in ("--", "-- ") or raw.strip().upper() in ("FIN", "END"):
            break
        line = raw.strip()
        if not line or line.startswith(">"):
            continue
        lines.append(line)
        bold += [(a or b).strip() for a, b in _BOLD.findall(line)]
    subject = str(msg.get("Subject", "") or "")
    subject = re.sub(r"^((re|fwd?|tr)\s*:\s*)+", "", subject, flags=re.I).strip()
    return MailText(subject, tuple(lines[:max_lines]), tuple(bold), len(lines) > max_lines)
