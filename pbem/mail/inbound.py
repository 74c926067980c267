"""Inbound mail: from a raw message to the text lines that may carry commands.

Pure: no I/O, no clock. Every input here is hostile (RELIABILITY 7.2): unknown charsets, broken
transfer encodings, missing boundaries, thousands of nested multiparts, control characters. The
public functions therefore raise nothing but :class:`~pbem.core.errors.MailError`.

What counts as command text (DESIGN, "Mail in, mail out"): the first inline ``text/plain`` part,
else the first ``text/html`` part turned into text; quoted lines are skipped, and the text ends
at a signature, an END/FIN line, or the start of a quoted or forwarded older message.

This module is the entry point; each concern is a module of its own: :mod:`pbem.mail.parse_once`
(parsing, each header once), :mod:`pbem.mail.mime` (the MIME tree and charsets),
:mod:`pbem.mail.subject`, :mod:`pbem.mail.normalise`, :mod:`pbem.mail.body_lines` (plain and
HTML text to lines, bold runs), :mod:`pbem.mail.body_end` (quotes, signatures, END/FIN, older
mail) and :mod:`pbem.mail.automatic` (mail never answered).
"""

from __future__ import annotations

import contextlib
import functools
import re
from dataclasses import dataclass
from email.message import EmailMessage, Message
from email.policy import compat32

from pbem.core.commands import Command, CommandSpec, parse_line
from pbem.core.errors import CommandError, MailError
from pbem.core.frozen import quick_init
from pbem.mail.address import getaddresses
from pbem.mail.automatic import automatic_reason
from pbem.mail.body_end import select_lines
from pbem.mail.body_lines import Line, html_lines, marked_bold, plain_lines
from pbem.mail.mime import (
    decode_text,
    mime_parts,
    part_text,
    raw_headers,
    text_source,
)
from pbem.mail.normalise import fold
from pbem.mail.parse_once import ParseOncePolicy, parse_bytes, parse_once_policy
from pbem.mail.subject import strip_subject_prefixes, subject_tag, subject_text

__all__ = [
    "MailText",
    "ParseOncePolicy",
    "automatic_reason",
    "extract",
    "message_id_of",
    "parse_bytes",
    "parse_once_policy",
    "sender_of",
    "subject_tag",
]

# Text beyond this many characters of the chosen part is not read: commands sit at the top, and
# it bounds what a huge mail costs (html.parser manages only a few MB of tags per second).
_MAX_CHARS = 1_000_000


@quick_init  # one a mail (issue 23): pbem.core.frozen
@dataclass(frozen=True)
class MailText:
    """The command-bearing text of one inbound mail."""

    subject: str
    """Decoded, normalised Subject without reply/forward prefixes or a leading ``[tag]``."""
    lines: tuple[str, ...]
    """Body lines that may carry commands, in order, normalised; blank lines dropped."""
    bold: tuple[str, ...]
    """Texts marked bold within ``lines``, in order: HTML ``<b>``/``<strong>``, plain ``**x**``/``*x*``."""
    truncated: bool
    """True when text was left unread: the line cap, or the size limit, cut the body."""
    html_only: bool
    """True when the text came from an HTML part (there was no usable ``text/plain``)."""
    bold_disagreement: tuple[str, ...] = ()
    """The text part's own bold markers when its HTML alternative sets other texts in bold
    (``bold`` then holds the HTML's, what readers see); empty when they agree."""
    breaks: tuple[int, ...] = ()
    """Indices in ``lines`` of the lines that begin a new paragraph (a blank line or a quoted
    passage before them, plain text only): a multi-line text ends there (DRA-421)."""


def extract(msg: Message, *, max_lines: int = 60) -> MailText:
    """Extract the subject and the command-bearing body lines of ``msg``.

    A message without any text part is not an error: it yields no lines. At most ``max_lines``
    non-blank lines are kept, from the first million characters of the text part; ``truncated``
    tells whether text was left unread. Raises only :class:`MailError`.

    Bold is read from the HTML alternative of the text part when there is one (issue 10, item
    1): Apple Mail and Outlook put no ``*markers*`` in their text part, so the ``<b>Dave</b>``
    every reader sees is only in the HTML.
    """
    # as_mail_error's try, written out: a context manager costs more than the rest of a
    # one-line mail's reading
    try:
        if max_lines < 0:
            raise MailError(f"max_lines must not be negative, got {max_lines}")
        inputs = _short_single(msg)
        if inputs is not None:
            return _kept_reading(*inputs, max_lines)
        return _extract(msg, max_lines)
    except MailError:
        raise
    except Exception as exc:
        raise MailError(f"unreadable message: {type(exc).__name__}: {exc}") from exc


