"""Outgoing mail as bytes: stable Message-ID, threading and loop-safety headers (RELIABILITY §2.4).

Pure: the time comes in as an argument. The bytes are built once, at commit time, and stored in the
outbox, so a retry resends exactly the same message with the same Message-ID (requirement 9).
"""

from __future__ import annotations

import email
import email.policy
import functools
import hashlib
import hmac
import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from email.header import Header
from email.policy import compat32
from email.utils import formataddr
from typing import Protocol

from pbem.mail.address import getaddresses, parseaddr
from pbem.mail.html import merged


class OutgoingLike(Protocol):
    """The fields of the engine's ``Outgoing`` this module reads (structural, no import)."""

    @property
    def key(self) -> str: ...
    @property
    def to(self) -> tuple[str, ...]: ...
    @property
    def public(self) -> bool: ...
    @property
    def subject(self) -> str: ...
    @property
    def body(self) -> str: ...
    @property
    def in_reply_to(self) -> str | None: ...
    @property
    def thread(self) -> str: ...
    @property
    def auto(self) -> str: ...


@functools.lru_cache(maxsize=256)  # called for every reply, nearly always with the moderator
def domain_of(address: str) -> str:
    """The domain part of an address (lower-cased), or ``localhost``."""
    addr = getaddresses([address])[0][1] or address
    return addr.rpartition("@")[2].lower() or "localhost"


TEST_ID_KEY = b"pbem: the fixed Message-ID key of tests and simulations, never of a daemon"
"""The key of :func:`message_id` where no daemon runs (tests, offline tools). A daemon uses
its own secret (:func:`pbem.adapters.idkey.message_id_key`)."""

_STEM = 24  # hex digits of the keyed hash of the mail's key
_TAG = 8  # hex digits telling, to the key's holder only, a public mail from a private one


def _mac(id_key: bytes, text: str) -> str:
    return hmac.new(id_key, text.encode(), hashlib.sha256).hexdigest()


# A game id as it may follow the hash in a Message-ID's left part (RFC 5322 dot-atom); a game
# id that does not fit (``a..b``) is left out: its mail is still ours, only not routable by it.
_GAME_PART = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\Z")


def _game_part(game: str) -> str:
    game = game.lower()
    return "." + game if game and _GAME_PART.match(game) else ""


def message_id(
    key: str, domain: str, id_key: bytes, *, public: bool = False, game: str = ""
) -> str:
    """The Message-ID of an outgoing message: a function of its stable key and of the daemon's
    secret ``id_key`` only, so a resent mail keeps it (requirement 9) but nobody without the
    key learns anything from it: the engine's keys name the game, the event and the player,
    and an unkeyed hash of them gave every role away (issue 10 item 13).

    The last digits tag a public mail (a result, a relayed post) apart from a private one, for
    whoever holds the key (:func:`id_kind`): a relayed post may refer to the first, never to
    the second. A game's mail names its ``game`` after them, under the same tag (the players
    know the game's id: it is in every Subject), so that a reply to the bare moderator address
    that names no game still reaches it through its In-Reply-To/References (:func:`id_game`).
    Without ``game`` the id is the one earlier versions gave."""
    stem = _mac(id_key, key)[:_STEM]
    part = _game_part(game)
    tag = _mac(id_key, ("public:" if public else "private:") + stem + part)[:_TAG]
    return f"<{stem}{tag}{part}@{domain}>"


_OUR_ID = re.compile(
    rf"<?([0-9a-f]{{{_STEM}}})([0-9a-f]{{{_TAG}}})((?:\.[a-z0-9_-]+)*)@([^>\s]+)>?\Z"
)


def _verified(mid: str, id_key: bytes) -> tuple[str, str] | None:
    """``(kind, game)`` of a Message-ID this key made (game ``""`` when it names none)."""
    m = _OUR_ID.match(mid.strip().lower())
    if m is None:
        return None
    stem, tag, part = m.group(1), m.group(2), m.group(3)
    for kind in ("public", "private"):
        if hmac.compare_digest(_mac(id_key, f"{kind}:{stem}{part}")[:_TAG], tag):
            return kind, part[1:]
    return None


