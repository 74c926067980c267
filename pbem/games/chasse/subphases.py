"""Chasse aux sorcières' nights as tables: the email sub-phases (CAS-220, CAS-221), their
durations (the commands each collects and their steps are in the role table)."""

from __future__ import annotations

from collections.abc import Mapping

# CAS-220, CAS-221: the email sub-phases of a night, in order.
NIGHT_ONE: tuple[str, ...] = ("L", "C", "W1", "W2")

LATER_NIGHT: tuple[str, ...] = ("W1", "W2")

NIGHT_PHASES = frozenset(NIGHT_ONE)

# CAS-D02: the option giving each sub-phase's duration.
DURATION_OF: Mapping[str, str] = {
    "L": "leo_duration",
    "C": "coop_duration",
    "W1": "w1_duration",
    "W2": "w2_duration",
}


def night_sequence(number: int) -> tuple[str, ...]:
    """CAS-220, CAS-221, CAS-226: the sub-phases of night ``number`` (always the same ones)."""
    return NIGHT_ONE if number == 1 else LATER_NIGHT
