"""The MIME structure of hostile mail, and its text decoded whatever the charsets claim.

Pure, and raising nothing but :class:`~pbem.core.errors.MailError` through :func:`as_mail_error`:
unknown charsets, broken transfer encodings, missing boundaries and thousands of nested
multiparts are the input (RELIABILITY 7.2).
"""

from __future__ import annotations

import codecs
import functools
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from email.message import EmailMessage, Message
from email.policy import compat32

from pbem.core.errors import MailError

# Deeper MIME trees are not written by mail clients; only attacks nest this far.
_MAX_DEPTH = 30
_SPACES = re.compile(r"\s+")


@contextmanager
def as_mail_error(what: str) -> Iterator[None]:
    """Turn any failure into MailError.

    The stdlib email package raises a zoo of exceptions on hostile input (LookupError,
    RecursionError, IndexError in header parsing...); callers handle exactly one type.
    """
    try:
        yield
    except MailError:
        raise
    except Exception as exc:
        raise MailError(f"{what}: {type(exc).__name__}: {exc}") from exc


def mime_parts(msg: Message) -> Iterator[Message]:
    """Every part of ``msg`` in document order, containers included, at most _MAX_DEPTH deep.

    Iterative, because a recursive walk overflows the stack on nested multipart bombs. Attached
    messages (``message/*``) are not entered: their text is someone else's older mail.
    """
    stack: list[tuple[Message, int]] = [(msg, 0)]
    while stack:
        part, depth = stack.pop()
        yield part
        payload = part.get_payload()
        # message/* parts also hold a list; they are not entered (see above).
        if part.get_content_maintype() != "multipart" or not isinstance(payload, list):
            continue
        if depth < _MAX_DEPTH:  # deeper parts are ignored
            children = (child for child in reversed(payload) if isinstance(child, Message))
            stack.extend((child, depth + 1) for child in children)


def text_source(msg: Message) -> tuple[Message, str, bool] | None:
    """The part to read, its decoded text, and whether it is HTML; None without a text part.

    A blank ``text/plain`` part is passed over: some clients send one next to the real HTML.
    """
    if not msg.is_multipart():
        quick = _single_text_source(msg)
        if not isinstance(quick, _Unusual):
            return quick
    html: Message | None = None
    # a single part (most mail a game receives) is all mime_parts would walk
    for part in mime_parts(msg) if msg.is_multipart() else (msg,):
        if part.is_multipart() or part.get_content_disposition() == "attachment":
            continue
        content_type = part.get_content_type()
        if content_type == "text/plain":
            text = part_text(part)
            if text.strip():
                return part, text, False
        elif content_type == "text/html" and html is None:
            html = part
    return (html, part_text(html), True) if html is not None else None


class _Unusual:
    """:func:`_single_text_source`'s answer for a mail it leaves to the stdlib."""


_UNUSUAL = _Unusual()
_PLAIN_CLASSES = (Message, EmailMessage)  # a subclass may read its parts its own way

# transfer encodings Message.get_payload(decode=True) decodes (any other is the payload as is)
_DECODED = frozenset({"quoted-printable", "base64", "x-uuencode", "uuencode", "uue", "x-uue"})


def _single_text_source(msg: Message) -> tuple[Message, str, bool] | _Unusual | None:
    """:func:`text_source` of a single-part compat32 message (a bot's, a test's), its MIME
    headers read in one pass over the raw headers instead of three ``Message.get`` scans and
    the stdlib's parsing around them (issue 23); ``_UNUSUAL`` for anything else (another
    policy, a non-ASCII header value, an encoded payload, a payload that is no plain text),
    which the stdlib reads. What it returns is what the stdlib's reading returns: compat32
    hands a header's first raw ASCII value as it is, and ``get_content_type`` /
    ``get_content_disposition`` split it at its first ``;``."""
    payload = msg.__dict__.get("_payload")  # what get_payload reads
    if type(msg) not in _PLAIN_CLASSES or msg.policy is not compat32 or type(payload) is not str:
        return _UNUSUAL
    content_type = disposition = encoding = None
    for name, value in msg.__dict__["_headers"]:  # what raw_items reads
        low = name.lower()
        if low == "content-type":
            if content_type is None:
                content_type = value
        elif low == "content-disposition":
            if disposition is None:
                disposition = value
        elif low == "content-transfer-encoding" and encoding is None:
            encoding = value
    for value in (content_type, disposition, encoding):
        if value is not None and (type(value) is not str or not value.isascii()):
            return _UNUSUAL  # compat32 would hand a Header object: the stdlib's reading
    if disposition is not None and disposition.partition(";")[0].strip().lower() == "attachment":
        return None
    if content_type is None:
        kind = msg.get_default_type()
    else:
        kind = content_type.partition(";")[0].strip().lower()
        if kind.count("/") != 1:
            kind = "text/plain"
    if kind != "text/plain" and kind != "text/html":
        return None
    if encoding is not None and encoding.lower() in _DECODED:
        return _UNUSUAL
    try:  # get_payload(decode=True) of an undecoded str payload: its bytes back
        data = payload.encode("ascii", "surrogateescape")
    except UnicodeError:
        return _UNUSUAL
    charset = None if content_type is None else _charset_of(content_type)
    text = decode_text(data, charset)
    if kind == "text/html":
        return msg, text, True
    return (msg, text, False) if text.strip() else None


