"""The codes pbem gives players and game masters (``SECRET <code>``, RELIABILITY §1.6): 128
bits from the operating system's randomness (:mod:`secrets`, never a game's seeded draws),
shown once, kept only scrypt-hashed and compared in constant time.

An adapter (the OS's randomness), below every layer that makes or checks a code: the daemon's
sender check and config, ``pbem new-game``, the sign-up's start, a seat's new holder and the
judges' address change. (They once came from :mod:`pbem.daemon.auth`, which the config and the
sign-up imported upwards, in import circles.)
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable, Mapping

CodeSource = Callable[[], str]
"""Where fresh codes come from (tests pass a predictable one)."""


def new_code() -> str:
    """A fresh 128-bit code to give a player (or the game masters) once."""
    return secrets.token_hex(16)


def hash_secret(code: str, salt: bytes | None = None) -> dict[str, str]:
    """The stored form of a code: scrypt with a random salt (the code itself is never stored)."""
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.scrypt(code.strip().lower().encode(), salt=salt, n=2**14, r=8, p=1, dklen=32)
    return {"salt": salt.hex(), "hash": digest.hex()}


def verify_secret(code: str, stored: Mapping[str, str]) -> bool:
    """Whether ``code`` is the one ``stored`` (:func:`hash_secret`'s form) was made from."""
    got = hash_secret(code, bytes.fromhex(stored["salt"]))["hash"]
    return hmac.compare_digest(got, stored["hash"])