def id_kind(mid: str, id_key: bytes) -> str | None:
    """``"public"`` or ``"private"`` for a Message-ID this key made, else None (anyone else's)."""
    found = _verified(mid, id_key)
    return found[0] if found else None


def id_game(mid: str, id_key: bytes) -> str | None:
    """The game (lower-cased id) a Message-ID this key made names; None for anyone else's id,
    a forged one (the tag covers the game), or one of ours that names no game."""
    found = _verified(mid, id_key)
    return found[1] or None if found else None


@functools.lru_cache(maxsize=256)  # every public mail of a phase refers to it (issue 23)
def thread_root(thread: str, domain: str, id_key: bytes, *, game: str = "") -> str:
    """A stable pseudo Message-ID every post of one phase refers to, so a phase is one thread."""
    return message_id("thread:" + thread, domain, id_key, public=True, game=game)


_WIRE = compat32.clone(linesep="\r\n", max_line_length=78)
_LINE_MAX = 78
# A header value that compat32 folding leaves as it is once it fits on the line: printable
# ASCII words separated by single spaces (nothing to encode, nothing to fold).
_PLAIN_VALUE = re.compile(r"[!-~]+(?: [!-~]+)*\Z")
# What MIMEText(body, "plain", <utf-8 with quoted-printable>) puts before our own headers.
_MIME_HEADERS = (
    ("Content-Type", 'text/plain; charset="utf-8"'),
    ("MIME-Version", "1.0"),
    ("Content-Transfer-Encoding", "quoted-printable"),
)


def _header(value: str) -> str:
    """RFC 2047-encode a non-ASCII header value."""
    if value.isascii():
        return value
    if len(value) > _REMEMBERED_CHARS:
        return _encode(value)
    return _remembered(value)


def _encode(value: str) -> str:
    return Header(value, "utf-8", maxlinelen=76).encode()


# The mails of one thread share their Subject, and the encoder is slow (~0.5 ms a value): a
# short value is encoded once while it is in use (512 values of 200 characters at most).
_REMEMBERED_CHARS = 200
_remembered = functools.lru_cache(maxsize=512)(_encode)


def _clean(value: str) -> str:
    """Header values never carry CR/LF: player text cannot inject headers."""
    return " ".join(value.replace("\r", " ").replace("\n", " ").split())


# RFC 5322 §2.1.1: a line is at most 998 bytes. Folding happens only between words, so a word
# longer than this (a 5,000-character Subject without spaces, a hostile References id) is cut.
_WORD_MAX = 900
_LONG_WORD = re.compile(rf"\S{{{_WORD_MAX + 1},}}")


def _field(name: str, value: str) -> bytes:
    """One header line as ``BytesGenerator`` writes it with the compat32 wire policy.

    A plain value is written as is, or folded at its spaces when long (what the folder would
    produce: :func:`_fold_words`); anything else (non-ASCII, RFC 2047 words, odd whitespace,
    a long value with ``;`` or ``,``) goes through the policy's own folding. No line
    of the result is over 998 bytes (issue 10, item 20): a longer word is cut to 900.
    """
    if _PLAIN_VALUE.match(value):
        if len(name) + 2 + len(value) <= _LINE_MAX:
            return b"%s: %s\r\n" % (name.encode("ascii"), value.encode("ascii"))
        if len(value) <= _WORD_MAX and ";" not in value and "," not in value:
            folded = _fold_words(name, value)
            if folded is not None:
                return folded
    if len(value) > _WORD_MAX:
        value = _LONG_WORD.sub(lambda m: m.group()[:_WORD_MAX], value)
    return _WIRE.fold_binary(name, value)


