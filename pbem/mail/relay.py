"""The copy of a player's list post that a relaying daemon distributes (``[list] mode = relay``).

Pure: the time and every address come in as arguments. The post's body is passed on byte for
byte (MIME structure, charsets and attachments untouched); its header block is rebuilt the way
a DMARC-aware list does it (Mailman's ``dmarc_moderation_action = munge_from``):

- ``From: "Alice via <game>" <list address>``: the list sends the copy, so receivers check the
  list domain, not the poster's, and the poster's DKIM signature need not survive;
- ``Reply-To`` and ``List-Post``: replies go back to the list; ``List-Id`` lets players filter;
- a stable ``Message-ID`` derived from the inbound mail's content key under the daemon's
  Message-ID key, so a resent copy after a crash is the same message (requirement 9), and
  ``X-Loop`` so a copy that finds its way back is never read again (requirement 8);
- ``In-Reply-To``/``References`` keep only the public mail pbem sent (results, relayed posts),
  so list threads hold: a reference to a private mail (a player answering his role mail on the
  list) would tell everyone that he got it (issue 10 item 13), and anyone else's Message-ID is
  of no use to the other members, who never got that mail;
- with secret codes in use, no code goes out: the post passes :func:`pbem.mail.scrub.without_codes`
  first (the text, the HTML alternative, the Subject, attachments; issue 10 item 10);
- the Subject gets the game's ``[tag]``, so a reply reaches the game by its Subject too.

Nothing of the poster's other headers goes out (Received, DKIM-Signature, Authentication-Results,
Return-Path, Cc...): a copy names the poster only by his game name.
"""

from __future__ import annotations

import contextlib
import re
from datetime import datetime
from email.header import decode_header, make_header
from email.parser import BytesHeaderParser
from email.policy import compat32
from email.utils import format_datetime, formataddr

from pbem.mail.envelope import _field, _header, domain_of, id_kind, message_id
from pbem.mail.scrub import without_codes

__all__ = ["list_id_for", "public_references", "relay_copy"]

# Headers of the post that describe its body (kept as they are) or its place in a thread.
_KEPT = ("MIME-Version", "Content-Type", "Content-Transfer-Encoding", "Content-Language")
_THREAD = ("In-Reply-To", "References")
_LINE_ENDS = re.compile(rb"\r\n|\r|\n")
_SEPARATOR = re.compile(rb"\r?\n\r?\n")
_MSG_ID = re.compile(r"<[^<>\s]+>")


def list_id_for(list_address: str, configured: str | None = None) -> str:
    """The List-Id value: the configured one, else the list address with ``@`` as a dot."""
    ident = configured or list_address.replace("@", ".")
    return f"<{ident.strip('<>')}>"


def _text(value: object) -> str:
    """A header value as text (RFC 2047 decoded), one line; undecodable words kept raw."""
    raw = str(value)
    with contextlib.suppress(LookupError, ValueError, UnicodeError):
        raw = str(make_header(decode_header(raw)))
    return " ".join(raw.replace("\r", " ").replace("\n", " ").split())


def public_references(value: str, id_key: bytes) -> list[str]:
    """The Message-IDs of ``value`` (an In-Reply-To or References) that are pbem's public mail."""
    return [mid for mid in _MSG_ID.findall(value) if id_kind(mid, id_key) == "public"]


def _header_line(name: str, value: str) -> bytes:
    """A header line for the wire, as :mod:`pbem.mail.envelope` writes its own."""
    return _field(name, _header(value))


def relay_copy(
    raw: bytes,
    *,
    key: str,
    poster: str,
    game_tag: str,
    list_address: str,
    list_id: str,
    moderator: str,
    date: datetime,
    id_key: bytes,
    strip_codes: bool = True,
) -> tuple[str, bytes]:
    """The distributed copy of the post ``raw``; returns ``(message_id, bytes)``.

    ``key`` is the inbound mail's content key (stable across retries); ``poster`` his game
    name; ``game_tag`` the ``[tag]`` the Subject must carry; ``id_key`` the daemon's
    Message-ID key; ``strip_codes``: secret codes are in use, remove them.
    """
    if strip_codes:
        raw = without_codes(raw)
    match = _SEPARATOR.search(raw)
    head_bytes, body = (raw[: match.start()], raw[match.end() :]) if match else (raw, b"")
    head = BytesHeaderParser(policy=compat32).parsebytes(head_bytes + b"\r\n\r\n")
    mid = message_id(
        f"relay:{game_tag}:{key}", domain_of(list_address), id_key, public=True, game=game_tag
    )
    subject = _text(head.get("Subject", "") or "")
    if f"[{game_tag}]".lower() not in subject.lower():
        subject = f"[{game_tag}] {subject}".rstrip()
    lines = [
        _header_line("From", formataddr((f"{poster} via {game_tag}", list_address))),
        _header_line("To", list_address),
        _header_line("Reply-To", list_address),
        _header_line("Subject", subject),
        _header_line("Date", format_datetime(date)),
        _header_line("Message-ID", mid),
    ]
    for name in _THREAD:
        public = public_references(str(head.get(name, "") or ""), id_key)
        if public:
            lines.append(_header_line(name, " ".join(public[-20:])))
    lines += [
        _header_line("List-Id", list_id),
        _header_line("List-Post", f"<mailto:{list_address}>"),
        _header_line("Precedence", "list"),
        _header_line("X-Loop", moderator),
        _header_line("X-Auto-Response-Suppress", "OOF, AutoReply"),
    ]
    for name in _KEPT:
        value = head.get(name)
        if value:
            lines.append(_header_line(name, " ".join(str(value).split())))
    return mid, b"".join(lines) + b"\r\n" + _LINE_ENDS.sub(b"\r\n", body)
