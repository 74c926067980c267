"""pbem.mail.dkim: DKIM checked over ALL signatures, ``l=`` refused (RELIABILITY requirement 5,
the DKIM forgeries of F13, §0 finding 4), and the ``dkim_verify`` auth method end to end.

The verification is dkimpy's (Ed25519 through PyNaCl); the signatures here come from an
independent test signer (tests/support/dkim_signer.py), from dkimpy's own signer, and from the published
RFC 8463 vector, so a bug shared by signer and verifier is less likely to hide."""

from __future__ import annotations

import base64
import hashlib
import re
import time
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import dkim as dkimpy
import nacl.encoding
import nacl.exceptions
import nacl.signing
import pytest
from dkim.crypto import RSASSA_PKCS1_v1_5_verify
from hypothesis import given
from hypothesis import strategies as st

from pbem.daemon.auth import check_sender
from pbem.daemon.config import AuthConfig, load
from pbem.mail import dkim
from tests.support.dkim_signer import (
    DIGEST_INFO,
    RsaKey,
    key_record,
    make_key,
    pkcs1_sign,
    rsa_sign_block,
    sign,
)

KEY = make_key(2048)  # module scope: generated once (pure-Python Miller-Rabin, cached)
OTHER = make_key(1024, seed=2)
SHORT = make_key(512)
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
T = int(NOW.timestamp())

DNS = {
    ("sel", "example.test"): key_record(KEY),
    ("bare", "example.test"): key_record(KEY, bare=True),
    ("other", "example.test"): key_record(OTHER),
    ("short", "example.test"): key_record(SHORT),
    ("revoked", "example.test"): "v=DKIM1; k=rsa; p=",
    ("huge_e", "example.test"): key_record(RsaKey(KEY.n, 2**100 + 1, 1)),
    ("huge_n", "example.test"): key_record(RsaKey(2**9000 + 1, 65537, 1)),
    ("sha1_only", "example.test"): key_record(KEY, extra=" h=sha1;"),
    ("not_email", "example.test"): key_record(KEY, extra=" s=other;"),
    ("ed", "example.test"): "v=DKIM1; k=ed25519; p=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=",
    ("list", "lists.example.net"): key_record(OTHER),
    ("sel", "evil.example"): key_record(OTHER),
}


def resolver(selector: str, domain: str) -> str | None:
    return DNS.get((selector, domain))


MAIL = (
    b"From: Alice <alice@example.test>\r\n"
    b"To: moderator@pbem.example\r\n"
    b"Subject: [village1] night\r\n"
    b"Date: Sun, 29 Nov 2026 11:00:00 +0000\r\n"
    b"Message-ID: <1@example.test>\r\n"
    b"\r\n"
    b"VOTE  Bob \r\n"
    b"\r\n"
    b"\r\n"
)


def results(raw: bytes) -> list[tuple[str, bool, str]]:
    return [(r.domain, r.ok, r.reason) for r in dkim.verify(raw, resolver, NOW)]


def passes(raw: bytes, domain: str = "example.test") -> bool:
    return dkim.aligned_pass(raw, domain, resolver, NOW)


# ---- a known vector ----------------------------------------------------------------------

