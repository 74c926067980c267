"""The mail demo's little world (``pbem demo``): its addresses, and how its mail is read."""

from __future__ import annotations

import contextlib
import unicodedata
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import parseaddr

DOMAIN = "village.example"
MODERATOR = f"mj@{DOMAIN}"
ADMIN = f"admin@{DOMAIN}"
LIST = f"village@lists.{DOMAIN}"
LIST_ID = f"village.lists.{DOMAIN}"
GAME_ID = "demo"


def email_of(name: str) -> str:
    """``Chloé`` → ``chloe@village.example``: plain ASCII, so no SMTPUTF8 is needed."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    return f"{plain}@{DOMAIN}"


def parse_mail(raw: bytes) -> EmailMessage:
    """A demo mail, parsed."""
    msg = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(msg, EmailMessage)
    return msg


def text_of(msg: EmailMessage) -> str:
    """Its plain text body (empty if none can be read)."""
    part = msg.get_body(("plain",))
    if part is None:
        return ""
    with contextlib.suppress(Exception):
        return str(part.get_content())
    return ""


def address_of(value: object) -> str:
    """The address in a From or To header value, lower case."""
    return parseaddr(str(value or ""))[1].lower()
