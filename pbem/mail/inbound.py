"""Inbound mail: from a raw message to the text lines that may carry commands.

Pure: no I/O, no clock. Every input here is hostile (RELIABILITY 7.2): unknown charsets, broken
transfer encodings, missing boundaries, thousands of nested multiparts, control characters. The
public functions therefore raise nothing but :class:`~pbem.core.errors.MailError`.

What counts as command text (DESIGN, "Mail in, mail out"): the first inline ``text/plain`` part,
else the first ``text/html`` part turned into text; quoted lines are skipped, and the text ends
at a signature, an END/FIN line, or the start of a quoted or forwarded older message.
"""

from __future__ import annotations

import codecs
import contextlib
import email
import email.policy
import re
import unicodedata
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email.headerregistry import BaseHeader, HeaderRegistry
from email.message import EmailMessage, Message
from email.policy import EmailPolicy
from email.utils import getaddresses, parseaddr
from html.parser import HTMLParser
from typing import Any, Literal

from pbem.core.errors import MailError
from pbem.core.names import END_WORDS

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

# Deeper MIME trees are not written by mail clients; only attacks nest this far.
_MAX_DEPTH = 30

# Text beyond this many characters of the chosen part is not read: commands sit at the top, and
# it bounds what a huge mail costs (html.parser manages only a few MB of tags per second).
_MAX_CHARS = 1_000_000

# HTML is converted in slices so that parsing stops once the line cap is hit.
_HTML_SLICE = 64 * 1024


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


# --- public API -----------------------------------------------------------------------------


class _ClassOnceRegistry(HeaderRegistry):
    """The default header registry, but the header class for a kind of header is made once.

    ``HeaderRegistry.__getitem__`` builds a new class with ``type()`` for every header it parses
    (classes are cyclic garbage: the collector runs often); these classes are identical, so one
    per specialised class serves every message.
    """

    def __init__(self) -> None:
        super().__init__()
        self._made: dict[type, type] = {}

    def __getitem__(self, name: str) -> type[BaseHeader]:
        cls = self.registry.get(name.lower(), self.default_class)
        made = self._made.get(cls)
        if made is None:
            made = self._made[cls] = super().__getitem__(name)
        return made

    def __call__(self, name: str, value: str) -> BaseHeader:
        """The header object; for a value its structured parser chokes on, the same value as
        an unstructured header. Malformed headers are data, never an exception to whoever reads
        or re-writes them (``From: frank@`` and ``Message-ID: <>`` raise IndexError in the
        stdlib's parsers)."""
        try:
            return super().__call__(name, value)
        except Exception:
            # an unstructured header class, under the header's own name
            return self[_UNPARSABLE](name, value)


# Any name the registry has no structured parser for: its header class is unstructured.
_UNPARSABLE = "X-Pbem-Unparsable"

_REGISTRY = _ClassOnceRegistry()


class ParseOncePolicy(EmailPolicy):
    """``email.policy.default``, except that each header value is parsed once per message.

    The modern policy re-parses a header on every read (``msg["From"]``, and every
    ``get_content_type()``, which the parser itself and ``get_body``/``get_content`` call many
    times); nothing is cached. The parsed header objects are immutable, and a function of the
    header's name and raw value only, so this policy memoises them. Use one instance per message
    (:func:`parse_once_policy`): the memo then lives and dies with that message and holds only
    its own headers. Results are equal to the default policy's, read for read.
    """

    _memo: dict[tuple[str, str], object]

    def __init__(self, **kw: Any) -> None:
        super().__init__(**{"header_factory": _REGISTRY, **kw})
        object.__setattr__(self, "_memo", {})  # policies are read-only once built

    def clone(self, **kw: Any) -> ParseOncePolicy:
        new = super().clone(**kw)
        assert isinstance(new, ParseOncePolicy)
        object.__setattr__(new, "_memo", {})  # a clone may parse differently: its own memo
        return new

    def header_fetch_parse(self, name: str, value: str) -> str:
        if hasattr(value, "name"):  # already a header object (set by the program)
            return value
        key = (name, value)
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = super().header_fetch_parse(name, value)
        return got  # type: ignore[return-value]


