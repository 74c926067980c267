"""A small DKIM verifier (RFC 6376, RFC 8301), pure Python, no I/O (RELIABILITY requirement 5).

Why our own: the fixed stack has no DKIM library and dkimpy/cryptography are not allowed as
runtime dependencies. Why it checks what it checks (RELIABILITY §0 finding 4):

- EVERY ``DKIM-Signature`` is verified, not only the topmost: a mailing list that re-signs on
  top must not hide (or stand in for) the author's own signature below it.
- A signature with ``l=`` is refused even when it verifies: anything appended after the signed
  length (a second command) would ride on it.
- ``rsa-sha256`` with keys of 1024 bits or more, and ``ed25519-sha256`` (RFC 8463, verified
  by :mod:`pbem.mail.ed25519`), can pass. ``rsa-sha1`` is refused as weak (RFC 8301 §3.1:
  verifiers MUST NOT consider it valid). A key record whose ``k=`` is not the signature's
  algorithm fails.

The key lookup is an injected callable ``(selector, domain) -> TXT text | None``; the
production one lives in :mod:`pbem.adapters.dns`. ``None`` (no record, DNS failure) fails the
signature: a temperror is never a pass.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from pbem.mail import ed25519

Resolver = Callable[[str, str], str | None]
"""``(selector, domain) -> the TXT record of selector._domainkey.domain``, or None."""

MIN_KEY_BITS = 1024
MAX_KEY_BITS = 8192
"""Bigger keys are refused: the RSA operation on them would be a cheap denial of service."""
MAX_SIGNATURES = 10
"""Signatures verified per message at most: each may cost a DNS query and an RSA operation."""

_ALGORITHMS = {"rsa-sha256": "rsa", "ed25519-sha256": "ed25519"}
"""The signature algorithms that can pass, with the key type (``k=``) each needs."""

# DigestInfo DER prefix for SHA-256 (RFC 8017 §9.2 note 1)
_SHA256_DIGEST_INFO = bytes.fromhex("3031300d060960864801650304020105000420")
_RSA_OID = bytes.fromhex("2a864886f70d010101")  # 1.2.840.113549.1.1.1 rsaEncryption
_WSP = re.compile(rb"[ \t]+")
# the b= tag's value, base64 with folding (§3.7: the signature hashes itself with b= empty), as
# dkimpy strips it; the tag name must follow ";" or the start, so bh= never matches. Linear:
# whitespace and base64 characters are disjoint, so no backtracking blow-up.
_B_VALUE = re.compile(rb"((?:^|;)[ \t\r\n]*b[ \t\r\n]*=)(?:[ \t\r\n]*[A-Za-z0-9+/=])*")


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


# ---- parsing ------------------------------------------------------------------------------


def parse_tags(text: str) -> dict[str, str]:
    """A tag=value list (RFC 6376 §3.2); folding whitespace removed around names and values.

    Raises ValueError on a malformed or duplicated tag (a duplicate makes the signature invalid).
    """
    tags: dict[str, str] = {}
    for part in text.replace("\r\n", "").split(";"):
        if not part.strip():
            continue  # a trailing ";" is allowed
        name, eq, value = part.partition("=")
        name = name.strip()
        if not eq or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name) or name in tags:
            raise ValueError(f"bad tag {part.strip()[:20]!r}")
        tags[name] = value.strip(" \t\r\n")
    return tags


def split_message(raw: bytes) -> tuple[list[bytes], bytes]:
    """Header fields (each raw, folded lines included, ending in CRLF) and the body.

    Line ends are normalised to CRLF first: a message stored with bare LF (a Maildir file) was
    signed with CRLF on the wire.
    """
    data = raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    head, sep, body = data.partition(b"\r\n\r\n")
    if not sep:
        head, body = data, b""
    fields: list[bytes] = []
    for line in (head + b"\r\n").split(b"\r\n")[:-1]:
        if line[:1] in (b" ", b"\t") and fields:
            fields[-1] += line + b"\r\n"
        else:
            fields.append(line + b"\r\n")
    return fields, body


def _name(field: bytes) -> bytes:
    return field.partition(b":")[0].strip().lower()


# ---- canonicalization (RFC 6376 §3.4) -------------------------------------------------------


def canon_header(field: bytes, relaxed: bool) -> bytes:
    """One header field, canonicalized; ends in CRLF."""
    if not relaxed:
        return field
    name, _, value = field.partition(b":")
    value = _WSP.sub(b" ", value.replace(b"\r\n", b"")).strip(b" ")
    return name.strip().lower() + b":" + value + b"\r\n"


def canon_body(body: bytes, relaxed: bool) -> bytes:
    """The body, canonicalized: trailing empty lines removed (an empty body is CRLF in simple,
    nothing in relaxed)."""
    if relaxed:
        body = b"\r\n".join(_WSP.sub(b" ", line).rstrip(b" ") for line in body.split(b"\r\n"))
    if body and not body.endswith(b"\r\n"):
        body += b"\r\n"
    end = len(body)
    while body.endswith(b"\r\n\r\n", 0, end):
        end -= 2  # a trailing empty line (indexes, not copies: a hostile body may have many)
    body = body[:end]
    if relaxed:
        return b"" if body == b"\r\n" else body
    return body or b"\r\n"


def signed_headers(fields: list[bytes], names: list[str], sig_field: bytes, relaxed: bool) -> bytes:
    """The header data the signature covers: the h= fields, each instance taken from the
    bottom up (§5.4.2; a name listed more often than present adds nothing), then the
    DKIM-Signature field itself with b= emptied and without its final CRLF."""
    used: set[int] = set()
    out: list[bytes] = []
    for name in names:
        key = name.strip().lower().encode()
        for i in range(len(fields) - 1, -1, -1):
            if i not in used and _name(fields[i]) == key:
                used.add(i)
                out.append(canon_header(fields[i], relaxed))
                break
    sig_name, _, value = sig_field.partition(b":")
    emptied = sig_name + b":" + _B_VALUE.sub(rb"\1", value.removesuffix(b"\r\n")) + b"\r\n"
    out.append(canon_header(emptied, relaxed).removesuffix(b"\r\n"))
    return b"".join(out)


# ---- RSA (RFC 8017) -----------------------------------------------------------------------


def _der(data: bytes, pos: int) -> tuple[int, bytes, int]:
    """(tag, contents, next position) of the DER element at ``pos``."""
    if pos + 2 > len(data):
        raise _Fail("bad_key")
    tag, length, pos = data[pos], data[pos + 1], pos + 2
    if length & 0x80:
        n = length & 0x7F
        if not 1 <= n <= 4 or pos + n > len(data):
            raise _Fail("bad_key")
        length, pos = int.from_bytes(data[pos : pos + n], "big"), pos + n
    if pos + length > len(data):
        raise _Fail("bad_key")
    return tag, data[pos : pos + length], pos + length


def parse_rsa_key(der: bytes) -> tuple[int, int]:
    """``(n, e)`` from a SubjectPublicKeyInfo or a bare RSAPublicKey (both are seen in DNS)."""
    tag, seq, end = _der(der, 0)
    if tag != 0x30 or end != len(der):
        raise _Fail("bad_key")
    first_tag, algo, pos = _der(seq, 0)
    if first_tag != 0x30:
        return _rsa_public_key(der)
    # SubjectPublicKeyInfo: SEQUENCE { AlgorithmIdentifier, BIT STRING { RSAPublicKey } }
    oid_tag, oid, _ = _der(algo, 0)
    if oid_tag != 0x06 or oid != _RSA_OID:
        raise _Fail("bad_key")
    bit_tag, bits, pos = _der(seq, pos)
    if bit_tag != 0x03 or pos != len(seq) or bits[:1] != b"\x00":
        raise _Fail("bad_key")
    return _rsa_public_key(bits[1:])


def _rsa_public_key(der: bytes) -> tuple[int, int]:
    """RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }."""
    tag, seq, end = _der(der, 0)
    n_tag, n_bytes, pos = _der(seq, 0)
    e_tag, e_bytes, pos = _der(seq, pos)
    if tag != 0x30 or end != len(der) or n_tag != 0x02 or e_tag != 0x02 or pos != len(seq):
        raise _Fail("bad_key")
    n, e = int.from_bytes(n_bytes, "big"), int.from_bytes(e_bytes, "big")
    if n_bytes[:1] >= b"\x80" or e_bytes[:1] >= b"\x80" or e < 3 or e % 2 == 0:
        raise _Fail("bad_key")  # negative INTEGERs, or an exponent no RSA key has
    return n, e


def rsa_sha256_verify(n: int, e: int, signature: bytes, data: bytes) -> bool:
    """RSASSA-PKCS1-v1_5 with SHA-256: the WHOLE encoded block is rebuilt and compared, so no
    lenient parse of the padding (the Bleichenbacher-2006 forgeries) can slip through."""
    k = (n.bit_length() + 7) // 8
    if len(signature) != k:
        return False
    s = int.from_bytes(signature, "big")
    if s >= n:
        return False
    em = pow(s, e, n).to_bytes(k, "big")
    t = _SHA256_DIGEST_INFO + hashlib.sha256(data).digest()
    if k < len(t) + 11:
        return False
    expected = b"\x00\x01" + b"\xff" * (k - len(t) - 3) + b"\x00" + t
    return hmac.compare_digest(em, expected)


# ---- one signature ------------------------------------------------------------------------


def _b64(value: str) -> bytes:
    try:
        return base64.b64decode(re.sub(r"\s+", "", value), validate=True)
    except (binascii.Error, ValueError):
        raise _Fail("bad_signature_header") from None


def _key(record: str | None, kind: str) -> tuple[int, int] | bytes:
    """The key of a DKIM key record (RFC 6376 §3.6.1): ``(n, e)`` for ``kind`` "rsa", the raw
    32-byte public key for "ed25519" (RFC 8463 §4)."""
    if record is None:
        raise _Fail("no_key")
    try:
        tags = parse_tags(record)
    except ValueError:
        raise _Fail("bad_key") from None
    if tags.get("v", "DKIM1") != "DKIM1":
        raise _Fail("bad_key")
    if tags.get("k", "rsa").lower() != kind:
        raise _Fail("bad_key")  # an Ed25519 key for an RSA signature, or the reverse
    if "h" in tags and "sha256" not in [h.strip().lower() for h in tags["h"].split(":")]:
        raise _Fail("bad_key")
    services = [x.strip().lower() for x in tags.get("s", "*").split(":")]
    if "*" not in services and "email" not in services:
        raise _Fail("bad_key")
    if not tags.get("p"):
        raise _Fail("key_revoked")  # an empty p= is a revoked key (§3.6.1)
    try:
        der = base64.b64decode(re.sub(r"\s+", "", tags["p"]), validate=True)
    except (binascii.Error, ValueError):
        raise _Fail("bad_key") from None
    if kind == "ed25519":
        if len(der) != 32:
            raise _Fail("bad_key")
        return der
    n, e = parse_rsa_key(der)
    if n.bit_length() < MIN_KEY_BITS:
        raise _Fail("short_key")  # RFC 8301 §3.2: under 1024 bits MUST NOT be considered valid
    if n.bit_length() > MAX_KEY_BITS or e.bit_length() > 64:
        raise _Fail("bad_key")  # real keys use e = 65537; a huge e or n only costs us time
    return n, e


def _check(
    fields: list[bytes], body: bytes, sig_field: bytes, resolver: Resolver, now: int
) -> bytes:
    """The signature value of ``sig_field``; raise _Fail(reason) unless it is a valid
    signature of the message."""
    try:
        tags = parse_tags(sig_field.partition(b":")[2].decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        raise _Fail("bad_signature_header") from None
    required = ("v", "a", "b", "bh", "d", "h", "s")
    if any(not tags.get(t) for t in required) or tags["v"] != "1":
        raise _Fail("bad_signature_header")
    if "l" in tags:
        raise _Fail("l_tag")  # refused even if valid: content appended after l= is unsigned
    algo = tags["a"].lower()
    if algo == "rsa-sha1":
        raise _Fail("weak_algorithm")
    if algo not in _ALGORITHMS:
        raise _Fail("unsupported_algorithm")
    header_c, _, body_c = tags.get("c", "simple").lower().partition("/")
    if header_c not in ("simple", "relaxed") or body_c not in ("", "simple", "relaxed"):
        raise _Fail("bad_signature_header")
    names = tags["h"].split(":")
    if "from" not in [n.strip().lower() for n in names]:
        raise _Fail("bad_signature_header")  # §5.4: From MUST be signed
    domain = tags["d"].lower()
    identity = tags.get("i", "@" + domain).rpartition("@")[2].lower()
    if identity != domain and not identity.endswith("." + domain):
        raise _Fail("bad_signature_header")  # §3.5: i= must be in d= or below
    if tags.get("q", "dns/txt").lower() != "dns/txt":
        raise _Fail("bad_signature_header")
    try:
        expires = int(tags["x"]) if "x" in tags else None
    except ValueError:
        raise _Fail("bad_signature_header") from None
    if expires is not None and expires < now:
        raise _Fail("expired")
    bh, b = _b64(tags["bh"]), _b64(tags["b"])
    body_hash = hashlib.sha256(canon_body(body, body_c == "relaxed")).digest()
    if not hmac.compare_digest(body_hash, bh):
        raise _Fail("body_hash_mismatch")
    key = _key(resolver(tags["s"], domain), _ALGORITHMS[algo])
    data = signed_headers(fields, names, sig_field, header_c == "relaxed")
    if isinstance(key, bytes):  # RFC 8463 §3: PureEdDSA over the SHA-256 of the data
        good = ed25519.verify(key, hashlib.sha256(data).digest(), b)
    else:
        good = rsa_sha256_verify(*key, b, data)
    if not good:
        raise _Fail("bad_signature")
    return b


def _sig_ids(field: bytes) -> tuple[str, str]:
    """d= and s= of a signature header, best effort (for reporting and alignment)."""
    try:
        tags = parse_tags(field.partition(b":")[2].decode("ascii", "replace"))
    except ValueError:
        return "", ""
    return tags.get("d", "").lower(), tags.get("s", "")


def _timestamp(now: datetime | int) -> int:
    return now if isinstance(now, int) else int(now.timestamp())


def verify(
    raw: bytes,
    resolver: Resolver,
    now: datetime | int,
    *,
    only: Callable[[str], bool] | None = None,
) -> list[SignatureResult]:
    """Verify every DKIM-Signature of ``raw``, top first (at most :data:`MAX_SIGNATURES`).

    ``only(domain)`` chooses which signatures are worth a DNS query; the others are not
    reported. ``now`` (a datetime or POSIX seconds) is used for the x= expiry.
    """
    fields, body = split_message(raw)
    results: list[SignatureResult] = []
    for field in fields:
        if _name(field) != b"dkim-signature":
            continue
        domain, selector = _sig_ids(field)
        if only is not None and not only(domain):
            continue
        if len(results) == MAX_SIGNATURES:
            break
        try:
            b = _check(fields, body, field, resolver, _timestamp(now))
        except _Fail as fail:
            results.append(SignatureResult(domain, selector, False, str(fail.args[0])))
        else:
            digest = hashlib.sha256(b).hexdigest()
            results.append(SignatureResult(domain, selector, True, "pass", digest))
    return results


def aligned(signing_domain: str, from_domain: str) -> bool:
    """d= is the From domain or one of its parents (relaxed alignment, RFC 7489 §3.1.1).

    Without a public suffix list, a parent must have two labels at least; sibling subdomains
    (d=mail.example.org for From example.org) are not accepted. A parent is safe to trust: a
    signature with d=X needs a key published under X's own DNS.
    """
    d, f = signing_domain.lower().rstrip("."), from_domain.lower().rstrip(".")
    return bool(d) and (d == f or (f.endswith("." + d) and "." in d))


def aligned_signatures(
    raw: bytes, from_domain: str, resolver: Resolver, now: datetime | int
) -> list[SignatureResult]:
    """The valid signatures aligned with ``from_domain`` (all of them are tried).

    A message with several From fields has none (RFC 6376 §8.15): which one a reader sees is
    not necessarily the signed one.
    """
    fields, _ = split_message(raw)
    if sum(_name(f) == b"from" for f in fields) != 1:
        return []
    results = verify(raw, resolver, now, only=lambda d: aligned(d, from_domain))
    return [r for r in results if r.ok]


def aligned_pass(raw: bytes, from_domain: str, resolver: Resolver, now: datetime | int) -> bool:
    """True if ANY signature aligned with ``from_domain`` is valid."""
    return bool(aligned_signatures(raw, from_domain, resolver, now))
