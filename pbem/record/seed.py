"""Every draw of a game from one committed seed: the derivation, its version, the commitment.

A game's randomness (the deal, tie-break draws, random successors, object deals, random
pairings, random defaults, the idle policy's draws) comes from ``setup.seed`` alone, drawn by
``pbem new-game`` / ``pbem open-game`` with :mod:`secrets` (256 bits) when the operator gives
none. The opening post publishes :func:`commitment` (SHA-256 of the seed's decimal digits);
the archive and ``pbem export`` reveal the seed, so anyone can recompute every draw.

Seed scheme 1 (``seed_scheme: 1`` in the setup and the record), CPython's ``random.Random``
(MT19937), whose seeding is part of the language's documented, stable behaviour:

- the deal: ``random.Random(seed)`` with the integer seed (``init_by_array`` of its 32-bit
  words, least significant first);
- the resolution that closes a phase, when the rules' log holds ``n`` events (desk acts and
  voided events not counted): ``random.Random(f"{seed}:{n}")``, a str seeded by version 2
  (the UTF-8 bytes followed by their SHA-512 digest, read as one big-endian integer);
- the idle policy's draws after that resolution: ``random.Random(f"{seed}:idle:{n}")``.

The draws themselves are the generator's ``random()``, ``choice``, ``shuffle``, ``sample``
as the rules call them; replaying the rules with these generators (``pbem verify`` on an
exported record) recomputes them. A new derivation gets a new scheme number; this module keeps
every scheme it ever had so that old records still replay.
"""

from __future__ import annotations

import hashlib
import secrets

SEED_BITS = 256


def new_seed() -> int:
    """A fresh secret seed from the OS's CSPRNG: 256 bits, so that its published SHA-256
    cannot be searched for it (a 32-bit seed could be found from its digest in minutes)."""
    return secrets.randbits(SEED_BITS)


def commitment(seed: int) -> str:
    """The commitment the opening post publishes: SHA-256 of the seed's decimal digits, hex
    (``printf '%s' SEED | sha256sum``)."""
    return hashlib.sha256(str(seed).encode("ascii")).hexdigest()
