"""Parsing a raw message, each header parsed once (the stdlib's modern policy re-parses a
header on every read), and malformed headers kept as data instead of raised."""

from __future__ import annotations

import email
import functools
from email.headerregistry import BaseHeader, HeaderRegistry
from email.message import EmailMessage, Message
from email.policy import EmailPolicy, compat32
from typing import Any

from pbem.mail.mime import as_mail_error

#: Header values up to this many characters are remembered across messages: what repeats from
#: mail to mail (each MIME part's Content-Type and Content-Transfer-Encoding, the players' From,
#: a thread's Subject, the List-Id) is short; a longer value (a DKIM signature, a References
#: chain, a long To list) rarely repeats, and a parse tree weighs ~700 bytes per character.
SHARED_VALUE_CHARS = 128
#: How many parsed headers are remembered across messages, least recently used first out:
#: ~10 KB each for a usual header (a From, a Content-Type), so a few MB, 25 MB at the very
#: worst (every one a 128-character address list).
SHARED_HEADERS = 256


class _ClassOnceRegistry(HeaderRegistry):
    """The default header registry, but the header class for a kind of header is made once,
    and a short header value already parsed is not parsed again.

    ``HeaderRegistry.__getitem__`` builds a new class with ``type()`` for every header it parses
    (classes are cyclic garbage: the collector runs often); these classes are identical, so one
    per specialised class serves every message.

    Parsing a header is the costly part of reading a mail (the MIME headers of every part are
    read many times by ``get_body``); the same values come in every mail. A header object is
    a function of its name and raw value and is never changed once built: the parsed result
    of a short value is kept in a bounded LRU (:data:`SHARED_HEADERS` values of at most
    :data:`SHARED_VALUE_CHARS` characters), and each call gets its own copy of it, so no
    message holds another's header objects.
    """

    def __init__(self) -> None:
        super().__init__()
        self._made: dict[type, type] = {}
        self._parsed = functools.lru_cache(maxsize=SHARED_HEADERS)(self._parse)

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
        # a program may set a header from an Address or a datetime: only text is remembered
        if type(value) is not str or len(value) > SHARED_VALUE_CHARS:
            return self._parse(name, value)
        parsed = self._parsed(name, value)
        # a copy: the same immutable parse, but an object of this message's own (the
        # address headers fill a cache of theirs on first read)
        copy = str.__new__(type(parsed), parsed)
        copy.__dict__.update(parsed.__dict__)
        return copy

    def _parse(self, name: str, value: str) -> BaseHeader:
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

    Across messages, a short header value already seen is not parsed again either (its parse
    is kept in a bounded LRU shared by all messages: :class:`_ClassOnceRegistry`); each message
    still gets header objects of its own.
    """

    _memo: dict[tuple[str, str], object]

    def __init__(self, **kw: Any) -> None:
        super().__init__(**{"header_factory": _REGISTRY, **kw})
        object.__setattr__(self, "_memo", {})  # policies are read-only once built

    def clone(self, **kw: Any) -> ParseOncePolicy:
        """The policy changed by ``kw``, with a memo of its own."""
        new = super().clone(**kw)
        assert isinstance(new, ParseOncePolicy)
        object.__setattr__(new, "_memo", {})  # a clone may parse differently: its own memo
        return new

    def header_fetch_parse(self, name: str, value: str) -> str:
        """The header object for ``value``, parsed once per message (a header object set by the
        program is returned as is)."""
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
    with as_mail_error("unparsable message"):
        msg = email.message_from_bytes(raw, policy=parse_once_policy())
        assert isinstance(msg, EmailMessage)
        return msg


def reparse(head: Message) -> EmailMessage | None:
    """The full parse (:func:`parse_bytes`, without its ``MailError``) of the mail whose
    headers-only compat32 parse is ``head`` (``BytesHeaderParser(policy=compat32)``), when the
    mail is a single part: None for any other (a multipart, a ``message/*``), which only the
    parser reads.

    The stdlib's feed parser reads the headers alike under every policy (``header_source_parse``
    is the same), and the body of a part that is neither multipart nor ``message/*`` is its
    payload as it comes, as the headers-only parse keeps it: those are taken from ``head`` and
    not split into lines again (issue 23: a second parse was 7 % of a mail's handling). Which
    parts those are is decided as the parser decides, by the content type the modern policy
    reads."""
    if type(head) is not Message or head.policy is not compat32:
        return None
    payload = head.__dict__.get("_payload")  # get_payload() would decode 8-bit text
    if type(payload) is not str:
        return None
    msg = EmailMessage(policy=parse_once_policy())
    for name, value in head.raw_items():
        msg.set_raw(name, value)
    try:
        kind = msg.get_content_type()
    except Exception:  # the parser would meet it too: it says how it fails
        return None
    if kind.partition("/")[0] in ("multipart", "message"):
        return None
    msg.set_unixfrom(head.get_unixfrom())  # type: ignore[arg-type]
    msg.defects.extend(head.defects)
    msg.set_payload(payload)
    return msg
