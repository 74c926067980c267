"""DKIM verification (RFC 6376, RFC 8301, RFC 8463) by dkimpy, under pbem's policy.

dkimpy does the verification: canonicalization, body hash, header selection, RSA (its own
PKCS#1 v1.5 code, the whole encoded block compared) and Ed25519 (through PyNaCl, libsodium).
pbem adds what a DKIM library leaves to its caller (RELIABILITY §0 finding 4):

- EVERY ``DKIM-Signature`` is verified (dkimpy's ``verify(idx)`` per signature), not only the
  topmost that ``dkim.verify()`` checks: a mailing list that re-signs on top must not hide (or
  stand in for) the author's own signature below it.
- A signature with ``l=`` is refused even when it verifies: anything appended after the signed
  length (a second command) would ride on it.
- ``rsa-sha256`` with keys of 1024 to 8192 bits, and ``ed25519-sha256``, can pass. ``rsa-sha1``
  is refused as weak (RFC 8301 §3.1: verifiers MUST NOT consider it valid), and so is a key
  record whose ``k=`` is not the signature's algorithm, or whose ``h=`` excludes sha256.
- The From field must be signed (§5.4), ``x=`` is checked against the caller's clock (dkimpy
  checks it against the wall clock with 10 hours of slack), and a message with several From
  fields has no aligned signature (§8.15).

The tags are parsed with dkimpy's own ``parse_tag_value`` only to apply this policy. The key
lookup is an injected callable ``(selector, domain) -> TXT text | None``; the production one is
:class:`pbem.adapters.dns.DnsResolver` (dnspython). ``None`` (no record, DNS failure) fails the
signature: a temperror is never a pass. Each key is asked for once: dkimpy is handed the record
already fetched.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import dkim
import dkim.crypto
import dkim.util

from pbem.mail.alignment import aligned as aligned

Resolver = Callable[[str, str], str | None]
"""``(selector, domain) -> the TXT record of selector._domainkey.domain``, or None."""

MIN_KEY_BITS = 1024
MAX_KEY_BITS = 8192
"""Bigger keys are refused: the RSA operation on them would be a cheap denial of service."""
MAX_SIGNATURES = 10
"""Signatures verified per message at most: each may cost a DNS query and an RSA operation."""

_ALGORITHMS = {"rsa-sha256": "rsa", "ed25519-sha256": "ed25519"}
"""The signature algorithms that can pass, with the key type (``k=``) each needs."""

# dkimpy logs a bad key at ERROR: a sender's broken DNS is not our error, the verdict says it
_DKIMPY_LOG = logging.getLogger("pbem.mail.dkim.dkimpy")
_DKIMPY_LOG.setLevel(logging.CRITICAL)


@dataclass(frozen=True)
class SignatureResult:
    """The verdict on one DKIM-Signature: ``reason`` is ``pass`` or why it failed."""

    domain: str
    selector: str
    ok: bool
    reason: str
    signature: str = ""
    """On a pass, the sha256 (hex) of the signature value b=: the same signed mail, whatever
    unsigned headers an MTA or a replaying attacker added (new ``Received`` lines, new bytes),
    has the same one, so it can key a replay ledger (RELIABILITY §1.6 layer 4)."""


class _Fail(Exception):
    """A signature is invalid; ``args[0]`` is the reason code."""


def _text(value: bytes) -> str:
    return value.decode("ascii", "replace")


def _b64(value: bytes, reason: str) -> bytes:
    try:
        return base64.b64decode(re.sub(rb"\s+", b"", value), validate=True)
    except (binascii.Error, ValueError):
        raise _Fail(reason) from None


def _tags(value: bytes, reason: str) -> dict[bytes, bytes]:
    try:
        tags: dict[bytes, bytes] = dkim.util.parse_tag_value(value)
    except dkim.util.InvalidTagValueList:
        raise _Fail(reason) from None
    return tags


# ---- the policy on a signature and on its key --------------------------------------------


def _signature_policy(tags: dict[bytes, bytes], now: int) -> str:
    """The key type the signature needs; raise _Fail(reason) if pbem refuses it whatever
    dkimpy would say."""
    required = (b"v", b"a", b"b", b"bh", b"d", b"h", b"s")
    if any(not tags.get(t) for t in required) or tags[b"v"] != b"1":
        raise _Fail("bad_signature_header")
    if b"l" in tags:
        raise _Fail("l_tag")  # refused even if valid: content appended after l= is unsigned
    algorithm = _text(tags[b"a"]).lower()
    if algorithm == "rsa-sha1":
        raise _Fail("weak_algorithm")
    if algorithm not in _ALGORITHMS:
        raise _Fail("unsupported_algorithm")
    signed = [h.strip().lower() for h in _text(tags[b"h"]).split(":")]
    if "from" not in signed:
        raise _Fail("bad_signature_header")  # §5.4: From MUST be signed
    if b"x" in tags:
        try:
            expires = int(tags[b"x"])
        except ValueError:
            raise _Fail("bad_signature_header") from None
        if expires < now:
            raise _Fail("expired")
    return _ALGORITHMS[algorithm]


def _key_policy(record: str | None, kind: str) -> bytes:
    """The key record, as bytes for dkimpy, once pbem accepts it for a ``kind`` signature."""
    if record is None:
        raise _Fail("no_key")
    raw = record.encode("ascii", "replace")
    tags = _tags(raw, "bad_key")
    if tags.get(b"v", b"DKIM1") != b"DKIM1":
        raise _Fail("bad_key")
    if _text(tags.get(b"k", b"rsa")).lower() != kind:
        raise _Fail("bad_key")  # an Ed25519 key for an RSA signature, or the reverse
    if b"h" in tags and "sha256" not in [h.strip().lower() for h in _text(tags[b"h"]).split(":")]:
        raise _Fail("bad_key")
    services = [s.strip().lower() for s in _text(tags.get(b"s", b"*")).split(":")]
    if "*" not in services and "email" not in services:
        raise _Fail("bad_key")
    if not tags.get(b"p"):
        raise _Fail("key_revoked")  # an empty p= is a revoked key (§3.6.1)
    der = _b64(tags[b"p"], "bad_key")
    if kind == "ed25519":
        if len(der) != 32:
            raise _Fail("bad_key")
        return raw
    try:
        key = dkim.crypto.parse_public_key(der)
    except (dkim.crypto.UnparsableKeyError, IndexError, ValueError, TypeError):
        raise _Fail("bad_key") from None
    bits = int(key["modulus"]).bit_length()
    if bits < MIN_KEY_BITS:
        raise _Fail("short_key")  # RFC 8301 §3.2: under 1024 bits MUST NOT be considered valid
    if bits > MAX_KEY_BITS or int(key["publicExponent"]).bit_length() > 64:
        raise _Fail("bad_key")  # real keys use e = 65537; a huge e or n only costs us time
    return raw


# ---- one signature ------------------------------------------------------------------------


def _check(message: dkim.DKIM, index: int, value: bytes, resolver: Resolver, now: int) -> bytes:
    """The signature value b= of signature ``index``; raise _Fail(reason) unless it is a valid
    signature of the message."""
    tags = _tags(value, "bad_signature_header")
    kind = _signature_policy(tags, now)
    signature = _b64(tags[b"b"], "bad_signature_header")
    _b64(tags[b"bh"], "bad_signature_header")
    record = _key_policy(resolver(_text(tags[b"s"]), _text(tags[b"d"]).lower()), kind)
    try:
        good = message.verify(idx=index, dnsfunc=lambda _name, timeout=0: record)
    except dkim.ValidationError as exc:
        if str(exc).startswith("body hash mismatch"):
            raise _Fail("body_hash_mismatch") from None
        raise _Fail("bad_signature_header") from None
    except dkim.KeyFormatError:
        raise _Fail("bad_key") from None
    except Exception:  # dkimpy on hostile input: anything it cannot handle is a failure
        raise _Fail("bad_signature_header") from None
    if not good:
        raise _Fail("bad_signature")
    return signature


def _timestamp(now: datetime | int) -> int:
    return now if isinstance(now, int) else int(now.timestamp())


def _parse(raw: bytes) -> dkim.DKIM | None:
    """The message as dkimpy reads it (line ends CRLF or bare LF); None if it cannot."""
    try:
        return dkim.DKIM(raw, logger=_DKIMPY_LOG, minkey=MIN_KEY_BITS)
    except Exception:  # a header line that is no field: no signature can be checked
        return None


def _signatures(message: dkim.DKIM) -> list[bytes]:
    return [v for name, v in message.headers if name.lower() == b"dkim-signature"]


def _ids(value: bytes) -> tuple[str, str]:
    """d= and s= of a signature, best effort (for reporting and alignment)."""
    try:
        tags = dkim.util.parse_tag_value(value)
    except dkim.util.InvalidTagValueList:
        return "", ""
    return _text(tags.get(b"d", b"")).lower(), _text(tags.get(b"s", b""))


def verify(
    raw: bytes,
    resolver: Resolver,
    now: datetime | int,
    *,
    only: Callable[[str], bool] | None = None,
) -> list[SignatureResult]:
    """Verify every DKIM-Signature of ``raw``, top first (at most :data:`MAX_SIGNATURES`).

    ``only(domain)`` chooses which signatures are worth a DNS query; the others are not
    reported. ``now`` (a datetime or POSIX seconds) is used for the x= expiry. A message
    dkimpy cannot parse gives one failed result (``bad_message``).
    """
    message = _parse(raw)
    if message is None:
        return [SignatureResult("", "", False, "bad_message")]
    return _verify(message, resolver, _timestamp(now), only)


def _verify(
    message: dkim.DKIM, resolver: Resolver, now: int, only: Callable[[str], bool] | None
) -> list[SignatureResult]:
    results: list[SignatureResult] = []
    for index, value in enumerate(_signatures(message)):
        domain, selector = _ids(value)
        if only is not None and not only(domain):
            continue
        if len(results) == MAX_SIGNATURES:
            break
        try:
            b = _check(message, index, value, resolver, now)
        except _Fail as fail:
            results.append(SignatureResult(domain, selector, False, str(fail.args[0])))
        else:
            digest = hashlib.sha256(b).hexdigest()
            results.append(SignatureResult(domain, selector, True, "pass", digest))
    return results


def aligned_signatures(
    raw: bytes, from_domain: str, resolver: Resolver, now: datetime | int
) -> list[SignatureResult]:
    """The valid signatures aligned with ``from_domain`` (all of them are tried).

    A message with several From fields has none (RFC 6376 §8.15): which one a reader sees is
    not necessarily the signed one.
    """
    message = _parse(raw)
    if message is None or sum(name.lower() == b"from" for name, _ in message.headers) != 1:
        return []
    results = _verify(message, resolver, _timestamp(now), lambda d: aligned(d, from_domain))
    return [r for r in results if r.ok]


def aligned_pass(raw: bytes, from_domain: str, resolver: Resolver, now: datetime | int) -> bool:
    """True if ANY signature aligned with ``from_domain`` is valid."""
    return bool(aligned_signatures(raw, from_domain, resolver, now))