RFC8463 = (
    b"DKIM-Signature: v=1; a=ed25519-sha256; c=relaxed/relaxed;\r\n"
    b" d=football.example.com; i=@football.example.com;\r\n"
    b" q=dns/txt; s=brisbane; t=1528637909; h=from : to :\r\n"
    b" subject : date : message-id : from : subject : date;\r\n"
    b" bh=2jUSOH9NhtVGCQWNr9BrIAPreKQjO6Sn7XIkfJVOzv8=;\r\n"
    b" b=/gCrinpcQOoIfuHNQIbq4pgh9kyIK3AQUdt9OdqQehSwhEIug4D11Bus\r\n"
    b" Fa3bT3FY5OsU7ZbnKELq+eXdp1Q1Dw==\r\n"
    b"DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed;\r\n"
    b" d=football.example.com; i=@football.example.com;\r\n"
    b" q=dns/txt; s=test; t=1528637909; h=from : to : subject :\r\n"
    b" date : message-id : from : subject : date;\r\n"
    b" bh=2jUSOH9NhtVGCQWNr9BrIAPreKQjO6Sn7XIkfJVOzv8=;\r\n"
    b" b=F45dVWDfMbQDGHJFlXUNB2HKfbCeLRyhDXgFpEL8GwpsRe0IeIixNTe3\r\n"
    b" DhCVlUrSjV4BwcVcOF6+FF3Zo9Rpo1tFOeS9mPYQTnGdaSGsgeefOsk2Jz\r\n"
    b" dA+L10TeYt9BgDfQNZtKdN1WO//KgIqXP7OdEFE4LjFYNcUxZQ4FADY+8=\r\n"
    b"From: Joe SixPack <joe@football.example.com>\r\n"
    b"To: Suzie Q <suzie@shopping.example.net>\r\n"
    b"Subject: Is dinner ready?\r\n"
    b"Date: Fri, 11 Jul 2003 21:00:37 -0700 (PDT)\r\n"
    b"Message-ID: <20030712040037.46341.5F8J@football.example.com>\r\n"
    b"\r\n"
    b"Hi.\r\n"
    b"\r\n"
    b"We lost the game.  Are you hungry yet?\r\n"
    b"\r\n"
    b"Joe.\r\n"
)
RFC8463_DNS = {
    ("test", "football.example.com"): "v=DKIM1; k=rsa; p="
    "MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDkHlOQoBTzWRiGs5V6NpP3idY6Wk08a5qhdR6wy5bdOKb2jLQiY/"
    "J16JYi0Qvx/byYzCNb3W91y3FutACDfzwQ/BC/e/8uBsCR+yz1Lxj+PL6lHvqMKrM3rG4hstT5QjvHO9PzoxZyVYLzBf"
    "O2EeC3Ip3G+2kryOTIKT+l/K4w3QIDAQAB",
    ("brisbane", "football.example.com"): "v=DKIM1; k=ed25519; "
    "p=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=",
}


def test_rfc8463_appendix_a_both_signatures_verify() -> None:
    """The published vector (RFC 8463 Appendix A, errata-corrected RSA b=), signed by another
    implementation: the Ed25519 signature and the RSA one both pass, each alone is enough for
    alignment, and a tampered body fails both."""
    got = dkim.verify(RFC8463, lambda s, d: RFC8463_DNS.get((s, d)), 1528637909)
    assert [(r.selector, r.ok, r.reason) for r in got] == [
        ("brisbane", True, "pass"),
        ("test", True, "pass"),
    ]
    lookup = RFC8463_DNS.get
    assert dkim.aligned_pass(RFC8463, "football.example.com", lambda s, d: lookup((s, d)), 0)
    for only in ("brisbane", "test"):
        one = {k: v for k, v in RFC8463_DNS.items() if k[0] == only}
        assert dkim.aligned_pass(
            RFC8463, "football.example.com", lambda s, d, one=one: one.get((s, d)), 0
        )
    tampered = RFC8463.replace(b"hungry", b"angry")
    assert not dkim.aligned_pass(tampered, "football.example.com", lambda s, d: lookup((s, d)), 0)
    assert [r.reason for r in dkim.verify(tampered, lambda s, d: lookup((s, d)), 0)] == [
        "body_hash_mismatch",
        "body_hash_mismatch",
    ]


def test_rfc8463_ed25519_signature_checked_against_its_key() -> None:
    """An Ed25519 signature is checked with the key, not just accepted: another Ed25519 key, an
    RSA key record for it, or a flipped bit in b= fail."""
    other = "v=DKIM1; k=ed25519; p=" + base64.b64encode(RFC8032[1][0]).decode()
    cases = {
        other: "bad_signature",
        RFC8463_DNS[("test", "football.example.com")]: "bad_key",  # k=rsa for an Ed25519 sig
    }
    for record, reason in cases.items():
        got = dkim.verify(RFC8463, lambda s, d, r=record: r if s == "brisbane" else None, 0)
        assert (got[0].selector, got[0].ok, got[0].reason) == ("brisbane", False, reason)
    b_tag = (
        b"/gCrinpcQOoIfuHNQIbq4pgh9kyIK3AQUdt9OdqQehSwhEIug4D11Bus\r\n"
        b" Fa3bT3FY5OsU7ZbnKELq+eXdp1Q1Dw=="
    )
    assert b_tag in RFC8463
    raw_b = base64.b64decode(re.sub(rb"\s+", b"", b_tag))
    flipped = base64.b64encode(bytes([raw_b[0] ^ 1]) + raw_b[1:])
    mail = RFC8463.replace(b_tag, flipped)
    got = dkim.verify(mail, lambda s, d: RFC8463_DNS.get((s, d)), 0)
    assert (got[0].ok, got[0].reason) == (False, "bad_signature")


