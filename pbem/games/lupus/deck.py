"""Lupus in Tabula's deck: recommended (LUP-017) or custom (LUP-D01)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pbem.core.errors import SetupError
from pbem.games.lupus.roles import CARDS, SEER, SPECIAL_MINIMUM, VILLAGER, WOLF


def standard_deck(n: int) -> list[str]:
    """LUP-017: the recommended deck for ``n`` players (LUP-D01)."""
    wolves = 3 if n >= 16 else 2  # LUP-012, LUP-013
    specials = [role for role, minimum in SPECIAL_MINIMUM.items() if n >= minimum]
    specials = [role for role in specials for _ in range(CARDS[role].copies)]  # LUP-016
    return [WOLF] * wolves + specials + [VILLAGER] * (n - wolves - len(specials))


def custom_deck(n: int, specials: Sequence[str]) -> tuple[list[str], list[str]]:
    """LUP-D01 custom deck: validated; returns the deck and the below-minimum warnings."""
    counts = Counter(specials)
    for role, k in counts.items():
        if role not in SPECIAL_MINIMUM:
            raise SetupError(f"custom deck: {role!r} is not a special character")
        copies = CARDS[role].copies
        if copies == 2 and k != 2:
            raise SetupError("custom deck: the Masons are always two cards (LUP-016)")
        if copies == 1 and k > 1:
            raise SetupError(f"custom deck: at most one {role}")
    if SEER not in counts:
        raise SetupError("custom deck: the Seer is always in the deck (LUP-011)")
    wolves = 3 if n >= 16 else 2
    if wolves + len(specials) > n:
        raise SetupError(f"custom deck: {wolves + len(specials)} cards for {n} players")
    warnings = sorted(r for r in counts if n < SPECIAL_MINIMUM[r])
    order = list(SPECIAL_MINIMUM)
    ordered = sorted(specials, key=order.index)
    return [WOLF] * wolves + ordered + [VILLAGER] * (n - wolves - len(specials)), warnings


def deck_counts(deck: Sequence[str]) -> dict[str, int]:
    """The number of cards of each role, in the deck's order (LUP-017's table: the wolves,
    the special characters, the villagers), counted without a Counter: every game's opening
    tells them (1,000 games created, issue 23)."""
    counts: dict[str, int] = {}
    for role in _ORDER:
        copies = deck.count(role)
        if copies:
            counts[role] = copies
    return counts


_ORDER = (WOLF, *SPECIAL_MINIMUM, VILLAGER)
"""The roles in the order a deck is told (:func:`deck_counts`)."""
