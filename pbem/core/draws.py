"""How every draw of a game derives from its seed: the seed schemes (pure; the seed itself is
drawn and committed in :mod:`pbem.record.seed`, which documents scheme 1 for players)."""

from __future__ import annotations

import random

SEED_SCHEME = 1
"""The scheme of games created now (:mod:`pbem.record.seed` says what scheme 1 is)."""
SCHEMES = frozenset({1})


def deal_rng(seed: int, scheme: int = SEED_SCHEME) -> random.Random:
    """The generator of the deal (the rules' ``setup``)."""
    _check(scheme)
    return random.Random(seed)


def draw_rng(seed: int, ruled: int, scheme: int = SEED_SCHEME) -> random.Random:
    """The generator of the resolution drawn when the rules' log holds ``ruled`` events."""
    _check(scheme)
    return random.Random(f"{seed}:{ruled}")


def idle_rng(seed: int, ruled: int, scheme: int = SEED_SCHEME) -> random.Random:
    """The generator of the idle policy's draws after a resolution (pbem.games.idle)."""
    _check(scheme)
    return random.Random(f"{seed}:idle:{ruled}")


def _check(scheme: int) -> None:
    if scheme not in SCHEMES:
        raise ValueError(f"unknown seed scheme {scheme} (this pbem knows {sorted(SCHEMES)})")
