"""Addresses: which can be mailed (the check shared by setups and by replies), and how a
header's addresses are read, the same on every Python pbem runs on.

Pure. A player's address must have a local part and a domain (``alice@example.org``): an empty
address would be matched by every mail whose From is missing or unreadable, and a domain-less
one (``alice``, ``frank@``) is no destination at all, so nothing is ever sent to it either
(issue 10, items 12 and 20).
"""

from __future__ import annotations

import email.utils
import functools
import inspect
import re
from collections.abc import Callable, Iterable

__all__ = ["getaddresses", "is_mailable", "parseaddr"]

# local@domain: no space, no second @, no angle brackets or header punctuation; the domain is
# dot-separated labels (IDN domains pass: \w is Unicode), optionally a bracketed IP literal.
_MAILABLE = re.compile(
    r"[^\s@<>()\[\],;:\"\\]+@(?:[\w](?:[\w-]*[\w])?(?:\.[\w](?:[\w-]*[\w])?)*\.?|\[[0-9A-Fa-f:.]+\])"
)


@functools.lru_cache(maxsize=4096)  # a game's few addresses, asked for every mail they send
def is_mailable(address: str) -> bool:
    """True when ``address`` (bare, as ``parseaddr`` gives it) has a local part and a domain."""
    return (
        len(address) <= 254
        and address.isprintable()  # no controls, no lone surrogates
        and _MAILABLE.fullmatch(address) is not None
    )


def _lenient_keywords(function: Callable[..., object]) -> dict[str, bool]:
    """The keywords that ask ``function`` (``email.utils``'s) for the lenient reading: none
    where it has no choice."""
    return {"strict": False} if "strict" in inspect.signature(function).parameters else {}


_LENIENT = _lenient_keywords(email.utils.getaddresses)
"""Python's address parser became strict (CVE-2023-27043) in 3.13, 3.12.6 and 3.11.10, and
Debian 12 backported it into its own 3.11.2, the interpreter of docs/install-debian.md: a
From such as ``alice@example.test <mallory@evil.test>`` reads as nobody there, as alice in
Python 3.11.7. pbem asks for the lenient reading wherever the choice exists, so it reads mail
alike in the suite and in production. It trusts no From on its reading alone: with ``[auth]``
DKIM, a DMARC pass counts only for the domain pbem reads (F13, ``tests/daemon/test_forgery.py``),
and the lenient reading is what lets pbem tell alice that a mail claimed to be hers."""


def getaddresses(values: Iterable[str]) -> list[tuple[str, str]]:
    """``email.utils.getaddresses(values)``, read leniently on every Python (:data:`_LENIENT`)."""
    return email.utils.getaddresses(values, **_LENIENT)


def parseaddr(value: str) -> tuple[str, str]:
    """``email.utils.parseaddr(value)``, read leniently on every Python (:data:`_LENIENT`)."""
    return email.utils.parseaddr(value, **_LENIENT)
