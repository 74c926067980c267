"""The lazily seeded draws of the rules-only fast path are the table's draws (issue 23)."""

from __future__ import annotations

import gc
import random
from collections.abc import Callable
from typing import Any

import pytest

from pbem.core.draws import LazyRandom, draw_rng, lazy_draw_rng

DRAWS: dict[str, Callable[[random.Random], Any]] = {
    "random": lambda r: r.random(),
    "choice": lambda r: r.choice("abcdefghij"),
    "sample": lambda r: r.sample(range(50), 7),
    "shuffle": lambda r: (lambda cards: (r.shuffle(cards), cards)[1])(list(range(20))),
    "randint": lambda r: r.randint(1, 1000),
    "getrandbits": lambda r: r.getrandbits(70),
    "gauss": lambda r: r.gauss(0, 1),  # holds the bound ``random`` across two draws
    "choices": lambda r: r.choices("abc", k=4),
    "uniform": lambda r: r.uniform(0, 3),
}


@pytest.mark.parametrize("first", list(DRAWS))
def test_a_lazy_generator_draws_what_the_eager_one_draws(first: str) -> None:
    eager, lazy = draw_rng(7, 41), lazy_draw_rng(7, 41)
    assert DRAWS[first](lazy) == DRAWS[first](eager)
    assert lazy.getstate() == eager.getstate()
    for draw in DRAWS.values():
        assert draw(lazy) == draw(eager)


def test_a_lazy_generator_that_never_draws_is_never_seeded() -> None:
    lazy = LazyRandom("7:41")
    assert type(lazy) is LazyRandom
    with pytest.raises(TypeError):
        lazy.seed(3)
    assert lazy.getstate() == random.Random("7:41").getstate()


def test_a_seeded_generator_is_freed_without_the_collector() -> None:
    """No reference cycle (a bound method kept on the instance would be one): a game's
    draws are freed as they go, not left for the collector (issue 23)."""
    lazy = lazy_draw_rng(7, 41)
    lazy.random()
    assert not gc.get_referrers(lazy)
