"""Chasse aux sorcières' nights as tables: the email sub-phases (CAS-220, CAS-221), their
durations, the resolution priorities and which sub-phase collects which command."""

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


# The seed's step numbers are the resolution priorities (CAS-210..CAS-217, CAS-223, CAS-225).
NIGHT_STEPS: Mapping[str, int] = {
    "take": 4,
    "lovers": 5,
    "scan": 7,
    "kill": 8,
    "swap": 9,
    "burn": 10,
    "heal": 11,
}

# Which sub-phase collects which command, and which card may send it ("kill": the council).
SUBPHASE_OF: Mapping[str, str] = {
    "take": "L",
    "keep": "L",
    "lovers": "C",
    "scan": "W1",
    "kill": "W1",
    "swap": "W1",
    "burn": "W2",
    "heal": "W2",
}