def _fold_words(name: str, value: str) -> bytes | None:
    """A plain value's header line folded as compat32 folds it (None: leave it to the folder):
    a References of two Message-IDs is over 78 columns, and the policy's folder cost ~9 µs a
    mail (issue 23). ``value``: printable ASCII words between single spaces, none ending
    in ``;`` or ``,`` (the folder's preferred breaks): the folder fills each line with whole
    words up to 78 columns, the header's name counted on the first, and starts the next line
    with the space before the word that did not fit (alone, past the limit, if it is longer).
    A first word too long for the first line (the folder leaves that line empty) is left to
    the folder."""
    words = value.split(" ")
    line = words[0]
    width = len(name) + 2 + len(line)
    if width > _LINE_MAX:
        return None
    lines = []
    for word in words[1:]:
        width += 1 + len(word)
        if width <= _LINE_MAX:
            line += " " + word
        else:
            lines.append(line)
            line = " " + word
            width = len(line)
    lines.append(line)
    return f"{name}: {_CRLF.join(lines)}\r\n".encode("ascii")


_CRLF = "\r\n"
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_UTC = timedelta(0)


def _date(date: datetime) -> str:
    """``email.utils.format_datetime(date)``, its fields read directly rather than through a
    time tuple, and the zone of UTC (the daemon's clock) without ``strftime`` (issue 23)."""
    if date.tzinfo is None:
        zone = "-0000"
    elif date.utcoffset() == _UTC:
        zone = "+0000"
    else:
        zone = date.strftime("%z")
    return (
        f"{_DAYS[date.weekday()]}, {date.day:02d} {_MONTHS[date.month - 1]} {date.year:04d}"
        f" {date.hour:02d}:{date.minute:02d}:{date.second:02d} {zone}"
    )


def _qp_body(body: str) -> bytes:
    """The body as MIMEText + BytesGenerator write it: UTF-8, quoted-printable, CRLF lines.

    ``email.quoprimime.body_encode``'s output, written with bytes methods: the stdlib maps every
    character through a table in Python, and an HTML page (one line of ~1,400 characters) cost
    ~37 µs a mail, a third of :func:`build` (issue 23); this ~9 µs. The quoting is one
    ``replace`` per distinct unsafe byte (a handful in French text), ``=`` first, as every
    quoted form is made of safe bytes; only the lines the stdlib would change (longer than 76,
    or ending in a blank) go through its wrapping, :func:`_qp_wrap`.
    tests/mail/test_envelope.py holds the two to the same bytes."""
    if not body:
        return b""
    data = body.encode("utf-8")
    unsafe = data.translate(None, _QP_SAFE)
    data = data.replace(b"=", b"=3D")
    for byte in set(unsafe):
        data = data.replace(_QP_BYTES[byte], _QP_QUOTED[byte])
    if b"\r" in data:  # body_encode splits at \r\n, \r and \n (splitlines: the others quoted)
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return b"\r\n".join(
        [
            line if len(line) <= _QP_LINE and not line.endswith(_QP_BLANKS) else _qp_wrap(line)
            for line in data.split(b"\n")
        ]
    )


# What quoted-printable leaves as it is (email.quoprimime's body map, and the line ends it
# splits at); ``=`` is among them here only because _qp_body replaces it apart, first.
_QP_SAFE = bytes(range(0x20, 0x7F)) + b"\t\r\n"
_QP_BYTES = [bytes((byte,)) for byte in range(256)]
_QP_QUOTED = [b"=%02X" % byte for byte in range(256)]
_QP_LINE = 76  # body_encode's maxlinelen
_QP_BLANKS = (b" ", b"\t")


def _qp_wrap(line: bytes) -> bytes:
    """One quoted line as ``email.quoprimime.body_encode`` wraps it (its loop, on bytes): soft
    breaks every 75 characters, never inside an ``=XX``, and a blank at the line's end quoted
    (or moved past a soft break where there is no room)."""
    pieces = []
    start = 0
    laststart = len(line) - 1 - _QP_LINE
    while start <= laststart:
        stop = start + _QP_LINE - 1
        if line[stop - 2] == 0x3D:  # "=": an escape starts there, kept whole
            pieces.append(line[start : stop - 1])
            start = stop - 2
        elif line[stop - 1] == 0x3D:
            pieces.append(line[start:stop])
            start = stop - 1
        else:
            pieces.append(line[start:stop] + b"=")
            start = stop
    if line.endswith(_QP_BLANKS):
        room = start - laststart
        if room >= 3:
            end = _QP_QUOTED[line[-1]]
        elif room == 2:
            end = line[-1:] + b"=\r\n"
        else:
            end = b"=\r\n" + _QP_QUOTED[line[-1]]
        pieces.append(line[start:-1] + end)
    else:
        pieces.append(line[start:])
    return b"\r\n".join(pieces)


