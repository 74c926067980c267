"""Which addresses can be mailed: the check shared by setups and by replies.

Pure. A player's address must have a local part and a domain (``alice@example.org``): an empty
address would be matched by every mail whose From is missing or unreadable, and a domain-less
one (``alice``, ``frank@``) is no destination at all, so nothing is ever sent to it either
(issue 10, items 12 and 20).
"""

from __future__ import annotations

import functools
import re

__all__ = ["is_mailable"]

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
