"""The Wilson score interval of a proportion: pure, one function, the one place pbem computes
a confidence interval (``pbem balance`` and its odds table, ``pbem stats``)."""

from __future__ import annotations

import math

Z95 = 1.959963984540054
"""The standard normal quantile of 97.5 %: a two-sided 95 % interval."""


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``successes`` out of ``trials`` (0 trials: (0, 1)).

    Unlike the normal approximation it stays inside [0, 1] and is sound near 0 % and 100 %,
    where a rare camp's or role's win rate often lies.
    """
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return max(0.0, centre - half), min(1.0, centre + half)
