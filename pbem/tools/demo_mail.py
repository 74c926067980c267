"""The mail demo's little world (``pbem demo``): its addresses, and how its mail is read."""

from __future__ import annotations

import contextlib
import email
import unicodedata
from email.message import EmailMessage

from pbem.mail.address import parseaddr
from pbem.mail.parse_once import parse_once_policy

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
    """A demo mail, parsed as the daemon parses it (each header once: the bots read every mail
    of the game, and the modern policy alone re-parses a header on every read)."""
    msg = email.message_from_bytes(raw, policy=parse_once_policy())
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