def _alternative_head(stem: str) -> tuple[bytes, bytes]:
    """The leading header lines of a multipart/alternative message whose boundary holds a
    ``stem`` of :data:`_STEM` hex digits, as the compat32 wire policy folds them: (before the
    stem, after it). Its Content-Type line is over 78 columns, and the policy's folder costs
    more than the rest of the mail's headers (issue 23); it splits only at ``;``, ``,`` and
    blanks, which hex digits are not, so every stem of that length folds alike: folded once
    here, with the policy's own folder. tests/mail/test_envelope.py holds it to the folder."""
    value = f'multipart/alternative; boundary="=_pbem_{stem}"'
    folded = _field("Content-Type", value) + _field("MIME-Version", "1.0")
    before, found, after = folded.partition(stem.encode("ascii"))
    assert found and stem.encode("ascii") not in after  # the stem written once, unbroken
    return before, after


def _alternative(text: bytes, html: str, stem: str) -> tuple[bytes, bytes]:
    """(leading header lines, body) of a multipart/alternative message: the text part first,
    its bytes exactly those of the text-only message, then the HTML (issue 15). The boundary
    derives from the Message-ID, so a resent mail is the same bytes; quoted-printable never
    writes ``=_``, so no part can contain it."""
    boundary = f"=_pbem_{stem}"
    before, after = _ALTERNATIVE_HEAD
    head = b"%s%s%s" % (before, stem.encode("ascii"), after)
    part = b"Content-Type: %s\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"
    body = b"".join(
        (
            b"--%s\r\n" % boundary.encode(),
            part % b'text/plain; charset="utf-8"',
            text,
            b"\r\n--%s\r\n" % boundary.encode(),
            part % b'text/html; charset="utf-8"',
            _qp_body(html),
            b"\r\n--%s--\r\n" % boundary.encode(),
        )
    )
    return head, body


_MIME_HEAD = b"".join(_field(name, value) for name, value in _MIME_HEADERS)
"""The leading header lines of a text-only message (the same for every mail)."""
_ALTERNATIVE_HEAD = _alternative_head("0" * _STEM)


def build(
    *,
    key: str,
    sender: str,
    to: tuple[str, ...],
    subject: str,
    body: str,
    date: datetime,
    auto: str = "auto-generated",
    public: bool = False,
    in_reply_to: str | None = None,
    thread: str | None = None,
    extra: Sequence[tuple[str, str]] = (),
    references: Sequence[str] = (),
    id_key: bytes,
    html: str = "",
    game: str = "",
    display: str = "",
    reply_to: str = "",
) -> tuple[str, bytes]:
    """Render one message; returns ``(message_id, bytes)``; ``id_key`` and ``game``: see
    :func:`message_id`. ``display`` is the From's display name (``"MJ village1"``, RFC 2047
    encoded when it is not ASCII), ``reply_to`` a Reply-To address (pbem.mail.threads).

    With ``html`` (a page from :mod:`pbem.mail.html`), a multipart/alternative message whose
    text part is the same as without it.

    A ``text/plain`` UTF-8 quoted-printable message, byte for byte what ``MIMEText`` flattened
    with the compat32 policy (CRLF, 78 columns) gives, written directly: no ``Message`` object and
    no header re-parsing for the common short ASCII headers (this runs once per reply, on the
    writer's thread). tests/mail/test_envelope.py holds the two to the same bytes.
    """
    domain = domain_of(sender)
    mid = message_id(key, domain, id_key, public=public, game=game)
    payload = _qp_body(body)
    mime = _MIME_HEAD
    if html:
        mime, payload = _alternative(payload, html, mid[1 : 1 + _STEM])
    to = tuple(to)
    if len(subject) + len(display) + len(reply_to) + sum(map(len, to)) <= _REMEMBERED_LEAD:
        lead = _remembered_lead(sender, display, to, reply_to, subject)
    else:
        lead = _lead(sender, display, to, reply_to, subject)
    headers = [("Date", _date(date)), ("Message-ID", mid)]
    refs: list[str] = []
    if thread and public:
        refs.append(thread_root(thread, domain, id_key, game=game))
    refs += [_clean(r) for r in references if r and r != in_reply_to and r not in refs]
    if in_reply_to:
        refs.append(_clean(in_reply_to))
    if refs:
        headers.append(("In-Reply-To", refs[-1]))
        headers.append(("References", " ".join(refs)))
    head = b"".join(_field(name, value) for name, value in headers)
    extra = tuple(extra)
    if sum(len(value) for _name, value in extra) <= _REMEMBERED_CHARS:
        tail = _remembered_tail(sender, auto, public, extra)
    else:
        tail = _tail(sender, auto, public, extra)
    return mid, mime + lead + head + tail + b"\r\n" + payload


