"""A hand-built DNS responder on loopback (UDP, optionally TCP), for the DKIM key lookup tests
(tests/daemon/test_dns.py) and the real-daemon forgery tests (tests/daemon/test_forgery.py)."""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Callable, Mapping

from pbem.adapters.dns import UdpResolver

Handler = Callable[[bytes], list[bytes]]
"""A query -> the datagrams to send back (none: stay silent)."""


def qname(query: bytes) -> str:
    labels, pos = [], 12
    while query[pos]:
        labels.append(query[pos + 1 : pos + 1 + query[pos]].decode())
        pos += 1 + query[pos]
    return ".".join(labels)


def txt_rdata(*strings: bytes) -> bytes:
    return b"".join(bytes([len(s)]) + s for s in strings)


def answer(
    query: bytes,
    records: list[tuple[int, bytes]],
    *,
    rcode: int = 0,
    tc: bool = False,
    qid: int | None = None,
) -> bytes:
    """A response to ``query``: each record is (type, rdata), owner name a pointer to the
    question (0xC00C)."""
    flags = 0x8180 | rcode | (0x0200 if tc else 0)
    head = struct.pack(
        "!HHHHHH",
        struct.unpack("!H", query[:2])[0] if qid is None else qid,
        flags,
        1,
        len(records),
        0,
        0,
    )
    body = b"".join(
        struct.pack("!HHHIH", 0xC00C, rtype, 1, 300, len(rdata)) + rdata for rtype, rdata in records
    )
    return head + query[12:] + body


class Responder:
    """A UDP DNS server on a free loopback port, in a thread; ``tcp`` adds a TCP listener on
    the same port (for truncated answers)."""

    def __init__(self, handler: Handler, tcp: Handler | None = None) -> None:
        self.handler, self.tcp_handler = handler, tcp
        self.udp, self.tcp = self._bind(with_tcp=tcp is not None)
        self.port = self.udp.getsockname()[1]
        self.queries: list[str] = []
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._serve_udp, daemon=True)]
        if self.tcp is not None:
            self.threads.append(threading.Thread(target=self._serve_tcp, daemon=True))
        for t in self.threads:
            t.start()

    @staticmethod
    def _bind(with_tcp: bool) -> tuple[socket.socket, socket.socket | None]:
        """A free UDP port, and the same port in TCP when asked: the TCP port may be taken
        (another socket's ephemeral port), then both are closed and another port is tried."""
        for _attempt in range(20):
            udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            udp.bind(("127.0.0.1", 0))
            udp.settimeout(0.05)
            if not with_tcp:
                return udp, None
            try:
                tcp = socket.create_server(("127.0.0.1", udp.getsockname()[1]))
            except OSError:
                udp.close()
                continue
            tcp.settimeout(0.05)
            return udp, tcp
        raise OSError("no loopback port free in both UDP and TCP")

    def _serve_udp(self) -> None:
        while not self.stop.is_set():
            try:
                query, peer = self.udp.recvfrom(512)
            except TimeoutError:
                continue
            self.queries.append(qname(query))
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
                query = conn.recv(n)
                for reply in self.tcp_handler(query):
                    conn.sendall(struct.pack("!H", len(reply)) + reply)

    def resolver(self, timeout: float = 1.0) -> UdpResolver:
        return UdpResolver(nameserver="127.0.0.1", port=self.port, timeout=timeout)

    def close(self) -> None:
        self.stop.set()
        for t in self.threads:
            t.join()
        self.udp.close()
        if self.tcp is not None:
            self.tcp.close()


def txt_zone(records: Mapping[str, str]) -> Handler:
    """A handler answering TXT queries from ``{name: record}`` (split into 255-byte strings),
    NXDOMAIN for any other name."""
    zone = {k.lower().rstrip("."): v.encode() for k, v in records.items()}

    def handler(query: bytes) -> list[bytes]:
        record = zone.get(qname(query).lower())
        if record is None:
            return [answer(query, [], rcode=3)]
        pieces = [record[i : i + 255] for i in range(0, len(record), 255)]
        return [answer(query, [(16, txt_rdata(*pieces))])]

    return handler
