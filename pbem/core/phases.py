"""A game's phases as a closed set: each game names its own as a ``Literal`` type (so that a
comparison with a phase it does not have is a type error), and :func:`phase_of` reads the
phase a :class:`~pbem.core.events.PhaseStarted` event holds as one of them."""

from __future__ import annotations

from typing import TypeVar

P = TypeVar("P", bound=str)


def phase_of(value: str, phases: tuple[P, ...]) -> P:
    """``value`` as one of ``phases``; ValueError if it is none of them (a log of another
    game, or a rule that started a phase its game does not declare)."""
    if value in phases:  # one C-level scan, not a Python loop: read at every PhaseStarted
        return value
    raise ValueError(f"phase {value!r} is not one of {', '.join(phases)}")