def _lead(sender: str, display: str, to: tuple[str, ...], reply_to: str, subject: str) -> bytes:
    """The header lines before the Date: From, To, Reply-To, Subject."""
    shown = formataddr((_clean(display), sender), charset="utf-8") if display else sender
    headers = [
        ("From", shown),
        ("To", ", ".join(_clean(t) for t in to)),
        *([("Reply-To", _clean(reply_to))] if reply_to else []),
        ("Subject", _header(_clean(subject))),
    ]
    return b"".join(_field(name, value) for name, value in headers)


def _tail(sender: str, auto: str, public: bool, extra: tuple[tuple[str, str], ...]) -> bytes:
    """The header lines after the threading ones: loop safety, and the ``extra`` ones."""
    headers = [
        (
            "Auto-Submitted",
            auto if auto in ("auto-replied", "auto-generated") else "auto-generated",
        ),
        ("X-Loop", sender),
        ("X-Auto-Response-Suppress", "OOF, AutoReply"),
    ]
    if public:
        # only on broadcast results: some providers file private mail marked bulk as spam (§2.4)
        headers.append(("Precedence", "bulk"))
    headers += [(name, _header(_clean(value))) for name, value in extra]
    return b"".join(_field(name, value) for name, value in headers)


# Every mail of one thread to one reader has the same From, To, Reply-To and Subject, and
# every mail of a game the same closing lines: written once while they recur (issue 23), for
# values of a bounded size (a stranger's 5,000-character Subject is written each time).
_REMEMBERED_LEAD = 1000
_remembered_lead = functools.lru_cache(maxsize=1024)(_lead)
_remembered_tail = functools.lru_cache(maxsize=256)(_tail)


def build_outgoing(
    out: OutgoingLike,
    *,
    sender: str,
    date: datetime,
    extra: Sequence[tuple[str, str]] = (),
    id_key: bytes,
    html: bool = True,
    game: str = "",
    display: str = "",
    reply_to: str = "",
    references: Sequence[str] = (),
) -> tuple[str, bytes]:
    """:func:`build` for an engine ``Outgoing``; ``extra`` headers (a relayed list's);
    ``html=False`` (``[smtp] html = false``): text only, whatever HTML the engine made; the
    addressing of its game's thread (:func:`pbem.mail.threads.dress`)."""
    return build(
        key=out.key,
        sender=sender,
        to=out.to,
        subject=out.subject,
        body=out.body,
        date=date,
        auto=out.auto,
        public=out.public,
        in_reply_to=out.in_reply_to,
        thread=out.thread,
        extra=extra,
        id_key=id_key,
        html=str(getattr(out, "html", "")) if html else "",  # a test's fake engine has none
        game=game,
        display=display,
        reply_to=reply_to,
        references=references,
    )


