"""pbem.adapters.dns: the DKIM key lookup (requirement 5) against a tiny DNS responder on
loopback, answers built by hand; every failure is None (temperror, never a pass)."""

from __future__ import annotations

import struct
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pbem.adapters.dns import build_query, system_nameserver
from pbem.mail import dkim
from tests.dkim_signer import key_record, make_key, sign
from tests.dns_responder import Handler, Responder, answer, txt_rdata


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
