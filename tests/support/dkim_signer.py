"""A test-only DKIM signer (RFC 6376) and RSA key maker, pure Python, for tests/mail/test_dkim.py.

Written apart from dkimpy, which verifies in pbem.mail.dkim, on purpose (its own
canonicalization, its own DER and padding code), so a bug shared by signer and verifier is less
likely to hide; the RFC 8463 vector and dkimpy's own Ed25519 signer in the tests check the
verifier against other signers as well. Test-only: pbem itself holds no cryptography.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import random
import re
from dataclasses import dataclass

from tests.support.once_per_run import once_per_run

_SMALL_PRIMES = [p for p in range(3, 2000, 2) if all(p % q for q in range(3, int(p**0.5) + 1, 2))]


def _probably_prime(n: int, rng: random.Random, rounds: int = 40) -> bool:
    """Miller-Rabin."""
    if any(n % p == 0 for p in _SMALL_PRIMES):
        return n in _SMALL_PRIMES
    d, r = n - 1, 0
    while d % 2 == 0:
        d, r = d // 2, r + 1
    for _ in range(rounds):
        x = pow(rng.randrange(2, n - 1), d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = pow(x, 2, n)
            if x == n - 1:
                break
        else:
            return False
    return True


def _prime(bits: int, rng: random.Random, e: int) -> int:
    while True:
        # top two bits set so that p*q has exactly 2*bits bits; odd
        p = rng.getrandbits(bits) | (3 << (bits - 2)) | 1
        if (p - 1) % e and _probably_prime(p, rng):
            return p


@dataclass(frozen=True)
class RsaKey:
    n: int
    e: int
    d: int

    @property
    def size(self) -> int:
        return (self.n.bit_length() + 7) // 8


@functools.cache
def make_key(bits: int, seed: int = 1) -> RsaKey:
    """A deterministic RSA key, made once per test run: the test modules make theirs at import,
    and a 2048-bit one takes a second or so, which every pytest-xdist worker paid again."""
    return once_per_run(f"rsa-key-{bits}-{seed}", lambda: _generate_key(bits, seed))


def _generate_key(bits: int, seed: int) -> RsaKey:
    rng = random.Random(f"dkim-test-{bits}-{seed}")
    e = 65537
    while True:
        p, q = _prime(bits // 2, rng, e), _prime(bits // 2, rng, e)
        if p != q:
            break
    return RsaKey(p * q, e, pow(e, -1, (p - 1) * (q - 1)))


# ---- DER ------------------------------------------------------------------------------------


def _tlv(tag: int, body: bytes) -> bytes:
    n = len(body)
    if n < 0x80:
        return bytes([tag, n]) + body
    ln = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(ln)]) + ln + body


def _int(v: int) -> bytes:
    return _tlv(0x02, v.to_bytes(v.bit_length() // 8 + 1, "big"))  # a leading 0: positive


def rsa_public_key_der(key: RsaKey) -> bytes:
    return _tlv(0x30, _int(key.n) + _int(key.e))


def spki_der(key: RsaKey) -> bytes:
    algo = _tlv(0x30, _tlv(0x06, bytes.fromhex("2a864886f70d010101")) + b"\x05\x00")
    return _tlv(0x30, algo + _tlv(0x03, b"\x00" + rsa_public_key_der(key)))


def key_record(key: RsaKey, *, bare: bool = False, extra: str = "") -> str:
    """The TXT record publishing ``key`` (SubjectPublicKeyInfo, or RSAPublicKey if ``bare``)."""
    der = rsa_public_key_der(key) if bare else spki_der(key)
    return f"v=DKIM1; k=rsa;{extra} p={base64.b64encode(der).decode()}"


# ---- signing --------------------------------------------------------------------------------

DIGEST_INFO = {
    "sha256": bytes.fromhex("3031300d060960864801650304020105000420"),
    "sha1": bytes.fromhex("3021300906052b0e03021a05000414"),
}


def rsa_sign_block(key: RsaKey, em: bytes) -> bytes:
    """The raw RSA signature of an already encoded block ``em``."""
    return pow(int.from_bytes(em, "big"), key.d, key.n).to_bytes(key.size, "big")


def pkcs1_sign(key: RsaKey, data: bytes, hash_name: str = "sha256") -> bytes:
    t = DIGEST_INFO[hash_name] + hashlib.new(hash_name, data).digest()
    return rsa_sign_block(key, b"\x00\x01" + b"\xff" * (key.size - len(t) - 3) + b"\x00" + t)


def _crlf(raw: bytes) -> bytes:
    return re.sub(rb"\r?\n", b"\r\n", raw)


def _header_fields(head: bytes) -> list[bytes]:
    fields: list[bytes] = []
    for line in head.split(b"\r\n"):
        if line.startswith((b" ", b"\t")):
            fields[-1] += b"\r\n" + line
        elif line:
            fields.append(line)
    return fields  # without their CRLF


def _canon_header(field: bytes, relaxed: bool) -> bytes:
    if not relaxed:
        return field + b"\r\n"
    name, value = field.split(b":", 1)
    value = re.sub(rb"\r\n(?=[ \t])", b"", value)
    return name.strip().lower() + b":" + re.sub(rb"[ \t]+", b" ", value).strip() + b"\r\n"


def _canon_body(body: bytes, relaxed: bool) -> bytes:
    lines = body.split(b"\r\n")
    if relaxed:
        lines = [re.sub(rb"[ \t]+", b" ", x).rstrip(b" ") for x in lines]
    while lines and lines[-1] == b"":
        lines.pop()
    if not lines:
        return b"" if relaxed else b"\r\n"
    return b"\r\n".join(lines) + b"\r\n"


def sign(
    raw: bytes,
    key: RsaKey,
    *,
    domain: str,
    selector: str = "sel",
    headers: tuple[str, ...] = ("From", "To", "Subject", "Date"),
    canon: str = "relaxed/relaxed",
    algorithm: str = "rsa-sha256",
    length: int | None = None,
    tags: str = "",
    b_in_middle: bool = False,
) -> bytes:
    """``raw`` with a DKIM-Signature on top (``length``: sign only that much body, with l=)."""
    raw = _crlf(raw)
    head, _, body = raw.partition(b"\r\n\r\n")
    fields = _header_fields(head)
    header_c, _, body_c = canon.partition("/")
    hashed_body = _canon_body(body, body_c == "relaxed")
    if length is not None:
        hashed_body = hashed_body[:length]
        tags += f" l={length};"
    hash_name = algorithm.partition("-")[2]
    bh = base64.b64encode(hashlib.new(hash_name, hashed_body).digest()).decode()
    lead = f"v=1; a={algorithm}; c={canon}; d={domain}; s={selector};"
    h = ":".join(headers)
    if b_in_middle:
        value = f" {lead}{tags} b=@@; h={h};\r\n bh={bh}"
    else:
        value = f" {lead}{tags}\r\n h={h};\r\n bh={bh}; b=@@"
    data = b""
    used: set[int] = set()
    for name in headers:  # bottom-up choice of repeated fields
        for i in reversed(range(len(fields))):
            if (
                i not in used
                and fields[i].split(b":", 1)[0].strip().lower() == name.lower().encode()
            ):
                used.add(i)
                data += _canon_header(fields[i], header_c == "relaxed")
                break
    unsigned = ("DKIM-Signature:" + value.replace("@@", "")).encode()
    data += _canon_header(unsigned, header_c == "relaxed")[:-2]
    b = base64.b64encode(pkcs1_sign(key, data, hash_name)).decode()
    folded = "\r\n\t".join(b[i : i + 64] for i in range(0, len(b), 64))
    return ("DKIM-Signature:" + value.replace("@@", folded) + "\r\n").encode() + raw
