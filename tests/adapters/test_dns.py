"""pbem.adapters.dns: the DKIM key lookup (requirement 5) through dnspython, against DNS
responders on loopback; every failure is None (temperror, never a pass)."""

from __future__ import annotations

import struct
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pbem.adapters.dns import EDNS_PAYLOAD, DnsResolver, check_name
from pbem.mail import dkim
from tests.support.dkim_signer import key_record, make_key, sign
from tests.support.dns_responder import Handler, Responder, answer, cname, key_txt, txt, txt_zone


@pytest.fixture
def serve() -> Iterator[Callable[..., Responder]]:
    started: list[Responder] = []

    def start(
        handler: Handler, tcp: Handler | None = None, host: str = "127.0.0.1", port: int = 0
    ) -> Responder:
        started.append(Responder(handler, tcp, host, port))
        return started[-1]

    yield start
    for r in started:
        r.close()


KEY = make_key(2048)
RECORD = key_record(KEY).encode()
NAME = "sel._domainkey.example.test."


def test_multi_string_txt_is_joined_and_a_real_signature_verifies_through_it(
    serve: Callable[..., Responder],
) -> None:
    """A 2048-bit key does not fit one 255-byte string: the record comes in pieces."""
    assert len(RECORD) > 255
    pieces = [RECORD[i : i + 200] for i in range(0, len(RECORD), 200)]
    r = serve(lambda q: [answer(q, [txt(NAME, *pieces)])])
    resolver = r.resolver()
    assert resolver("sel", "example.test") == RECORD.decode()
    assert r.queries == ["sel._domainkey.example.test"]
    raw = sign(
        b"From: a@example.test\r\nSubject: x\r\n\r\nVOTE Bob\r\n", KEY, domain="example.test"
    )
    assert dkim.aligned_pass(raw, "example.test", resolver, datetime.now(UTC))


def test_cname_followed_and_a_non_key_txt_skipped(serve: Callable[..., Responder]) -> None:
    target = "key.example.test."
    chain = [
        cname(NAME, target),
        txt(target, b"spf1 -all"),
        txt(target, RECORD[:255], RECORD[255:]),
    ]
    r = serve(lambda q: [answer(q, chain)])
    assert r.resolver()("sel", "example.test") == RECORD.decode()


def test_stray_datagram_with_another_id_is_skipped(serve: Callable[..., Responder]) -> None:
    def handler(q: bytes) -> list[bytes]:
        qid = struct.unpack("!H", q[:2])[0]
        forged = answer(q, [txt(NAME, b"v=DKIM1; p=forged")], qid=qid ^ 1)
        return [forged, answer(q, [key_txt(q, RECORD)])]

    assert serve(handler).resolver()("sel", "example.test") == RECORD.decode()


@pytest.mark.parametrize("rcode", [2, 3, 5])  # SERVFAIL, NXDOMAIN, REFUSED
def test_dns_errors_are_none(serve: Callable[..., Responder], rcode: int) -> None:
    assert serve(lambda q: [answer(q, [], rcode=rcode)]).resolver()("sel", "example.test") is None


def test_no_answer_times_out_to_none(serve: Callable[..., Responder]) -> None:
    r = serve(lambda q: [])
    start = time.monotonic()
    assert r.resolver(timeout=0.3)("sel", "example.test") is None
    assert 0.25 <= time.monotonic() - start < 2
    assert r.queries and set(r.queries) == {"sel._domainkey.example.test"}


def test_malformed_answers_are_none(serve: Callable[..., Responder]) -> None:
    def long_string(q: bytes) -> bytes:  # a TXT string longer than its record
        good = answer(q, [txt(NAME, b"v=DKIM1; p=AAAA")])
        return good.replace(bytes([len(b"v=DKIM1; p=AAAA")]) + b"v=DKIM1", b"\xff" + b"v=DKIM1")

    for bad in (
        lambda q: answer(q, [key_txt(q, RECORD)])[:-20],  # cut short
        long_string,
        lambda q: q,  # the query echoed (QR bit clear): never an answer, so a timeout
    ):
        assert serve(lambda q, bad=bad: [bad(q)]).resolver(timeout=0.3)("s", "example.test") is None


def test_truncated_udp_answer_is_retried_over_tcp(serve: Callable[..., Responder]) -> None:
    r = serve(
        lambda q: [answer(q, [], tc=True)],
        tcp=lambda q: [answer(q, [key_txt(q, RECORD)])],
    )
    assert r.resolver()("sel", "example.test") == RECORD.decode()


def test_edns0_announced_so_a_big_key_record_comes_in_one_datagram(
    serve: Callable[..., Responder],
) -> None:
    """A record over 512 bytes (a 4096-bit key, here a 2048-bit one with a note): without EDNS0
    a server truncates it and the answer needs a TCP retry (no TCP here: it would fail)."""
    big = key_record(KEY, extra=" n=" + "x" * 400 + ";")
    r = serve(txt_zone({"sel._domainkey.example.test": big}))
    assert r.resolver()("sel", "example.test") == big
    assert r.payloads == [EDNS_PAYLOAD]


def test_every_resolv_conf_nameserver_is_asked_in_turn(
    serve: Callable[..., Responder], tmp_path: Path
) -> None:
    """The first nameserver of resolv.conf is silent (or refuses): the next one answers."""
    good = serve(txt_zone({"sel._domainkey.example.test": RECORD.decode()}))
    silent = serve(lambda q: [], host="127.0.0.2", port=good.port)
    refusing = serve(lambda q: [answer(q, [], rcode=5)], host="127.0.0.3", port=good.port)
    conf = tmp_path / "resolv.conf"
    conf.write_text(
        "# local\nsearch example.test\nnameserver 127.0.0.2\nnameserver 127.0.0.3\n"
        "nameserver 127.0.0.1\n"
    )
    resolver = DnsResolver(port=good.port, resolv_conf=conf, timeout=3, per_server=0.3)
    assert resolver.servers() == ["127.0.0.2", "127.0.0.3", "127.0.0.1"]
    assert resolver("sel", "example.test") == RECORD.decode()
    assert silent.queries and refusing.queries and good.queries


def test_no_nameserver_configured_is_none(tmp_path: Path) -> None:
    conf = tmp_path / "resolv.conf"
    conf.write_text("search example.test\n")
    assert DnsResolver(resolv_conf=conf)("sel", "example.test") is None
    assert DnsResolver(resolv_conf=tmp_path / "missing")("sel", "example.test") is None


def test_names_that_are_not_host_names_are_never_sent(serve: Callable[..., Responder]) -> None:
    r = serve(lambda q: [answer(q, [key_txt(q, RECORD)])])
    for selector, domain in (("a b", "example.test"), ("s", "ex\x00ample.test"), ("s", "a" * 64)):
        assert r.resolver(timeout=0.2)(selector, domain) is None
    assert r.queries == []
    with pytest.raises(ValueError):
        check_name("x..example.test")
