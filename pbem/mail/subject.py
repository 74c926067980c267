"""The Subject of an inbound mail: decoded, normalised, its reply prefixes and list tag read."""

from __future__ import annotations

import email.policy
import re
from email.message import Message

from pbem.mail.mime import as_mail_error, decode_text, raw_headers
from pbem.mail.normalise import normalise

# One leading "Re:", "Fwd:", "TR:", "Réf." (Lotus Notes, French) or "[tag]", in any order and
# repeated; "Re[2]:" and "Re^2:" are reply counters some clients add.
_SUBJECT_PREFIX = re.compile(
    r"(?:(?:re|fwd?|tr)(?:\[\d+\]|\^\d+)?\s?:|r[eé]f\.(?:\s?:)?|\[(?P<tag>[^\[\]]*)\])\s*",
    re.IGNORECASE,
)


def subject_text(msg: Message) -> str:
    """The Subject decoded (RFC 2047 via the default policy) and normalised, prefixes kept."""
    values = raw_headers(msg, "Subject")
    if not values:
        return ""
    try:
        # Raw 8-bit subjects (old clients send bare Latin-1) arrive as surrogate escapes, which
        # the policy would turn into U+FFFD; recover the bytes and guess their charset first.
        raw = decode_text(values[0].encode("utf-8", "surrogateescape"), None)
        decoded = str(email.policy.default.header_fetch_parse("Subject", raw))
    except Exception:
        # The header parser has crashed on hostile input before; an undecodable subject must
        # not cost us the body, so fall back to the raw text (normalise drops surrogates).
        decoded = values[0]
    return normalise(decoded)


def strip_subject_prefixes(subject: str) -> str:
    """The subject without its leading reply and forward prefixes (``Re:``, ``Fwd:``, ``TR:``,
    ``Réf.``) and ``[tags]``."""
    while match := _SUBJECT_PREFIX.match(subject):
        subject = subject[match.end() :]
    return subject


def subject_tag(msg: Message) -> str | None:
    """The ``[tag]`` at the start of the Subject (after any Re:/Fwd:), lowercased, or None.

    Mailing lists prepend their tag, and replies put "Re:" before it; a bracket later in the
    subject is the player's own text, not routing.
    """
    with as_mail_error("unreadable subject"):
        subject = subject_text(msg)
        while match := _SUBJECT_PREFIX.match(subject):
            tag = match.group("tag")
            if tag is not None and tag.strip():
                return tag.strip().lower()
            subject = subject[match.end() :]
        return None