def parse_once_policy() -> ParseOncePolicy:
    """A fresh :class:`ParseOncePolicy` for parsing one message."""
    return ParseOncePolicy()


def parse_bytes(raw: bytes) -> EmailMessage:
    """Parse a raw RFC 5322 message with the modern email policy (each header parsed once).

    Raises :class:`MailError` for anything the stdlib parser chokes on (a deeply nested MIME
    bomb raises ``RecursionError`` inside the parser itself).
    """
    with _as_mail_error("unparsable message"):
        msg = email.message_from_bytes(raw, policy=parse_once_policy())
        assert isinstance(msg, EmailMessage)
        return msg


def extract(msg: Message, *, max_lines: int = 60) -> MailText:
    """Extract the subject and the command-bearing body lines of ``msg``.

    A message without any text part is not an error: it yields no lines. At most ``max_lines``
    non-blank lines are kept, from the first million characters of the text part; ``truncated``
    tells whether text was left unread. Raises only :class:`MailError`.

    Bold is read from the HTML alternative of the text part when there is one (issue 10, item
    1): Apple Mail and Outlook put no ``*markers*`` in their text part, so the ``<b>Dave</b>``
    every reader sees is only in the HTML.
    """
    with _as_mail_error("unreadable message"):
        if max_lines < 0:
            raise MailError(f"max_lines must not be negative, got {max_lines}")
        subject = _strip_subject_prefixes(_subject(msg))
        source = _text_source(msg)
        if source is None:
            return MailText(subject, lines=(), bold=(), truncated=False, html_only=False)
        part, text, is_html = source
        kept, truncated = _read_part(text, is_html, max_lines)
        if is_html:
            bold = tuple(run for line in kept for run in line.bold)
            disagreement: tuple[str, ...] = ()
        else:
            bold = tuple(run for line in kept for run in _marked_bold(line.text))
            bold, disagreement = _alternative_bold(msg, part, bold, max_lines)
        return MailText(
            subject=subject,
            lines=tuple(line.text for line in kept),
            bold=bold,
            truncated=truncated,
            html_only=is_html,
            bold_disagreement=disagreement,
        )


def _read_part(text: str, is_html: bool, max_lines: int) -> tuple[list[_Line], bool]:
    """The kept lines of a part's decoded text, and whether text was left unread."""
    complete = len(text) <= _MAX_CHARS
    text = text[:_MAX_CHARS]
    lines = _html_lines(text, complete) if is_html else _plain_lines(text, complete)
    kept, ending = _select(lines, max_lines, paragraphs=not is_html)
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
    html = _html_alternative(msg, plain)
    if html is None:
        return marked, ()
    kept, _truncated = _read_part(_part_text(html), True, max_lines)
    shown = tuple(run for line in kept for run in line.bold)
    if not shown:
        return marked, ()
    if marked and {_fold(r) for r in marked} != {_fold(r) for r in shown}:
        return shown, marked
    return shown, ()


def _html_alternative(msg: Message, plain: Message) -> Message | None:
    """The ``text/html`` alternative of the text part ``plain``, if any.

    ``plain`` is a child of a ``multipart/alternative``; the HTML is another child, or inside
    one (Apple Mail and Outlook put it in a ``multipart/related`` with its inline images).
    """
    for part in _parts(msg):
        children = part.get_payload()
        if part.get_content_type() != "multipart/alternative" or not isinstance(children, list):
            continue
        if not any(child is plain for child in children):
            continue
        for child in children:
            if child is plain or not isinstance(child, Message):
                continue
            for leaf in _parts(child):
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
    for value in _headers(msg, "From"):
        # raw 8-bit (an RFC 6532 address, or bare Latin-1) arrives as surrogate escapes
        value = _decode(value.encode("utf-8", "surrogateescape"), None)
        with contextlib.suppress(Exception):
            found = [addr for _, addr in getaddresses([value]) if addr]
            if found:
                return found[0].strip().lower()
    return ""


