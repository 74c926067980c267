"""DKIM key lookup: one DNS TXT query over UDP (TCP if truncated), stdlib ``socket`` only.

The fixed stack has no DNS library. This asks the system's recursive resolver (the first
``nameserver`` of /etc/resolv.conf) for ``<selector>._domainkey.<domain>`` and returns the TXT
record's text, its strings joined (keys of 2048 bits do not fit one 255-byte string).

Every failure (timeout, refused, NXDOMAIN, SERVFAIL, malformed or mismatched answer) returns
None, which :mod:`pbem.mail.dkim` treats as "no key": a temporary DNS error is never a pass.
DNSSEC is not validated: we trust the configured resolver, as any MTA's DKIM check does.
"""

from __future__ import annotations

import logging
import re
import secrets
import socket
import struct
import time
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

TXT = 16
_LABEL = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?")
_MAX_ANSWER = 65535


def system_nameserver(resolv_conf: Path = Path("/etc/resolv.conf")) -> str:
    """The first ``nameserver`` of resolv.conf; 127.0.0.1 if there is none or it is unreadable."""
    try:
        for line in resolv_conf.read_text().splitlines():
            words = line.split()
            if len(words) >= 2 and words[0] == "nameserver":
                return words[1].partition("%")[0]  # drop an IPv6 zone index
    except OSError:
        pass
    return "127.0.0.1"


def build_query(name: str, qid: int) -> bytes:
    """A recursive query for the TXT records of ``name``; ValueError if it is not a host name."""
    labels = name.rstrip(".").split(".")
    if len(name) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        raise ValueError(f"not a DNS name: {name[:80]!r}")
    qname = b"".join(bytes([len(x)]) + x.encode("ascii") for x in labels) + b"\x00"
    # header: id, flags = RD, 1 question, 0 answers / authority / additional
    return struct.pack("!HHHHHH", qid, 0x0100, 1, 0, 0, 0) + qname + struct.pack("!HH", TXT, 1)


class _Stray(ValueError):
    """A datagram that is not the answer to our query (another id or question): skipped."""


def _skip_name(data: bytes, pos: int) -> int:
    """The position after a (possibly compressed) name; a pointer ends it."""
    while True:
        length = data[pos]
        if length & 0xC0 == 0xC0:
            return pos + 2
        if length & 0xC0:
            raise ValueError("bad label")
        pos += 1 + length
        if length == 0:
            return pos


def parse_response(data: bytes, query: bytes) -> tuple[bool, list[str]]:
    """``(truncated, TXT records)`` of an answer to ``query``; ValueError if it is not one.

    NXDOMAIN and "no data" give no records; any other error code raises.
    """
    try:
        qid, flags, qdcount, ancount = struct.unpack("!HHHH", data[:8])
        question = query[12:]
        if qid != struct.unpack("!H", query[:2])[0] or not flags & 0x8000 or qdcount != 1:
            raise _Stray("not an answer to our query")
        # the question is echoed uncompressed; compare it whole (case-insensitive, RFC 4343)
        if data[12 : 12 + len(question)].lower() != question.lower():
            raise _Stray("answer to another question")
        if flags & 0x0200:
            return True, []
        rcode = flags & 0x000F
        if rcode == 3:
            return False, []  # NXDOMAIN: no key
        if rcode != 0:
            raise ValueError(f"rcode {rcode}")
        pos, records = 12 + len(question), []
        for _ in range(ancount):
            pos = _skip_name(data, pos)
            rtype, rclass, _ttl, rdlength = struct.unpack("!HHIH", data[pos : pos + 10])
            pos += 10
            rdata = data[pos : pos + rdlength]
            if len(rdata) != rdlength:
                raise ValueError("short record")
            pos += rdlength
            if rtype != TXT or rclass != 1:
                continue  # e.g. the CNAME the resolver followed
            strings, i = [], 0
            while i < len(rdata):
                strings.append(rdata[i + 1 : i + 1 + rdata[i]])
                i += 1 + rdata[i]
            if i != len(rdata):
                raise ValueError("bad TXT record")
            records.append(b"".join(strings).decode("ascii", "replace"))
        return False, records
    except (IndexError, struct.error) as exc:
        raise ValueError("malformed answer") from exc


@dataclass
class UdpResolver:
    """The production key lookup for :mod:`pbem.mail.dkim`: ``resolver(selector, domain)``."""

    nameserver: str | None = None
    """An IP address; None: the first of /etc/resolv.conf, read at each query."""
    port: int = 53
    timeout: float = 3.0

    def __call__(self, selector: str, domain: str) -> str | None:
        try:
            records = self.txt(f"{selector}._domainkey.{domain}")
        except (OSError, ValueError) as exc:
            log.info("DKIM key %s._domainkey.%s: %s", selector[:40], domain[:80], exc)
            return None
        # a DKIM key record has a p= tag; with several records the outcome is undefined
        # (RFC 6376 §3.6.2.2): take the first key-like one
        return next((r for r in records if "p=" in r), None)

    def txt(self, name: str) -> list[str]:
        """The TXT records of ``name``; raises OSError (network, timeout) or ValueError."""
        server = self.nameserver or system_nameserver()
        query = build_query(name, secrets.randbits(16))
        family = socket.AF_INET6 if ":" in server else socket.AF_INET
        with socket.socket(family, socket.SOCK_DGRAM) as sock:
            sock.connect((server, self.port))  # connected: datagrams from others are dropped
            sock.send(query)
            deadline = time.monotonic() + self.timeout
            answer = None
            while answer is None:
                # one deadline for the whole wait: stray datagrams cannot extend it
                sock.settimeout(max(deadline - time.monotonic(), 0.001))
                try:
                    answer = parse_response(sock.recv(_MAX_ANSWER), query)
                except _Stray:
                    continue
        truncated, records = answer
        if not truncated:
            return records
        with socket.create_connection((server, self.port), timeout=self.timeout) as conn:
            conn.sendall(struct.pack("!H", len(query)) + query)
            (length,) = struct.unpack("!H", _recv_exactly(conn, 2))
            truncated, records = parse_response(_recv_exactly(conn, length), query)
        if truncated:
            raise ValueError("truncated over TCP")
        return records


def _recv_exactly(conn: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise ValueError("connection closed mid-answer")
        data += chunk
    return data
