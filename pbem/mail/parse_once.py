"""Parsing a raw message, each header parsed once (the stdlib's modern policy re-parses a
header on every read), and malformed headers kept as data instead of raised."""

from __future__ import annotations

import email
from email.headerregistry import BaseHeader, HeaderRegistry
from email.message import EmailMessage
from email.policy import EmailPolicy
from typing import Any

from pbem.mail.mime import as_mail_error


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
    with as_mail_error("unparsable message"):
        msg = email.message_from_bytes(raw, policy=parse_once_policy())
        assert isinstance(msg, EmailMessage)
        return msg
