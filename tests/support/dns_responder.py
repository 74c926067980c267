"""A DNS responder on loopback (UDP, optionally TCP), answers built with dnspython, for the DKIM
key lookup tests (tests/adapters/test_dns.py) and the real-daemon forgery tests
(tests/daemon/test_forgery.py). A test double: a handler gets each query's wire bytes and
returns the datagrams to send back, so a test can also send malformed or stray ones."""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Callable, Mapping

import dns.flags
import dns.message
import dns.name
import dns.rcode
import dns.rdataclass
import dns.rdatatype
import dns.rdtypes.ANY.CNAME
import dns.rdtypes.ANY.TXT
import dns.rrset

from pbem.adapters.dns import DnsResolver

Handler = Callable[[bytes], list[bytes]]
"""A query -> the datagrams to send back (none: stay silent)."""


def qname(query: bytes) -> str:
    """The name a query asks for, without the final dot."""
    return str(dns.message.from_wire(query).question[0].name).rstrip(".")


def txt(name: str, *strings: bytes) -> dns.rrset.RRset:
    """A TXT record of ``name`` made of ``strings`` (each at most 255 bytes)."""
    rdata = dns.rdtypes.ANY.TXT.TXT(dns.rdataclass.IN, dns.rdatatype.TXT, list(strings))
    return dns.rrset.from_rdata(name, 300, rdata)


def cname(name: str, target: str) -> dns.rrset.RRset:
    rdata = dns.rdtypes.ANY.CNAME.CNAME(
        dns.rdataclass.IN, dns.rdatatype.CNAME, dns.name.from_text(target)
    )
    return dns.rrset.from_rdata(name, 300, rdata)


def answer(
    query: bytes,
    records: list[dns.rrset.RRset],
    *,
    rcode: int = 0,
    tc: bool = False,
    qid: int | None = None,
) -> bytes:
    """The response to ``query`` (its EDNS echoed) with ``records`` in the answer section."""
    response = dns.message.make_response(dns.message.from_wire(query))
    response.set_rcode(dns.rcode.Rcode(rcode))
    if tc:
        response.flags |= dns.flags.TC
    response.answer.extend(records)
    wire = response.to_wire()
    return wire if qid is None else struct.pack("!H", qid) + wire[2:]


def key_txt(query: bytes, record: bytes) -> dns.rrset.RRset:
    """``record`` as the TXT answer to ``query``, in 255-byte strings."""
    pieces = [record[i : i + 255] for i in range(0, len(record), 255)]
    return txt(qname(query) + ".", *pieces)


class Responder:
    """A UDP DNS server on a free loopback port, in a thread; ``tcp`` adds a TCP listener on
    the same port (for truncated answers). ``payloads`` records the EDNS payload of each UDP
    query (0: no EDNS)."""

    def __init__(
        self, handler: Handler, tcp: Handler | None = None, host: str = "127.0.0.1", port: int = 0
    ) -> None:
        self.handler, self.tcp_handler = handler, tcp
        self.udp, self.tcp = self._bind(host, port, with_tcp=tcp is not None)
        self.port = self.udp.getsockname()[1]
        self.queries: list[str] = []
        self.payloads: list[int] = []
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._serve_udp, daemon=True)]
        if self.tcp is not None:
            self.threads.append(threading.Thread(target=self._serve_tcp, daemon=True))
        for t in self.threads:
            t.start()

    @staticmethod
    def _bind(host: str, port: int, with_tcp: bool) -> tuple[socket.socket, socket.socket | None]:
        """A free UDP port, and the same port in TCP when asked: the TCP port may be taken
        (another socket's ephemeral port), then both are closed and another port is tried."""
        for _attempt in range(20):
            udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            udp.bind((host, port))
            udp.settimeout(0.05)
            if not with_tcp:
                return udp, None
            try:
                tcp = socket.create_server((host, udp.getsockname()[1]))
            except OSError:
                udp.close()
                continue
            tcp.settimeout(0.05)
            return udp, tcp
        raise OSError("no loopback port free in both UDP and TCP")

    def _serve_udp(self) -> None:
        while not self.stop.is_set():
            try:
                query, peer = self.udp.recvfrom(65535)
            except TimeoutError:
                continue
            parsed = dns.message.from_wire(query)
            self.queries.append(qname(query))
            self.payloads.append(parsed.payload if parsed.edns >= 0 else 0)
            for reply in self.handler(query):
                self.udp.sendto(reply, peer)

    def _serve_tcp(self) -> None:
        assert self.tcp is not None and self.tcp_handler is not None
        while not self.stop.is_set():
            try:
                conn, _ = self.tcp.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(2)
                (n,) = struct.unpack("!H", conn.recv(2))
                query = b""
                while len(query) < n:
                    query += conn.recv(n - len(query))
                for reply in self.tcp_handler(query):
                    conn.sendall(struct.pack("!H", len(reply)) + reply)

    def resolver(self, timeout: float = 1.0) -> DnsResolver:
        return DnsResolver(nameserver="127.0.0.1", port=self.port, timeout=timeout)

    def close(self) -> None:
        self.stop.set()
        for t in self.threads:
            t.join()
        self.udp.close()
        if self.tcp is not None:
            self.tcp.close()


def txt_zone(records: Mapping[str, str]) -> Handler:
    """A handler answering TXT queries from ``{name: record}`` (split into 255-byte strings),
    NXDOMAIN for any other name. An answer bigger than the query allows (512 bytes without
    EDNS, else its payload) is sent truncated (TC, no records), as a real server does."""
    zone = {k.lower().rstrip("."): v.encode() for k, v in records.items()}

    def handler(query: bytes) -> list[bytes]:
        record = zone.get(qname(query).lower())
        if record is None:
            return [answer(query, [], rcode=3)]
        full = answer(query, [key_txt(query, record)])
        parsed = dns.message.from_wire(query)
        limit = max(parsed.payload, 512) if parsed.edns >= 0 else 512
        return [full if len(full) <= limit else answer(query, [], tc=True)]

    return handler
