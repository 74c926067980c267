"""How many random examples a property test tries: a few in ``make test``, the long form in
``make soak-properties`` (``PBEM_SOAK=1``).

A property test of the games plays whole bot games, each one hundreds of commands through the
real pipeline; hypothesis draws new seeds on every run, so the runs of ``make test`` add up to
the long form over time, while one run stays short. The long form is the number each test was
written with, kept for a deliberate search (after a change of the rules, before a release).
"""

from __future__ import annotations

import os

SOAK = os.environ.get("PBEM_SOAK", "") not in ("", "0")
"""``PBEM_SOAK=1``: every property test tries its long-form number of examples."""


def examples(quick: int, *, soak: int) -> int:
    """``quick`` examples in ``make test``, ``soak`` with ``PBEM_SOAK=1``."""
    return soak if SOAK else quick
