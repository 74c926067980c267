"""The bots' own sample draws what ``random.Random.sample`` draws (issue 23): a different
draw would change every simulated game and the odds tables built from them."""

from __future__ import annotations

import random

from pbem.tools.bots import sample

NAMES = [f"p{i}" for i in range(25)]


def test_the_bots_sample_is_random_sample() -> None:
    for n in range(25):  # beyond 21 names it hands over to random.Random.sample itself
        for k in range(min(n, 8) + 1):
            for seed in range(5):
                mine, theirs = random.Random(seed), random.Random(seed)
                assert sample(mine, NAMES[:n], k) == theirs.sample(NAMES[:n], k), (n, k, seed)
                assert mine.getstate() == theirs.getstate()