_MESSAGE_ID = re.compile(r"<[!-;=?-~]+>")  # printable ASCII, no angle brackets inside


def message_id_of(msg: Message) -> str | None:
    """The Message-ID (``<...>``), or None when it is missing or malformed (``<>``)."""
    for value in _headers(msg, "Message-ID"):
        if _MESSAGE_ID.fullmatch(value):
            return value
    return None


def subject_tag(msg: Message) -> str | None:
    """The ``[tag]`` at the start of the Subject (after any Re:/Fwd:), lowercased, or None.

    Mailing lists prepend their tag, and replies put "Re:" before it; a bracket later in the
    subject is the player's own text, not routing.
    """
    with _as_mail_error("unreadable subject"):
        subject = _subject(msg)
        while match := _SUBJECT_PREFIX.match(subject):
            tag = match.group("tag")
            if tag is not None and tag.strip():
                return tag.strip().lower()
            subject = subject[match.end() :]
        return None


def automatic_reason(msg: Message, *, our_addresses: Collection[str]) -> str | None:
    """Why this mail must never be parsed nor answered, or None for mail from a human.

    RFC 3834 and loop hygiene (RELIABILITY 2.4, 2.5, requirement 8). The reasons, checked in
    this order: ``"ours"`` (our own mail echoed back: X-Loop ours and From or Message-ID
    domain ours), ``"loop"`` (X-Loop ours), ``"bounce"`` (a DSN or a mailer-daemon/postmaster
    sender), ``"null-sender"`` (``Return-Path: <>``), ``"auto-reply"`` (vacation responders),
    ``"auto-submitted"`` (any other ``Auto-Submitted`` but ``no``) and ``"bulk"``
    (``Precedence: bulk`` or ``junk``). ``Precedence: list`` is a normal list post, and
    ``X-Auto-Response-Suppress`` is set by Outlook on human mail: neither is automatic.
    """
    with _as_mail_error("unreadable headers"):
        ours = {_address(a) for a in our_addresses} - {""}
        our_domains = {a.rpartition("@")[2] for a in ours if "@" in a}
        senders = {_address(addr) for _, addr in getaddresses(_headers(msg, "From"))}

        if any(_address(value) in ours for value in _headers(msg, "X-Loop")):
            id_domains = {_message_id_domain(value) for value in _headers(msg, "Message-ID")}
            return "ours" if senders & ours or id_domains & our_domains else "loop"
        if _is_bounce(msg, senders):
            return "bounce"
        if any(_address(value) == "" for value in _headers(msg, "Return-Path")):
            return "null-sender"
        if _is_auto_reply(msg):
            return "auto-reply"
        if any(_token(value) != "no" for value in _headers(msg, "Auto-Submitted")):
            return "auto-submitted"
        if any(_token(value) in ("bulk", "junk") for value in _headers(msg, "Precedence")):
            return "bulk"
        return None


# --- guard ----------------------------------------------------------------------------------


@contextmanager
def _as_mail_error(what: str) -> Iterator[None]:
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


# --- MIME structure and decoding ------------------------------------------------------------


def _parts(msg: Message) -> Iterator[Message]:
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


def _text_source(msg: Message) -> tuple[Message, str, bool] | None:
    """The part to read, its decoded text, and whether it is HTML; None without a text part.

    A blank ``text/plain`` part is passed over: some clients send one next to the real HTML.
    """
    html: Message | None = None
    for part in _parts(msg):
        if part.is_multipart() or part.get_content_disposition() == "attachment":
            continue
        content_type = part.get_content_type()
        if content_type == "text/plain":
            text = _part_text(part)
            if text.strip():
                return part, text, False
        elif content_type == "text/html" and html is None:
            html = part
    return (html, _part_text(html), True) if html is not None else None


def _part_text(part: Message) -> str:
    """The payload of a leaf part, transfer-decoded then charset-decoded, never raising."""
    # get_payload(decode=True) records bad base64 as a defect instead of raising.
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    return _decode(payload, part.get_content_charset())