def digest(
    parts: Sequence[bytes],
    *,
    message_ids: Sequence[str],
    sender: str,
    to: str,
    date: datetime,
    id_key: bytes,
) -> tuple[str, bytes]:
    """Several private replies to one player, queued together, as ONE message (RELIABILITY
    §2.5: receipts are always sent, but coalesced). Returns ``(message_id, bytes)``.

    The Message-ID derives from the parts' own, so a digest resent after a crash is the same
    message; it answers the last command (In-Reply-To). Results and prompts come first, then
    the receipts, each part under its own heading, one signature last.
    """
    news: list[tuple[str, str]] = []  # (subject, text): results and prompts
    receipts: list[tuple[str, str]] = []  # the answers to the player's commands
    signature = ""
    answered: list[str] = []
    pages: list[str] = []  # the parts' HTML alternatives, if they have one
    roots: list[str] = []  # the threads the parts belong to (pbem.mail.threads)
    display, reply_to = "", ""
    for raw in parts:
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        replied = _unfold(msg.get("In-Reply-To", ""))
        if replied and replied not in answered:
            answered.append(replied)
        roots += [r for r in _unfold(msg.get("References", "")).split() if r not in roots]
        display = parseaddr(_unfold(msg.get("From", "")))[0] or display
        reply_to = _unfold(msg.get("Reply-To", "")) or reply_to
        body = msg.get_body(("plain",))
        try:
            text = str(body.get_content()) if body is not None else ""
        except (LookupError, ValueError):  # we wrote these bytes; kept defensive all the same
            text = ""
        page = msg.get_body(("html",))
        if page is not None and page.get_content_type() == "text/html":
            pages.append(str(page.get_content()))
        text, marker, sig = text.replace("\r\n", "\n").partition("\n-- \n")
        signature = sig.strip("\n") if marker else signature
        part = (str(msg.get("Subject", "")), text.strip("\n"))
        receipt = str(msg.get("Auto-Submitted", "")) == "auto-replied"
        (receipts if receipt else news).append(part)
    # news first: a result or a prompt never hides under a receipt, nor after the "-- "
    # signature marker that mail clients grey out or cut when quoting (one signature, last)
    ordered = news + receipts
    subjects = [subject for subject, _text in ordered]
    sections = [
        f"{text}\n" if _headed(text) else f"{_heading(subject)}\n\n{text}\n"
        for subject, text in ordered
    ]
    body_text = "\n".join(sections) + (f"\n-- \n{signature}\n" if signature else "")
    # parts of one thread (a phase's private exchanges) keep its Subject as it is, so that the
    # digest stays in the thread in Gmail, which groups by Subject too
    subject = subjects[0] if len(set(subjects)) == 1 else f"{subjects[0]} (×{len(parts)})"
    games = {id_game(mid, id_key) for mid in message_ids}
    return build(
        key="digest:" + "|".join(message_ids),
        sender=sender,
        to=(to,),
        subject=subject,
        body=body_text,
        html=merged(subject, body_text, pages) if pages else "",
        date=date,
        auto="auto-replied",
        in_reply_to=answered[-1] if answered else None,
        # it answers every one of the player's mails, in the threads of its parts
        references=[*[r for r in roots if r not in answered], *answered[:-1]],
        id_key=id_key,
        game=games.pop() or "" if len(games) == 1 else "",
        display=display,
        reply_to=reply_to,
    )


def _unfold(value: object) -> str:
    """A parsed header's value on one line."""
    return " ".join(str(value or "").split())


def _headed(text: str) -> bool:
    """A part whose text opens with its own underlined title (a threaded mail's, whose
    Subject names the thread, not the mail: pbem.mail.threads)."""
    lines = text.split("\n", 2)
    return len(lines) > 1 and bool(lines[0].strip()) and set(lines[1]) == {"="}


def _heading(subject: str) -> str:
    """A part's Subject, without its ``[game]`` tag, underlined: one heading per part."""
    title = subject.split("] ", 1)[1] if subject.startswith("[") and "] " in subject else subject
    return f"{title}\n{'=' * len(title)}"