def part_text(part: Message) -> str:
    """The payload of a leaf part, transfer-decoded then charset-decoded, never raising."""
    # get_payload(decode=True) records bad base64 as a defect instead of raising.
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    raw = part.get("content-type")
    # a compat32 message (a bot's, a test's) hands the raw value: its charset read once per
    # value; a parsed message (the daemon's, pbem.mail.parse_once) keeps its own parse
    charset = _charset_of(raw) if type(raw) is str else part.get_content_charset()
    return decode_text(payload, charset)


@functools.lru_cache(maxsize=256)
def _charset_of(content_type: str) -> str | None:
    """The charset a ``Content-Type`` value declares, as ``Message.get_content_charset``
    reads it."""
    probe = Message()
    probe["Content-Type"] = content_type
    return probe.get_content_charset()


def decode_text(data: bytes, charset: str | None) -> str:
    """Decode with the declared charset; when it is unknown or lies, guess line by line."""
    declared = _codec_name(charset)
    if declared is not None:
        try:
            return data.decode(declared)
        except (LookupError, UnicodeError):  # LookupError: not a text codec ("rot13", "zlib")
            pass
    try:
        return data.decode("utf-8")
    except UnicodeError:
        # Per line, so that one stray Latin-1 line in a UTF-8 mail does not turn the accents
        # of every other line into mojibake (player names are matched on those accents).
        return "\n".join(_guess(line) for line in data.split(b"\n"))


@functools.lru_cache(maxsize=256)  # a few charsets, declared by every mail
def _codec_name(charset: str | None) -> str | None:
    """A usable text codec for a declared charset, or None to guess."""
    if not charset:
        return None
    try:
        info = codecs.lookup(charset)
    except (LookupError, ValueError):  # ValueError: a NUL inside the charset name
        return None
    # "us-ascii" says nothing about stray 8-bit bytes, so guess; and as in the WHATWG Encoding
    # Standard, "iso-8859-1" is read as windows-1252, whose smart quotes Outlook sends.
    return {"ascii": None, "iso8859-1": "cp1252"}.get(info.name, info.name)


def _guess(data: bytes) -> str:
    """UTF-8 if valid, else windows-1252, else Latin-1 (which decodes any byte)."""
    for codec in ("utf-8", "cp1252"):
        try:
            return data.decode(codec)
        except UnicodeError:
            pass
    return data.decode("latin-1")


def raw_headers(msg: Message, name: str) -> list[str]:
    """Raw values of a header, unfolded, without the header-registry parser.

    Raw values keep the checks identical whatever the message's policy, and spare us the
    structured parsers on attacker-written address headers.
    """
    wanted = name.lower()
    width = len(wanted)
    values = []
    for key, value in _raw_items(msg):
        # a name of another width is another header: not lowered (a name lowered to the
        # ASCII ``wanted`` is as long as it)
        if len(key) == width and key.lower() == wanted:
            values.append(_unfolded(value))
    return values


def raw_header_map(msg: Message, names: frozenset[str]) -> dict[str, list[str]]:
    """:func:`raw_headers` of each of ``names`` (lower-case) that ``msg`` has, in one pass over
    its headers (a check reading a dozen headers scans them once, issue 23)."""
    widths = {len(name) for name in names}
    found: dict[str, list[str]] = {}
    for key, value in _raw_items(msg):
        if len(key) in widths:
            low = key.lower()
            if low in names:
                found.setdefault(low, []).append(_unfolded(value))
    return found


def _raw_items(msg: Message) -> Iterable[tuple[str, object]]:
    # Message.raw_items is an iterator over a copy of _headers: read in place when it is
    # Message's own (three headers a mail received, issue 23)
    items: Iterable[tuple[str, object]] = (
        msg.__dict__["_headers"] if type(msg) in _PLAIN_CLASSES else msg.raw_items()
    )
    return items


def _unfolded(value: object) -> str:
    text = value if type(value) is str else str(value)
    # a printable value has no whitespace but " " (str.isprintable refuses every character
    # \s matches but the space): without two in a row, nothing to unfold; spares the regex on
    # nearly every header (issue 23)
    if "  " in text or not text.isprintable():
        text = _SPACES.sub(" ", text)
    return text.strip()