def _decode(data: bytes, charset: str | None) -> str:
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


# --- normalisation --------------------------------------------------------------------------

# Invisible characters that would hide or reorder text: C0/C1 controls other than the
# whitespace ones (those become spaces below), soft hyphen, bidi marks and overrides, zero-width
# characters, word joiners, BOM, interlinear annotations, tag characters, lone surrogates.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0e-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff\U000e0000-\U000e007f]"
)
_TO_ASCII = str.maketrans(
    {
        **dict.fromkeys("“”„‟", '"'),
        **dict.fromkeys("‘’‚‛‹›", "'"),
        **dict.fromkeys("‐‑‒–—―−", "-"),
        "…": "...",
    }
)
# French typography puts (often non-breaking) spaces inside guillemets: « Bob » means "Bob".
_GUILLEMETS = re.compile(r"«\s*|\s*»")
_SPACES = re.compile(r"\s+")


def _normalise(text: str) -> str:
    """One line as commands see it: NFC, ASCII quotes and dashes, no invisibles, single spaces."""
    text = unicodedata.normalize("NFC", _INVISIBLE.sub("", text))
    text = _GUILLEMETS.sub('"', text).translate(_TO_ASCII)
    return _SPACES.sub(" ", text).strip()


def _fold(text: str) -> str:
    """Case- and accent-insensitive form, for matching markers like "FIN" or "a écrit"."""
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


# --- subject --------------------------------------------------------------------------------

# One leading "Re:", "Fwd:", "TR:", "Réf." (Lotus Notes, French) or "[tag]", in any order and
# repeated; "Re[2]:" and "Re^2:" are reply counters some clients add.
_SUBJECT_PREFIX = re.compile(
    r"(?:(?:re|fwd?|tr)(?:\[\d+\]|\^\d+)?\s?:|r[eé]f\.(?:\s?:)?|\[(?P<tag>[^\[\]]*)\])\s*",
    re.IGNORECASE,
)


def _subject(msg: Message) -> str:
    """The Subject decoded (RFC 2047 via the default policy) and normalised, prefixes kept."""
    values = _headers(msg, "Subject")
    if not values:
        return ""
    try:
        # Raw 8-bit subjects (old clients send bare Latin-1) arrive as surrogate escapes, which
        # the policy would turn into U+FFFD; recover the bytes and guess their charset first.
        raw = _decode(values[0].encode("utf-8", "surrogateescape"), None)
        decoded = str(email.policy.default.header_fetch_parse("Subject", raw))
    except Exception:
        # The header parser has crashed on hostile input before; an undecodable subject must
        # not cost us the body, so fall back to the raw text (_normalise drops surrogates).
        decoded = values[0]
    return _normalise(decoded)


def _strip_subject_prefixes(subject: str) -> str:
    while match := _SUBJECT_PREFIX.match(subject):
        subject = subject[match.end() :]
    return subject


# --- body lines -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Line:
    """One normalised body line, and the bold runs an HTML source marked in it."""

    text: str
    bold: tuple[str, ...] = ()  # HTML only: plain-text bold is read from the markers


def _plain_lines(text: str, complete: bool) -> Iterator[_Line]:
    """Plain text to lines; when ``text`` was cut short, its partial last line is left out."""
    lines = text.splitlines()
    if not complete and lines:
        lines.pop()
    for raw in lines:
        yield _Line(_normalise(raw))


def _html_lines(html: str, complete: bool) -> Iterator[_Line]:
    """HTML to lines, lazily, so that the caller can stop reading at the line cap.

    When ``html`` was cut short, the line still open at the cut is left out.
    """
    parser = _HtmlToLines()
    for start in range(0, len(html), _HTML_SLICE):
        parser.feed(html[start : start + _HTML_SLICE])
        yield from parser.take()
    if complete:
        parser.close()
        yield from parser.take()


