"""Whether a DKIM signature's domain stands for the From domain (relaxed alignment).

Apart from :mod:`pbem.mail.dkim` because the daemon's duplicate detection needs only this, not
dkimpy and dnspython, which it imports on a DKIM check alone (start-up cost).
"""

from __future__ import annotations


def aligned(signing_domain: str, from_domain: str) -> bool:
    """d= is the From domain or one of its parents (relaxed alignment, RFC 7489 §3.1.1).

    Without a public suffix list, a parent must have two labels at least; sibling subdomains
    (d=mail.example.org for From example.org) are not accepted. A parent is safe to trust: a
    signature with d=X needs a key published under X's own DNS.
    """
    d, f = signing_domain.lower().rstrip("."), from_domain.lower().rstrip(".")
    return bool(d) and (d == f or (f.endswith("." + d) and "." in d))
