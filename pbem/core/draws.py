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
    ``getrandbits``, which seed first, then hand over to the generator's own."""

    def __new__(cls, key: str) -> LazyRandom:  # the C base seeds in __new__, from its argument
        return super().__new__(cls, 0)  # type: ignore[call-arg]  # a cheap seed, replaced first

    def __init__(self, key: str) -> None:  # no super().__init__: it would seed now
        self._key = key
        self.gauss_next = None

    def _seed_now(self) -> None:
        super().seed(self._key)
        # the generator's own methods from now on, without this class's detour
        self.random = super().random  # type: ignore[method-assign]
        self.getrandbits = super().getrandbits  # type: ignore[method-assign]

    # a caller may hold these bound methods (``gauss`` does): they seed once only
    def random(self) -> float:
        if "random" not in self.__dict__:
            self._seed_now()
        return self.__dict__["random"]()  # type: ignore[no-any-return]

    def getrandbits(self, k: int, /) -> int:
        if "getrandbits" not in self.__dict__:
            self._seed_now()
        return self.__dict__["getrandbits"](k)  # type: ignore[no-any-return]

    def seed(self, *args: object, **kwargs: object) -> None:
        raise TypeError("a LazyRandom is seeded by its key")

    def getstate(self) -> tuple[Any, ...]:
        if "random" not in self.__dict__:
            self._seed_now()
        return super().getstate()


def lazy_draw_rng(seed: int, ruled: int, scheme: int = SEED_SCHEME) -> random.Random:
    """:func:`draw_rng`, seeded at its first draw (:class:`LazyRandom`)."""
    _check(scheme)
    return LazyRandom(f"{seed}:{ruled}")


def idle_rng(seed: int, ruled: int, scheme: int = SEED_SCHEME) -> random.Random:
    """The generator of the idle policy's draws after a resolution (pbem.games.idle)."""
    _check(scheme)
    return random.Random(f"{seed}:idle:{ruled}")


def _check(scheme: int) -> None:
    if scheme not in SCHEMES:
        raise ValueError(f"unknown seed scheme {scheme} (this pbem knows {sorted(SCHEMES)})")