_BLOCK_TAGS = frozenset(
    {
        *("address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt"),
        *("fieldset", "figcaption", "figure", "footer", "form", "header", "hr", "li", "main"),
        *("h1", "h2", "h3", "h4", "h5", "h6", "nav", "ol", "p", "pre", "section"),
        *("table", "tbody", "tfoot", "thead", "tr", "ul"),
    }
)
_CELL_TAGS = frozenset({"td", "th"})
_HIDDEN_TAGS = frozenset({"script", "style", "template", "title"})
_BOLD_TAGS = frozenset({"b", "strong"})
# Elements without an end tag: never pushed on the open-element stacks.
_VOID_TAGS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)
# CSS font-weight in a style attribute, as forums and word processors paste bold.
_FONT_WEIGHT = re.compile(r"(?:^|;)\s*font-weight\s*:\s*([a-z0-9]+)", re.IGNORECASE)


def _css_weight(attrs: list[tuple[str, str | None]]) -> bool | None:
    """True for a bold ``font-weight`` (``bold``, ``bolder``, 600 and more), False for a normal
    one (Google Docs wraps pasted text in ``<b style="font-weight:normal">``), None for none."""
    for name, value in attrs:
        if name != "style" or not value:
            continue
        found = _FONT_WEIGHT.findall(value)
        if found:
            weight = found[-1].lower()
            if weight.isdigit():
                return int(weight) >= 600
            return weight in ("bold", "bolder")
    return None