def _extract(msg: Message, max_lines: int) -> MailText:
    """:func:`extract`'s reading, raising anything."""
    subject = strip_subject_prefixes(subject_text(msg))
    source = text_source(msg)
    if source is None:
        return MailText(subject, lines=(), bold=(), truncated=False, html_only=False)
    part, text, is_html = source
    if is_html:
        kept, truncated = _read_part(text, True, max_lines)
        return MailText(
            subject=subject,
            lines=tuple([line.text for line in kept]),
            bold=tuple(run for line in kept for run in line.bold),
            truncated=truncated,
            html_only=True,
            breaks=tuple([i for i, line in enumerate(kept) if line.after_break]),
        )
    reading = _short_plain(text, max_lines) if len(text) <= _SHORT else _plain(text, max_lines)
    lines, bold, truncated, breaks = reading
    bold, disagreement = _alternative_bold(msg, part, bold, max_lines)
    return MailText(subject, lines, bold, truncated, False, disagreement, breaks)


_Inputs = tuple[str | None, str | None, str | None, str | None, str, str]
"""What :func:`_extract` reads of a single-part message: its first raw Subject, Content-Type,
Content-Disposition and Content-Transfer-Encoding, its payload, its default type."""


def _short_single(msg: Message) -> _Inputs | None:
    """All :func:`_extract` reads of ``msg`` when it is a single-part message of a few lines
    (a bot's, a test's, a player's order) with plain ASCII text headers; None for any other.

    A message of another policy than compat32 (the daemon's parse) reads its MIME headers
    through its header objects: it qualifies when they read as their raw values (what compat32
    hands) and its payload is not transfer-encoded (reading it would note its defects on it),
    so that the stdlib's reading of it is the compat32 message's (issue 23)."""
    payload = msg.__dict__.get("_payload")
    if type(msg) not in _PLAIN_CLASSES or type(payload) is not str or len(payload) > _SHORT:
        return None
    found: dict[str, str] = {}
    for name, value in msg.__dict__["_headers"]:  # what raw_items reads
        if len(name) not in _READ_WIDTHS:  # From, To, Message-ID...: not lowered
            continue
        low = name.lower()
        if low in _READ and low not in found:
            if type(value) is not str or not value.isascii():
                return None  # a Header object, raw 8-bit: read as it comes
            found[low] = value
    get = found.get
    if msg.policy is not compat32 and not _reads_raw(msg, found):
        return None
    return (
        get("subject"),
        get("content-type"),
        get("content-disposition"),
        get("content-transfer-encoding"),
        payload,
        msg.get_default_type(),
    )


def _reads_raw(msg: Message, found: dict[str, str]) -> bool:
    """Whether ``msg``'s MIME headers read as their first raw values ``found`` (its header
    objects render them so), its payload not transfer-encoded."""
    encoding = found.get("content-transfer-encoding")
    if encoding is not None and encoding.lower() not in _UNENCODED:
        return False
    try:
        for name in _MIME_HEADERS:
            value = found.get(name)
            if value is not None and str(msg.get(name)) != value:
                return False
    except Exception:  # a header its policy cannot read: the general reading says how
        return False
    return True


_MIME_HEADERS = ("content-type", "content-disposition", "content-transfer-encoding")
_UNENCODED = frozenset({"7bit", "8bit", "binary"})
_READ = frozenset({"subject", *_MIME_HEADERS})
_READ_WIDTHS = frozenset(map(len, _READ))
"""The widths of :data:`_READ`'s names (a name lowered to one of them is as long as it)."""
_PLAIN_CLASSES = (Message, EmailMessage)  # a subclass may read its parts its own way


@functools.lru_cache(maxsize=1024)
def _kept_reading(
    subject: str | None,
    content_type: str | None,
    disposition: str | None,
    encoding: str | None,
    payload: str,
    default_type: str,
    max_lines: int,
) -> MailText:
    """:func:`_extract` of a message made of these, kept: the same few lines (« VOTE Bruno »)
    come again and again from a game's players, each in a mail of its own (issue 23). The
    message is built again from what was read of it, so its reading is the general one; a
    reading is immutable."""
    msg = Message()
    msg.set_default_type(default_type)
    for name, value in (
        ("Subject", subject),
        ("Content-Type", content_type),
        ("Content-Disposition", disposition),
        ("Content-Transfer-Encoding", encoding),
    ):
        if value is not None:
            msg[name] = value
    msg.set_payload(payload)
    return _extract(msg, max_lines)


PlainReading = tuple[tuple[str, ...], tuple[str, ...], bool, tuple[int, ...]]
"""What a text part says: its kept lines, their bold runs (``*markers*``), whether text was
left unread, and the indices of the lines that begin a paragraph (:class:`MailText`'s)."""