# RFC 8032 §7.1 tests 1-3: (public key, message, signature)
RFC8032 = [
    (
        bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"),
        b"",
        bytes.fromhex(
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
            "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        ),
    ),
    (
        bytes.fromhex("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c"),
        bytes.fromhex("72"),
        bytes.fromhex(
            "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
            "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
        ),
    ),
    (
        bytes.fromhex("fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025"),
        bytes.fromhex("af82"),
        bytes.fromhex(
            "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
            "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"
        ),
    ),
]


def _backend_verifies(public: bytes, message: bytes, signature: bytes) -> bool:
    """What dkimpy does with an Ed25519 key and signature: PyNaCl's (libsodium's) verify."""
    try:
        nacl.signing.VerifyKey(public).verify(message, signature)
    except (nacl.exceptions.BadSignatureError, nacl.exceptions.ValueError, ValueError):
        return False
    return True


@pytest.mark.parametrize("public, message, signature", RFC8032)
def test_ed25519_backend_rfc8032_vectors(public: bytes, message: bytes, signature: bytes) -> None:
    assert _backend_verifies(public, message, signature)
    assert not _backend_verifies(public, message + b"x", signature)
    assert not _backend_verifies(public, message, signature[:63] + bytes([signature[63] ^ 0x10]))


def test_ed25519_backend_refuses_malleable_and_malformed_signatures() -> None:
    """RFC 8032 §5.1.7: S must be below the group order L (S + L would verify the same equation:
    a second signature for free), points must decode; wrong lengths fail."""
    public, message, signature = RFC8032[0]
    order = 2**252 + 27742317777372353535851937790883648493
    s = int.from_bytes(signature[32:], "little")
    malleable = signature[:32] + (s + order).to_bytes(32, "little")
    assert not _backend_verifies(public, message, malleable)
    assert not _backend_verifies(public[:31], message, signature)
    assert not _backend_verifies(public, message, signature[:63])
    off_curve = (2).to_bytes(32, "little")  # y = 2 has no x on the curve
    assert not _backend_verifies(off_curve, message, signature)
    non_canonical = (2**255 - 19 + 1).to_bytes(32, "little")  # y >= p
    assert not _backend_verifies(non_canonical, message, signature)


ED_SEED = bytes(range(32))
ED_KEY = nacl.signing.SigningKey(ED_SEED)
ED_RECORD = "v=DKIM1; k=ed25519; p=" + base64.b64encode(bytes(ED_KEY.verify_key)).decode()


def _ed_sign(raw: bytes, *, length: bool = False) -> bytes:
    """``raw`` signed by dkimpy's own signer with an Ed25519 key (RFC 8463)."""
    header = dkimpy.sign(
        raw,
        b"ed",
        b"ed.example.test",
        base64.b64encode(ED_SEED),
        signature_algorithm=b"ed25519-sha256",
        include_headers=[b"from", b"to", b"subject", b"date"],
        canonicalize=(b"relaxed", b"relaxed"),
        length=length,
    )
    return bytes(header) + raw


def test_ed25519_signature_from_dkimpy_signer_verifies_and_its_tampering_fails() -> None:
    """An Ed25519 signature (the backend PyNaCl) passes with its key, fails with another key, on
    a changed body or a changed signed header, and with l= it is refused like an RSA one."""
    raw = MAIL.replace(b"example.test", b"ed.example.test")
    signed = _ed_sign(raw)
    lookup = {("ed", "ed.example.test"): ED_RECORD}
    assert [
        (r.ok, r.reason) for r in dkim.verify(signed, lambda s, d: lookup.get((s, d)), NOW)
    ] == [(True, "pass")]
    assert dkim.aligned_pass(signed, "ed.example.test", lambda s, d: lookup.get((s, d)), NOW)
    other = "v=DKIM1; k=ed25519; p=" + base64.b64encode(RFC8032[1][0]).decode()
    cases = {
        signed: (ED_RECORD, "pass"),
        signed.replace(b"VOTE  Bob", b"VOTE  Eve"): (ED_RECORD, "body_hash_mismatch"),
        signed.replace(b"[village1]", b"[village2]"): (ED_RECORD, "bad_signature"),
        _ed_sign(raw, length=True): (ED_RECORD, "l_tag"),
    }
    cases_other = {signed: (other, "bad_signature")}
    for mail, (record, reason) in [*cases.items(), *cases_other.items()]:
        got = dkim.verify(mail, lambda s, d, r=record: r, NOW)
        assert [r.reason for r in got] == [reason]


# ---- one signature ------------------------------------------------------------------------


@pytest.mark.parametrize("canon", ["relaxed/relaxed", "simple/simple", "relaxed/simple", "simple"])
def test_good_signature_passes_requirement_5(canon: str) -> None:
    signed = sign(MAIL, KEY, domain="example.test", canon=canon)
    assert results(signed) == [("example.test", True, "pass")]
    assert passes(signed)


def test_b_tag_in_the_middle_and_bare_rsapublickey_record() -> None:
    signed = sign(MAIL, KEY, domain="example.test", selector="bare", b_in_middle=True)
    assert results(signed) == [("example.test", True, "pass")]


def test_body_modified_fails_requirement_5() -> None:
    for canon in ("relaxed/relaxed", "simple/simple"):
        signed = sign(MAIL, KEY, domain="example.test", canon=canon)
        forged = signed.replace(b"VOTE  Bob", b"VOTE  Eve")
        assert results(forged) == [("example.test", False, "body_hash_mismatch")]
        assert not passes(forged)


def test_relaxed_tolerates_whitespace_simple_does_not() -> None:
    """What the two canonicalizations are for: relaxed survives re-wrapping and trailing
    blanks added by relays, simple survives nothing."""
    relax = sign(MAIL, KEY, domain="example.test", canon="relaxed/relaxed")
    simple = sign(MAIL, KEY, domain="example.test", canon="simple/simple")
    for signed, ok in ((relax, True), (simple, False)):
        moved = signed.replace(b"Subject: [village1]", b"subject:   [village1]")
        moved = moved.replace(b"VOTE  Bob \r\n", b"VOTE \t Bob\t\r\n") + b"\r\n\r\n"
        assert passes(moved) is ok
    # trailing empty lines never matter, LF-only storage (a Maildir file) neither
    assert passes(simple + b"\r\n\r\n")
    assert passes(simple.replace(b"\r\n", b"\n"))


def test_signed_header_modified_fails_unsigned_header_added_passes_requirement_5() -> None:
    signed = sign(MAIL, KEY, domain="example.test")
    forged = signed.replace(b"Subject: [village1] night", b"Subject: [village2] night")
    assert results(forged) == [("example.test", False, "bad_signature")]
    assert passes(signed.replace(b"Message-ID:", b"Received: by relay\r\nMessage-ID:"))
    # a second From on top: which one a reader sees is not the signed one (RFC 6376 §8.15)
    assert not passes(b"From: Alice <alice@example.test>\r\n" + signed)


def test_repeated_headers_are_selected_bottom_up_and_oversigning_holds() -> None:
    raw = b"X-Tag: top\r\nX-Tag: bottom\r\n" + MAIL
    signed = sign(raw, KEY, domain="example.test", headers=("From", "Subject", "X-Tag"))
    assert passes(signed.replace(b"X-Tag: top", b"X-Tag: changed"))  # not the signed one
    assert not passes(signed.replace(b"X-Tag: bottom", b"X-Tag: changed"))
    # Subject listed twice with one present: a second Subject added later breaks it
    over = sign(MAIL, KEY, domain="example.test", headers=("From", "Subject", "Subject"))
    assert passes(over)
    added = over.replace(b"Message-ID:", b"Subject: [village1] RESIGN\r\nMessage-ID:")
    assert not passes(added)


def test_l_tag_refused_even_when_valid_and_appended_command_not_accepted_requirement_5() -> None:
    """§0 finding 4: with l= a forger appends a command after the signed length."""
    signed = sign(MAIL, KEY, domain="example.test", length=len(b"VOTE Bob\r\n"))
    # a valid signature otherwise: bh= is the hash of the first l= bytes of the relaxed body
    assert base64.b64encode(hashlib.sha256(b"VOTE Bob\r\n").digest()) in signed
    assert results(signed) == [("example.test", False, "l_tag")]
    appended = signed + b"RESIGN\r\n"
    assert results(appended) == [("example.test", False, "l_tag")]
    assert not passes(signed) and not passes(appended)


def test_expired_x_refused_requirement_5() -> None:
    """x= is checked against the caller's clock (``now``); dkimpy checks it against the wall
    clock too (with 10 h of slack), so the fresh signature expires after both."""
    late = sign(MAIL, KEY, domain="example.test", tags=f" t={T - 7200}; x={T - 1};")
    assert results(late) == [("example.test", False, "expired")]
    later = max(T, int(time.time())) + 3600
    fresh = sign(MAIL, KEY, domain="example.test", tags=f" t={T - 7200}; x={later};")
    assert passes(fresh)


def test_short_revoked_wrong_or_missing_key_fails_requirement_5() -> None:
    assert results(sign(MAIL, SHORT, domain="example.test", selector="short")) == [
        ("example.test", False, "short_key")
    ]
    assert results(sign(MAIL, KEY, domain="example.test", selector="other")) == [
        ("example.test", False, "bad_signature")
    ]
    assert results(sign(MAIL, KEY, domain="example.test", selector="revoked")) == [
        ("example.test", False, "key_revoked")
    ]
    assert results(sign(MAIL, KEY, domain="example.test", selector="missing")) == [
        ("example.test", False, "no_key")
    ]
    assert results(sign(MAIL, KEY, domain="example.test", selector="ed")) == [
        ("example.test", False, "bad_key")  # an Ed25519 key record for an RSA signature
    ]
    for selector in ("huge_e", "huge_n", "sha1_only", "not_email"):
        assert results(sign(MAIL, KEY, domain="example.test", selector=selector)) == [
            ("example.test", False, "bad_key")
        ], selector


def test_rsa_sha1_refused_as_weak() -> None:
    """RFC 8301 §3.1: verifiers MUST NOT consider rsa-sha1 signatures valid."""
    signed = sign(MAIL, KEY, domain="example.test", algorithm="rsa-sha1")
    assert results(signed) == [("example.test", False, "weak_algorithm")]


def test_dkimpy_pkcs1_compares_the_whole_block_not_a_prefix_parse() -> None:
    """A block with the right digest but garbage after it (or short padding) is refused by the
    RSA code dkimpy verifies with: the Bleichenbacher-2006 forgeries rely on verifiers that
    parse rather than compare."""
    data = b"signed header data"
    public = {"modulus": KEY.n, "publicExponent": KEY.e}
    t = DIGEST_INFO["sha256"] + hashlib.sha256(data).digest()
    assert RSASSA_PKCS1_v1_5_verify(hashlib.sha256(data), pkcs1_sign(KEY, data), public)
    garbage = b"\x00\x01" + b"\xff" * 8 + b"\x00" + t
    garbage += b"\x42" * (KEY.size - len(garbage))
    forged = rsa_sign_block(KEY, garbage)
    assert not RSASSA_PKCS1_v1_5_verify(hashlib.sha256(data), forged, public)
    sha1 = DIGEST_INFO["sha1"] + hashlib.sha1(data).digest()
    block = b"\x00\x01" + b"\xff" * (KEY.size - len(sha1) - 3) + b"\x00" + sha1
    forged = rsa_sign_block(KEY, block)
    assert not RSASSA_PKCS1_v1_5_verify(hashlib.sha256(data), forged, public)


@pytest.mark.parametrize(
    "header",
    [
        b"DKIM-Signature: v=1; a=rsa-sha256; d=example.test; s=sel; h=from; bh=AA==\r\n",
        b"DKIM-Signature: v=1; v=1; a=rsa-sha256; d=example.test; s=sel; h=from; bh=; b=\r\n",
        b"DKIM-Signature: v=2; a=rsa-sha256; d=example.test; s=sel; h=from; bh=AA; b=AA\r\n",
        b"DKIM-Signature: v=1; a=rsa-sha256; d=example.test; s=sel; h=to; bh=AA==; b=AA==\r\n",
        b"DKIM-Signature: v=1; a=rsa-sha256; d=example.test; s=sel; h=from; bh=!!; b=AA==\r\n",
        b"DKIM-Signature: v=1; a=rsa-sha256; d=example.test; i=a@evil.example; s=sel; "
        b"h=from; bh=AA==; b=AA==\r\n",
        b"DKIM-Signature: \xff\xfe\r\n",
        b"DKIM-Signature: garbage\r\n",
    ],
)
def test_malformed_signatures_fail_cleanly(header: bytes) -> None:
    assert [r.ok for r in dkim.verify(header + MAIL, resolver, NOW)] == [False]


def test_header_dkimpy_cannot_parse_fails_closed() -> None:
    """A header line that is no field (no colon): dkimpy refuses the whole message, so no
    signature of it can pass; one failed result says why."""
    signed = sign(MAIL, KEY, domain="example.test")
    broken = signed.replace(b"To: ", b"not a header field\r\nTo: ")
    assert results(broken) == [("", False, "bad_message")]
    assert not passes(broken)


@given(st.binary(max_size=400), st.binary(max_size=200))
def test_verify_never_raises_on_hostile_bytes(head: bytes, key: bytes) -> None:
    raw = b"DKIM-Signature: v=1; a=rsa-sha256; d=example.test; s=sel; h=from;" + head + MAIL
    record = "v=DKIM1; p=" + base64.b64encode(key).decode()
    for r in dkim.verify(raw, lambda s, d: record, NOW):
        assert not r.ok


# ---- several signatures: a mailing list ---------------------------------------------------


def _via_list(raw: bytes, *, munge: bool) -> bytes:
    """What a list does: List-Id added, maybe a subject tag and a footer, then its own
    signature on top (d=lists.example.net)."""
    raw = raw.replace(b"Message-ID:", b"List-Id: <game.lists.example.net>\r\nMessage-ID:")
    if munge:
        raw = raw.replace(b"Subject: ", b"Subject: [game] ") + b"-- \r\nlist footer\r\n"
    return sign(raw, OTHER, domain="lists.example.net", selector="list")


def test_list_resignature_on_top_author_signature_below_still_counts_requirement_5() -> None:
    """dkim.verify() of dkimpy looks at the topmost signature only (§0.4): here the lower,
    author's signature is what passes, and the list's (valid) one is not aligned."""
    relayed = _via_list(sign(MAIL, KEY, domain="example.test"), munge=False)
    assert results(relayed) == [("lists.example.net", True, "pass"), ("example.test", True, "pass")]
    assert passes(relayed)


def test_only_a_list_signature_valid_is_not_aligned_requirement_5() -> None:
    broken = _via_list(sign(MAIL, KEY, domain="example.test"), munge=True)
    assert results(broken) == [
        ("lists.example.net", True, "pass"),
        ("example.test", False, "body_hash_mismatch"),
    ]
    assert not passes(broken)
    assert not passes(_via_list(MAIL, munge=False))  # never signed by the author at all


def test_forger_own_domain_signature_and_forged_lower_authentication_results_F13() -> None:
    """A forger signs with his own domain and adds Authentication-Results saying pass for the
    victim's: neither counts (requirement 5: only our own verification of an aligned d=)."""
    forged = sign(MAIL, OTHER, domain="evil.example").replace(
        b"Message-ID:",
        b"Authentication-Results: mx.example.test; dkim=pass header.d=example.test; "
        b"dmarc=pass\r\nMessage-ID:",
    )
    assert results(forged) == [("evil.example", True, "pass")]
    assert not passes(forged)
    # the aligned pass does not need (nor look at) Authentication-Results
    good = sign(MAIL, KEY, domain="example.test")
    ar = b"Authentication-Results: mx.example.test; dkim=fail; dmarc=fail\r\n"
    assert passes(ar + good)


def test_alignment_parent_domain_only() -> None:
    assert dkim.aligned("example.test", "example.test")
    assert dkim.aligned("example.test", "mail.example.test")  # d= the organizational domain
    assert dkim.aligned("EXAMPLE.test.", "Mail.Example.Test")
    assert not dkim.aligned("mail.example.test", "example.test")  # no PSL: no siblings/children
    assert not dkim.aligned("test", "example.test")  # a one-label suffix never
    assert not dkim.aligned("le.test", "example.test")  # a suffix of the text, not a parent
    assert not dkim.aligned("", "example.test")
    signed = sign(
        MAIL.replace(b"alice@example.test", b"alice@mail.example.test"), KEY, domain="example.test"
    )
    assert passes(signed, "mail.example.test")


def test_signature_count_is_capped() -> None:
    """Each signature may cost a DNS query: at most MAX_SIGNATURES are tried."""
    raw = MAIL
    for _ in range(dkim.MAX_SIGNATURES + 3):
        raw = sign(raw, KEY, domain="example.test", selector="missing")
    assert len(dkim.verify(raw, resolver, NOW)) == dkim.MAX_SIGNATURES


# ---- the auth method, end to end through check_sender ------------------------------------

PLAYERS = {"Alice": "alice@example.test"}
CFG = AuthConfig(("registered", "dkim_verify"))


def _parsed(raw: bytes) -> EmailMessage:
    msg = message_from_bytes(raw, policy=policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def test_dkim_verify_auth_method_end_to_end_requirement_5() -> None:
    good = sign(MAIL, KEY, domain="example.test")
    v = check_sender(_parsed(good), PLAYERS, CFG, {}, raw=good, resolver=resolver, now=NOW)
    assert v.ok and v.registered == "alice@example.test"
    forged = good.replace(b"VOTE  Bob", b"VOTE  Eve")
    v = check_sender(_parsed(forged), PLAYERS, CFG, {}, raw=forged, resolver=resolver, now=NOW)
    assert (v.ok, v.registered, v.reason) == (False, "alice@example.test", "no_dkim")
    # fail closed when the daemon cannot give the raw bytes, a resolver or the time
    assert check_sender(_parsed(good), PLAYERS, CFG, {}, resolver=resolver, now=NOW).reason == (
        "no_dkim"
    )
    assert not check_sender(_parsed(good), PLAYERS, CFG, {}, raw=good, now=NOW).ok
    # list posts: registered From only (lists break DKIM); strangers pass to the engine
    assert check_sender(_parsed(forged), PLAYERS, CFG, {}, channel="list").ok
    stranger = MAIL.replace(b"alice@example.test", b"zed@example.test")
    v = check_sender(_parsed(stranger), PLAYERS, CFG, {}, raw=stranger, resolver=resolver, now=NOW)
    assert v.ok and v.registered is None
    # the Authentication-Results method is a separate one and unchanged
    assert not check_sender(
        _parsed(good), PLAYERS, AuthConfig(("dkim",), "mx.example.test"), {}, raw=good
    ).ok


def test_config_accepts_dkim_verify(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    creds = tmp_path / "creds"
    creds.mkdir()
    (creds / "imap-password").write_text("i\n")
    (creds / "smtp-password").write_text("s\n")
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(creds))
    example = Path(__file__).parents[2] / "config" / "pbem.example.toml"
    text = example.read_text().replace(
        'methods = ["registered"]', 'methods = ["registered", "secret", "dkim_verify"]'
    )
    assert "dkim_verify" in text
    (tmp_path / "pbem.toml").write_text(text)
    assert load(tmp_path / "pbem.toml").auth.methods == ("registered", "secret", "dkim_verify")