class _HtmlToLines(HTMLParser):
    """Collects text lines from HTML with their bold runs; drops blockquotes and hidden content.

    A ``<blockquote>`` holds the quoted older mail, whose commands must not run again.
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self._done: list[_Line] = []
        self._chunks: list[str] = []
        self._bolds: list[str] = []
        self._bold_chunks: list[str] = []
        self._bold_depth = 0
        # per tag name, whether each open element made its text bold: an end tag undoes
        # exactly what its start tag did (<span style="font-weight:bold">...</span>)
        self._open: dict[str, list[bool]] = {}
        self._quote_depth = 0
        self._hidden_depth = 0

    def take(self) -> list[_Line]:
        """The lines completed so far (each returned once)."""
        done, self._done = self._done, []
        return done

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag(tag, +1)
        weight = _css_weight(attrs)
        bold = weight if weight is not None else tag in _BOLD_TAGS
        if tag not in _VOID_TAGS:
            self._open.setdefault(tag, []).append(bold)
        if bold:
            self._bold_depth += 1

    def handle_endtag(self, tag: str) -> None:
        self._tag(tag, -1)
        opened = self._open.get(tag)
        # a stray end tag (common in mail HTML) changes nothing
        if opened and opened.pop() and self._bold_depth:
            self._bold_depth -= 1
            if not self._bold_depth:
                self._end_bold()

    def handle_data(self, data: str) -> None:
        if self._quote_depth or self._hidden_depth:
            return
        self._chunks.append(data)
        if self._bold_depth:
            self._bold_chunks.append(data)

    def close(self) -> None:
        super().close()
        self._break_line()

    def _tag(self, tag: str, step: int) -> None:
        # Depths never go below zero: stray closing tags are common in mail HTML.
        if tag in _BLOCK_TAGS:
            self._break_line()
        elif tag in _CELL_TAGS:
            self._chunks.append(" ")
        if tag == "blockquote":
            self._quote_depth = max(0, self._quote_depth + step)
        elif tag in _HIDDEN_TAGS:
            self._hidden_depth = max(0, self._hidden_depth + step)

    def _end_bold(self) -> None:
        run = _bold_run(_normalise("".join(self._bold_chunks)))
        self._bold_chunks.clear()
        if run:
            self._bolds.append(run)

    def _break_line(self) -> None:
        # A bold run that spans a line break counts as one run on each line.
        self._end_bold()
        self._done.append(_Line(_normalise("".join(self._chunks)), tuple(self._bolds)))
        self._chunks.clear()
        self._bolds.clear()


# "**x**" or "*x*" with no space just inside the stars, so "* item" bullets and "a * b" are
# not bold; a single star must not touch a word outside ("2*3*4").
_MARKED_BOLD = re.compile(
    r"\*\*(?=[^\s*])(?P<double>.+?)(?<=[^\s*])\*\*"
    r"|(?<![\w*])\*(?=[^\s*])(?P<single>[^*]+?)(?<=[^\s*])\*(?![\w*])"
)


def _marked_bold(line: str) -> list[str]:
    runs = (_bold_run(m.group("double") or m.group("single")) for m in _MARKED_BOLD.finditer(line))
    return [run for run in runs if run]


def _bold_run(text: str) -> str:
    """A bold run without the punctuation that often ends up inside the bold ("<b>Dave,</b>",
    "**Dave.**"): no player name starts or ends with it (pbem.core.names)."""
    return text.strip(" .,;:!?")


# --- where the command text ends ------------------------------------------------------------

# The patterns below run on _fold()ed text: lowercase, accents removed.
_END_WORDS = END_WORDS  # the setup refuses these as player names (a bold name on its own line)
_ATTRIBUTION_START = re.compile(r"(?:on|le) ")
_ATTRIBUTION_END = re.compile(r"(?:wrote|a ecrit) ?:$")
# Outlook, Thunderbird, Gmail, Orange and Apple Mail separators before an older message.
_DIVIDER = re.compile(
    r"-{2,} ?(?:original message|message d'origine|message original|mail original"
    r"|forwarded message|message transfere) ?-{2,}$"
    r"|(?:begin forwarded message|debut du message reexpedie) ?:$"
)
_HEADER_FROM = re.compile(r"(?:from|de) ?:")
_HEADER_NEXT = re.compile(r"(?:sent|envoye|date) ?:")
# Signatures without the "-- " line (issue 10, item 14; DRA-421: a relayed Dracula text must not
# carry its sender's name): what phones and mail apps append ("Envoyé de mon iPhone", "Sent from
# my Galaxy", "Get Outlook for Android"), and a closing salutation ("Cordialement,").
_DEVICE_SIGNATURE = re.compile(
    r"(?:(?:sent|envoye|expedie)e? (?:from|de|depuis|a partir d[e']|avec|with|using|via) "
    r"|(?:get|obtenir|telechargez|telecharger) outlook (?:for|pour) )"
    r".{0,50}\b(?:iphone|ipad|android|smartphone|mobile|portable|tablette|tablet|galaxy|samsung"
    r"|outlook|yahoo|gmail|mail|proton|blackberry|huawei|xiaomi|pixel|telephone|phone|ios)\b"
    r".{0,30}$"
)
_VALEDICTION = re.compile(
    r"(?:(?:bien |tres |tres bien )?cordialement|bien a (?:vous|toi)|amities|amicalement|bises"
    r"|bisous|a\+|(?:best|kind|warm|warmest) regards|regards|cheers|sincerely|yours"
    r"|salutations(?: distinguees)?)[ ,.!]*$"
)
# A telephone number, alone or after its label: the end of a "name, number" signature block.
_PHONE = re.compile(
    r"(?:(?:tel|telephone|phone|mobile|mob|portable|port|cell|gsm|fixe|fax|[tmpf])\.? ?:? ?)?"
    r"\+?[\d(][\d ().\-/]{6,}\d"
)
# The lines before a telephone number that belong to its signature (a name, a title): short,
# without sentence punctuation; at most this many, never the mail's first line.
_SIGNATURE_LINES = 3
_SIGNATURE_LINE = re.compile(r"(?=.*[^\W\d_])[^.!?:;,]{1,50}")


def _is_phone(line: str) -> bool:
    """Whether a (folded) line is a telephone number (8 to 16 digits), possibly labelled."""
    return bool(_PHONE.fullmatch(line)) and 8 <= sum(c.isdigit() for c in line) <= 16


def _signature_start(kept: list[_Line], paragraph: int) -> int:
    """Where the signature block ending at a telephone number begins in ``kept``: the short
    name-like lines just before it, within its paragraph (``paragraph``: the index of the
    paragraph's first kept line)."""
    start = len(kept)
    floor = max(1, paragraph, len(kept) - _SIGNATURE_LINES)
    while start > floor and _is_signature_line(kept[start - 1].text):
        start -= 1
    return start


def _is_signature_line(text: str) -> bool:
    return len(text.split()) <= 5 and bool(_SIGNATURE_LINE.fullmatch(text))


def _ends_body(text: str, following: str) -> bool:
    """Whether ``text`` (with the line after it) starts a signature, an END, or older mail."""
    if text == "--":  # "-- " once normalised
        return True
    line, after = _fold(text), _fold(following)
    return bool(
        line.rstrip(". ") in _END_WORDS
        or _DIVIDER.match(line)
        or (len(line) <= 100 and _DEVICE_SIGNATURE.match(line))
        or _VALEDICTION.match(line)
        # "On <date>, <who> wrote:", possibly wrapped over two lines; French "Le ... a écrit :".
        or (
            _ATTRIBUTION_START.match(line)
            and (_ATTRIBUTION_END.search(line) or _ATTRIBUTION_END.search(after))
        )
        # Outlook's quoted header block: "From: ..." then "Sent: ..." or "Date: ...".
        or (_HEADER_FROM.match(line) and _HEADER_NEXT.match(after))
    )


_Ending = Literal["marker", "cap", "end"]


def _select(
    lines: Iterator[_Line], max_lines: int, *, paragraphs: bool = True
) -> tuple[list[_Line], _Ending]:
    """The kept lines (blanks and ``>`` quotes skipped), and what ended them.

    ``paragraphs``: a blank line separates paragraphs (plain text); in HTML every ``<p>``
    makes one, so blank lines say nothing there.
    """
    kept: list[_Line] = []
    paragraph = 0
    current = next(lines, None)
    while current is not None:
        following = next(lines, None)  # one line of lookahead, for two-line patterns
        text = current.text
        if not text and paragraphs:
            paragraph = len(kept)
        if text and not text.startswith(">"):
            if _ends_body(text, following.text if following else ""):
                return kept, "marker"
            if _is_phone(_fold(text)):
                return kept[: _signature_start(kept, paragraph)], "marker"
            if len(kept) == max_lines:
                return kept, "cap"
            kept.append(current)
        current = following
    return kept, "end"


# --- headers for automatic_reason -----------------------------------------------------------

_AUTO_REPLY_HEADERS = ("X-Autoreply", "X-Autorespond", "X-Mail-Autoreply")


def _headers(msg: Message, name: str) -> list[str]:
    """Raw values of a header, unfolded, without the header-registry parser.

    Raw values keep the checks identical whatever the message's policy, and spare us the
    structured parsers on attacker-written address headers.
    """
    wanted = name.lower()
    return [_SPACES.sub(" ", str(v)).strip() for k, v in msg.raw_items() if k.lower() == wanted]


def _address(value: str) -> str:
    """The bare address in a header value, lowercased ("" for "<>")."""
    return parseaddr(value)[1].strip().lower()


def _token(value: str) -> str:
    """The keyword of a header like Auto-Submitted, without parameters or comments."""
    return re.split(r"[\s;(]", value, maxsplit=1)[0].lower()


def _message_id_domain(value: str) -> str:
    return value.strip().strip("<>").rpartition("@")[2].strip().lower()


def _is_bounce(msg: Message, senders: set[str]) -> bool:
    if any(sender.partition("@")[0] in ("mailer-daemon", "postmaster") for sender in senders):
        return True
    for part in _parts(msg):
        if part.get_content_type() in ("multipart/report", "message/delivery-status"):
            return True
    return False


def _is_auto_reply(msg: Message) -> bool:
    if any(_token(v) == "auto-replied" for v in _headers(msg, "Auto-Submitted")):
        return True
    if any(_token(v) not in ("no", "false") for h in _AUTO_REPLY_HEADERS for v in _headers(msg, h)):
        return True
    if any(_token(v) == "reply" for v in _headers(msg, "X-Autogenerated")):
        return True
    precedence = _headers(msg, "Precedence") + _headers(msg, "X-Precedence")
    return any(_token(v) == "auto_reply" for v in precedence)