def _plain(text: str, max_lines: int) -> PlainReading:
    """The reading of a ``text/plain`` part's decoded text."""
    kept, truncated = _read_part(text, False, max_lines)
    return (
        tuple([line.text for line in kept]),
        tuple([run for line in kept for run in marked_bold(line.text)]),
        truncated,
        tuple([i for i, line in enumerate(kept) if line.after_break]),
    )


_SHORT = 512
"""A text part up to this many characters is a few command lines: its reading is kept."""


@functools.lru_cache(maxsize=1024)
def _short_plain(text: str, max_lines: int) -> PlainReading:
    """:func:`_plain`, kept for short texts: the same few lines (« VOTE Bruno », « PASSE »)
    come again and again from a game's players (issue 23). A pure function of the text; the
    reading is immutable."""
    return _plain(text, max_lines)


def _read_part(text: str, is_html: bool, max_lines: int) -> tuple[list[Line], bool]:
    """The kept lines of a part's decoded text, and whether text was left unread."""
    complete = len(text) <= _MAX_CHARS
    text = text[:_MAX_CHARS]
    lines = html_lines(text, complete) if is_html else plain_lines(text, complete)
    kept, ending = select_lines(lines, max_lines, paragraphs=not is_html)
    # Unread text past the size limit counts as cut too, unless a marker ended the body.
    return kept, ending == "cap" or (ending == "end" and not complete)


def _alternative_bold(
    msg: Message, plain: Message, marked: tuple[str, ...], max_lines: int
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The bold runs of a mail read from its text part ``plain``, and a disagreement.

    When ``plain`` has an HTML alternative that marks something bold, that is what readers see:
    its runs are the mail's bold. ``marked`` (the text part's own ``*markers*``) is returned as
    the disagreement when it names other things than the HTML (a forged or hand-edited part);
    a text part without markers (Apple Mail, Outlook) does not disagree, it just cannot say.
    """
    # a single-part mail has no alternative to read (most mail a game receives)
    html = _html_alternative(msg, plain) if msg.is_multipart() else None
    if html is None:
        return marked, ()
    kept, _truncated = _read_part(part_text(html), True, max_lines)
    shown = tuple(run for line in kept for run in line.bold)
    if not shown:
        return marked, ()
    if marked and {fold(r) for r in marked} != {fold(r) for r in shown}:
        return shown, marked
    return shown, ()


def _html_alternative(msg: Message, plain: Message) -> Message | None:
    """The ``text/html`` alternative of the text part ``plain``, if any.

    ``plain`` is a child of a ``multipart/alternative``; the HTML is another child, or inside
    one (Apple Mail and Outlook put it in a ``multipart/related`` with its inline images).
    """
    for part in mime_parts(msg):
        children = part.get_payload()
        if part.get_content_type() != "multipart/alternative" or not isinstance(children, list):
            continue
        if not any(child is plain for child in children):
            continue
        for child in children:
            if child is plain or not isinstance(child, Message):
                continue
            for leaf in mime_parts(child):
                if (
                    leaf.get_content_type() == "text/html"
                    and leaf.get_content_disposition() != "attachment"
                ):
                    return leaf
        return None
    return None


def sender_of(msg: Message) -> str:
    """The bare address of the first From, lowercased; "" when there is none or it is unreadable.

    Read from the raw header, never raising: ``From: frank@`` gives ``frank@`` (which
    :func:`pbem.mail.address.is_mailable` refuses), not an exception (issue 10, item 8).
    """
    for value in raw_headers(msg, "From"):
        found = _first_address(value)
        if found:
            return found
    return ""


@functools.lru_cache(maxsize=4096)  # a game's few players write again and again
def _first_address(value: str) -> str:
    """The first address of one raw From value, lowercased; "" if none is readable."""
    # raw 8-bit (an RFC 6532 address, or bare Latin-1) arrives as surrogate escapes
    value = decode_text(value.encode("utf-8", "surrogateescape"), None)
    with contextlib.suppress(Exception):
        found = [addr for _, addr in getaddresses([value]) if addr]
        if found:
            return found[0].strip().lower()
    return ""


_MESSAGE_ID = re.compile(r"<[!-;=?-~]+>")  # printable ASCII, no angle brackets inside


def message_id_of(msg: Message) -> str | None:
    """The Message-ID (``<...>``), or None when it is missing or malformed (``<>``)."""
    for value in raw_headers(msg, "Message-ID"):
        if _MESSAGE_ID.fullmatch(value):
            return value
    return None


def first_command(msg: Message, spec: CommandSpec) -> tuple[str, Command] | None:
    """The mail's first line that reads as ``spec`` (a non-player's REMPLACANT or OBSERVER)
    and its command; None when the mail has none or cannot be read."""
    try:
        text = extract(msg)
    except MailError:
        return None
    for line in text.lines:
        try:
            command = parse_line(line, [spec], [])
        except CommandError:
            continue
        if command is not None:
            return line, command
    return None
