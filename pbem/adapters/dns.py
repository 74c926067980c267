"""DKIM key lookup: one TXT query through dnspython's stub resolver.

dnspython does the DNS work: it asks every ``nameserver`` of /etc/resolv.conf in turn (its
``options`` too: ``timeout``, ``attempts``, ``rotate``), retries over TCP an answer truncated
over UDP, matches answers to queries (id and question), follows a CNAME the resolver returned.
We add EDNS0 (a 2048-bit key record is about 400 bytes, close to the 512 of plain DNS: with a
1232-byte payload, the size the DNS flag day of 2020 settled on, it comes back in one datagram)
and ``[auth] dns_server`` to ask one chosen resolver instead.

Every failure (timeout, SERVFAIL, REFUSED, malformed answer, no server answering) gives None
for a key, which :mod:`pbem.mail.dkim` treats as "no key": a temporary DNS error is never a
pass. NXDOMAIN and "no TXT record" are answers: no key. DNSSEC is not validated here: we trust
the configured resolver, as any MTA's DKIM check does.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

# dnspython is imported by the functions that ask the DNS, not with this module: the daemon
# makes its resolver at start, and most configs never ask for a key (start-up cost)
if TYPE_CHECKING:
    import dns.name
    import dns.resolver

log = logging.getLogger(__name__)

RESOLV_CONF = Path("/etc/resolv.conf")
EDNS_PAYLOAD = 1232
"""The UDP payload we announce (EDNS0): the DNS flag day 2020 size, no IP fragmentation."""
_LABEL = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?")


class DnsError(Exception):
    """No answer could be had: every server timed out, failed or answered garbage."""


def check_name(name: str) -> dns.name.Name:
    """``name`` as an absolute DNS name; ValueError unless it is a host name (letters, digits,
    ``-`` and ``_``): a selector or d= from a hostile signature is never sent as it is."""
    import dns.name

    labels = name.rstrip(".").split(".")
    if len(name) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        raise ValueError(f"not a DNS name: {name[:80]!r}")
    return dns.name.from_text(name.rstrip(".") + ".")


@dataclass
class DnsResolver:
    """The production key lookup for :mod:`pbem.mail.dkim`: ``resolver(selector, domain)``."""

    nameserver: str | None = None
    """An IP address (``[auth] dns_server``); None: every nameserver of ``resolv_conf``."""
    port: int = 53
    """The port of the servers asked."""
    timeout: float = 4.0
    """Seconds for one look-up, all servers and the TCP retry included."""
    resolv_conf: Path = RESOLV_CONF
    """Read at each look-up, as the old stub did: an edited resolv.conf needs no restart."""
    per_server: float = field(default=2.0, repr=False)
    """Seconds a silent server is waited for before the next one is asked."""

    def __call__(self, selector: str, domain: str) -> str | None:
        try:
            records = self.txt(f"{selector}._domainkey.{domain}")
        except (DnsError, ValueError) as exc:
            log.info("DKIM key %s._domainkey.%s: %s", selector[:40], domain[:80], exc)
            return None
        # a DKIM key record has a p= tag; with several records the outcome is undefined
        # (RFC 6376 §3.6.2.2): take the first key-like one
        return next((r for r in records if "p=" in r), None)

    def servers(self) -> list[str]:
        """The servers a look-up asks, in order (for ``pbem check-config``)."""
        return [str(ns) for ns in self._resolver().nameservers]

    def txt(self, name: str) -> list[str]:
        """The TXT records of ``name``, each one's strings joined (a 2048-bit key does not fit
        one 255-byte string); [] for NXDOMAIN or no TXT record. Raises ValueError for a name
        that is not a host name (never sent), DnsError when no server gave an answer."""
        import dns.exception
        import dns.rdatatype
        import dns.resolver

        qname = check_name(name)
        try:
            answer = self._resolver().resolve(
                qname, dns.rdatatype.TXT, raise_on_no_answer=False, search=False
            )
        except dns.resolver.NXDOMAIN:
            return []
        except (dns.exception.DNSException, OSError) as exc:
            raise DnsError(f"{type(exc).__name__}: {exc}") from exc
        if answer.rrset is None:
            return []
        return [
            b"".join(rdata.strings).decode("ascii", "replace")
            for rdata in answer.rrset
            if rdata.rdtype == dns.rdatatype.TXT
        ]

    def _resolver(self) -> dns.resolver.Resolver:
        import dns.resolver

        if self.nameserver is not None:
            resolver = dns.resolver.Resolver(configure=False)
            resolver.nameservers = [self.nameserver]
        else:
            try:
                resolver = dns.resolver.Resolver(filename=str(self.resolv_conf))
            except dns.resolver.NoResolverConfiguration as exc:
                raise DnsError(f"{self.resolv_conf}: no nameserver ({exc})") from exc
        resolver.port = self.port
        resolver.use_edns(0, 0, EDNS_PAYLOAD)
        resolver.lifetime = self.timeout
        resolver.timeout = min(self.per_server, self.timeout)
        resolver.cache = None  # a revoked key is seen at once
        return resolver
