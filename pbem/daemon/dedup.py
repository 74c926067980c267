"""Second copies of one mail (issue 10 item 6). Pure.

The content-hash ledger applies the same BYTES once; one mail often arrives as several byte
strings: a post to the list with the moderator in Cc (the direct copy, then the list's copy with
its footer and List-Id), a "Reply all" to the game master's list post (To: moderator, Cc: list),
an MTA redelivery with one more Received line. Each copy keeps the author's Message-ID, and the
author's own DKIM signature (its ``b=`` value) whatever the list or the MTA added, so a copy is
recognised by:

- ``mid:<sha256 of Message-ID and sender>``: the sender is in the key, so a stranger reusing a
  published Message-ID cannot silence a player (only his own later mail); and
- ``dkim:<sha256 of b=>`` of each signature whose ``d=`` is the sender's domain or a parent
  (the same form as :class:`pbem.mail.dkim.SignatureResult.signature`, so the keys of the
  ``dkim_verify`` replay ledger and these are one ledger). A list's own signature (another
  ``d=``) is not the author's and is skipped.

The keys ride in the game's ledger with the first copy applied (one atomic write, so they
survive a restart); a later copy (the list's delayed one included) is then ignored, and can
never re-apply an older order over a newer one.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from email.message import Message

from pbem.mail.alignment import aligned
from pbem.mail.mime import raw_headers


def _tags(value: str) -> dict[str, str]:
    """The tag=value pairs of a DKIM-Signature, best effort (folding whitespace removed):
    only d= and b= are read, and nothing here is verified."""
    tags: dict[str, str] = {}
    for part in value.split(";"):
        name, eq, val = part.partition("=")
        if eq:
            tags.setdefault(re.sub(r"\s+", "", name), re.sub(r"\s+", "", val))
    return tags


_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_DOT_ATOM = rf"{_ATEXT}(?:\.{_ATEXT})*"
_PLAIN_ID = re.compile(rf"<{_DOT_ATOM}@{_DOT_ATOM}>")
"""A Message-ID of the plain form ``<dot-atom-text@dot-atom-text>`` (RFC 5322 §3.6.4): the
header registry's reading of it is its own text, whatever the policy."""


def _message_id(msg: Message) -> str:
    """The first Message-ID as the modern policy reads it, whitespace removed ("" for none,
    nor for ``<>``). A plain id is read from the raw header (issue 23: the header registry
    cost 4 % of a mail's handling); any other (comments, quotes, folding inside, RFC 2047,
    8-bit) is read by the registry, as before."""
    # the first Message-ID, raw (compat32 and the modern policy keep the same raw value)
    first = raw_headers(msg, "Message-ID")[:1]
    if first and _PLAIN_ID.fullmatch(first[0]):
        return first[0]
    try:
        value = str(msg.get("Message-ID", "") or "")
    except Exception:
        return ""
    value = re.sub(r"\s+", "", value)
    return "" if value in ("", "<>") else value


def copy_keys(msg: Message, sender: str) -> tuple[str, ...]:
    """The keys every copy of this mail from ``sender`` shares (none without a Message-ID nor
    an author's signature: such a mail is only ever one copy to us)."""
    sender = sender.lower()
    keys = []
    mid = _message_id(msg)
    if mid and sender:
        keys.append("mid:" + hashlib.sha256(f"{mid}\n{sender}".encode()).hexdigest())
    domain = sender.rpartition("@")[2]
    for value in msg.get_all("DKIM-Signature", []):
        try:
            tags = _tags(str(value))
            b = base64.b64decode(tags.get("b", ""), validate=True)
        except (ValueError, binascii.Error):
            continue  # a malformed signature keys nothing
        if b and domain and aligned(tags.get("d", ""), domain):
            keys.append("dkim:" + hashlib.sha256(b).hexdigest())
    return tuple(sorted(set(keys)))
