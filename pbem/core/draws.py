"""How every draw of a game derives from its seed: the seed schemes (pure; the seed itself is
drawn and committed in :mod:`pbem.record.seed`, which documents scheme 1 for players)."""

from __future__ import annotations

import random
from typing import Any

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


class LazyRandom(random.Random):
    """``random.Random(key)``, seeded only when it first draws: most closes of a game draw
    nothing, and seeding from a string (SHA-512, then the Mersenne Twister's 624 words) is
    the dearest part of a close that draws nothing (issue 23). Its draws are those of
    ``random.Random(key)``: every method of ``random.Random`` draws through ``random`` or
    ``getrandbits``, which seed first; the seeded generator then becomes a plain
    :class:`SeededRandom` (no detour, and no bound method kept on the instance: that would
    be a reference cycle, left to the collector)."""

    def __new__(cls, key: str) -> LazyRandom:  # the C base seeds in __new__, from its argument
        return super().__new__(cls, 0)  # type: ignore[call-arg]  # a cheap seed, replaced first

    def __init__(self, key: str) -> None:  # no super().__init__: it would seed now
        self._key = key
        self.gauss_next = None

    def _seed_now(self) -> None:
        random.Random.seed(self, self._key)
        self.__class__ = SeededRandom  # type: ignore[assignment]  # same layout

    # a caller may hold these bound methods (``gauss`` does): they seed once only
    def random(self) -> float:
        """A draw of ``random.Random(key)``, seeding it first."""
        if type(self) is LazyRandom:
            self._seed_now()
        return _RANDOM(self)

    def getrandbits(self, k: int, /) -> int:
        """``k`` random bits of ``random.Random(key)``, seeding it first."""
        if type(self) is LazyRandom:
            self._seed_now()
        return _GETRANDBITS(self, k)

    def seed(self, *args: object, **kwargs: object) -> None:
        """Refused: a LazyRandom's seed is its key, given once."""
        raise TypeError("a LazyRandom is seeded by its key")

    def getstate(self) -> tuple[Any, ...]:
        """The generator's state, seeding it first (so it is ``random.Random(key)``'s)."""
        self._seed_now()
        return random.Random.getstate(self)


class SeededRandom(random.Random):
    """A :class:`LazyRandom` once seeded: ``random.Random`` itself."""


_RANDOM = random.Random.random
_GETRANDBITS = random.Random.getrandbits


def lazy_draw_rng(seed: int, ruled: int, scheme: int = SEED_SCHEME) -> random.Random:
    """:func:`draw_rng`, seeded at its first draw (:class:`LazyRandom`)."""
    _check(scheme)
    return LazyRandom(f"{seed}:{ruled}")


def idle_rng(seed: int, ruled: int, scheme: int = SEED_SCHEME) -> random.Random:
    """The generator of the idle policy's draws after a resolution (pbem.games.idle): seeded
    at its first draw, since only a removal draws (:class:`LazyRandom`)."""
    _check(scheme)
    return LazyRandom(f"{seed}:idle:{ruled}")


def _check(scheme: int) -> None:
    if scheme not in SCHEMES:
        raise ValueError(f"unknown seed scheme {scheme} (this pbem knows {sorted(SCHEMES)})")
