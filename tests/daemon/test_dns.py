"""pbem.adapters.dns: the DKIM key lookup (requirement 5) against a tiny DNS responder on
loopback, answers built by hand; every failure is None (temperror, never a pass)."""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pbem.adapters.dns import UdpResolver, build_query, system_nameserver
from pbem.mail import dkim
from tests.dkim_signer import key_record, make_key, sign

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
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.udp.settimeout(0.05)
        self.port = self.udp.getsockname()[1]
        self.queries: list[str] = []
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._serve_udp, daemon=True)]
        self.tcp: socket.socket | None = None
        if tcp is not None:
            self.tcp = socket.create_server(("127.0.0.1", self.port))
            self.tcp.settimeout(0.05)
            self.threads.append(threading.Thread(target=self._serve_tcp, daemon=True))
        for t in self.threads:
            t.start()

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


@pytest.fixture
def serve() -> Iterator[Callable[..., Responder]]:
    started: list[Responder] = []

    def start(handler: Handler, tcp: Handler | None = None) -> Responder:
        started.append(Responder(handler, tcp))
        return started[-1]

    yield start
    for r in started:
        r.close()


KEY = make_key(2048)
RECORD = key_record(KEY).encode()
KEY_RDATA = txt_rdata(RECORD[:255], RECORD[255:])


def test_multi_string_txt_is_joined_and_a_real_signature_verifies_through_it(
    serve: Callable[..., Responder],
) -> None:
    """A 2048-bit key does not fit one 255-byte string: the record comes in pieces."""
    assert len(RECORD) > 255
    pieces = [RECORD[i : i + 200] for i in range(0, len(RECORD), 200)]
    r = serve(lambda q: [answer(q, [(16, txt_rdata(*pieces))])])
    resolver = r.resolver()
    assert resolver("sel", "example.test") == RECORD.decode()
    assert r.queries == ["sel._domainkey.example.test"]
    raw = sign(
        b"From: a@example.test\r\nSubject: x\r\n\r\nVOTE Bob\r\n", KEY, domain="example.test"
    )
    assert dkim.aligned_pass(raw, "example.test", resolver, datetime.now(UTC))


def test_cname_then_txt_and_a_non_key_txt_skipped(serve: Callable[..., Responder]) -> None:
    cname = b"\x03key\x07example\x04test\x00"
    r = serve(lambda q: [answer(q, [(5, cname), (16, txt_rdata(b"spf1 -all")), (16, KEY_RDATA)])])
    assert r.resolver()("sel", "example.test") == RECORD.decode()


def test_stray_datagram_with_another_id_is_skipped(serve: Callable[..., Responder]) -> None:
    def handler(q: bytes) -> list[bytes]:
        qid = struct.unpack("!H", q[:2])[0]
        forged = answer(q, [(16, txt_rdata(b"v=DKIM1; p=forged"))], qid=qid ^ 1)
        return [forged, answer(q, [(16, KEY_RDATA)])]

    assert serve(handler).resolver()("sel", "example.test") == RECORD.decode()


@pytest.mark.parametrize("rcode", [2, 3, 5])  # SERVFAIL, NXDOMAIN, REFUSED
def test_dns_errors_are_none(serve: Callable[..., Responder], rcode: int) -> None:
    assert serve(lambda q: [answer(q, [], rcode=rcode)]).resolver()("sel", "example.test") is None


def test_no_answer_times_out_to_none(serve: Callable[..., Responder]) -> None:
    r = serve(lambda q: [])
    start = time.monotonic()
    assert r.resolver(timeout=0.3)("sel", "example.test") is None
    assert 0.25 <= time.monotonic() - start < 2
    assert r.queries == ["sel._domainkey.example.test"]


def test_malformed_answers_are_none(serve: Callable[..., Responder]) -> None:
    for bad in (
        lambda q: answer(q, [(16, KEY_RDATA)])[:-20],  # cut short
        lambda q: answer(q, [(16, b"\xff" + RECORD[:10])]),  # string longer than its record
        lambda q: q,  # the query echoed (QR bit clear): never an answer, so a timeout
    ):
        assert serve(lambda q, bad=bad: [bad(q)]).resolver(timeout=0.3)("s", "example.test") is None


def test_truncated_udp_answer_is_retried_over_tcp(serve: Callable[..., Responder]) -> None:
    r = serve(
        lambda q: [answer(q, [], tc=True)],
        tcp=lambda q: [answer(q, [(16, txt_rdata(RECORD[:255], RECORD[255:]))])],
    )
    assert r.resolver()("sel", "example.test") == RECORD.decode()


def test_names_that_are_not_host_names_are_never_sent(serve: Callable[..., Responder]) -> None:
    r = serve(lambda q: [answer(q, [(16, KEY_RDATA)])])
    for selector, domain in (("a b", "example.test"), ("s", "ex\x00ample.test"), ("s", "a" * 64)):
        assert r.resolver(timeout=0.2)(selector, domain) is None
    assert r.queries == []
    with pytest.raises(ValueError):
        build_query("x..example.test", 1)


def test_nameserver_from_resolv_conf(tmp_path: Path) -> None:
    conf = tmp_path / "resolv.conf"
    conf.write_text("# local\nsearch example.test\nnameserver fe80::1%eth0\nnameserver 10.0.0.1\n")
    assert system_nameserver(conf) == "fe80::1"
    conf.write_text("search example.test\n")
    assert system_nameserver(conf) == "127.0.0.1"
    assert system_nameserver(tmp_path / "missing") == "127.0.0.1"
