"""Chasse aux sorcières' nights as tables: the email sub-phases (CAS-220, CAS-221), their
durations (the commands each collects and their steps are in the role table)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, get_args

ChassePhase = Literal["setup", "L", "C", "W1", "W2", "day", "tiebreak", "revenge", "over"]
"""A night's email sub-phases (CAS-220, CAS-221), the day, its tie-break and Prue's revenge;
``over`` once ended."""
CHASSE_PHASES: tuple[ChassePhase, ...] = get_args(ChassePhase)

# CAS-220, CAS-221: the email sub-phases of a night, in order.
NIGHT_ONE: tuple[ChassePhase, ...] = ("L", "C", "W1", "W2")

LATER_NIGHT: tuple[ChassePhase, ...] = ("W1", "W2")

NIGHT_PHASES = frozenset(NIGHT_ONE)

# CAS-D02: the option giving each sub-phase's duration.
DURATION_OF: Mapping[str, str] = {
    "L": "leo_duration",
    "C": "coop_duration",
    "W1": "w1_duration",
    "W2": "w2_duration",
}


def night_sequence(number: int) -> tuple[ChassePhase, ...]:
    """CAS-220, CAS-221, CAS-226: the sub-phases of night ``number`` (always the same ones)."""
    return NIGHT_ONE if number == 1 else LATER_NIGHT
