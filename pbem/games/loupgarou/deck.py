"""Loup-Garou's deck (LG-010)."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.core.errors import SetupError
from pbem.games.loupgarou.options import LoupGarouOptions
from pbem.games.loupgarou.roles import (
    MASTER,
    ROLE_TABLE,
    ROLES,
)

# LG-010: the deck, one card per player, in the table's order.
DECK: Mapping[str, int] = {role.id: role.copies for role in ROLE_TABLE}


def game_deck(options: LoupGarouOptions, count: int) -> list[str]:
    """LG-010, LG-002, LG-D01: the 16-card deck, or a custom deck of one card per player."""
    if options.custom_deck:
        deck = list(options.custom_deck)
        unknown = sorted(set(deck) - set(ROLES))
        if unknown:
            raise SetupError(f"custom_deck: unknown role {unknown[0]!r}")
        if deck.count(MASTER) != 1:
            raise SetupError("custom_deck: exactly one master_wolf (LG-D01)")
        if len(deck) != count:
            raise SetupError(f"custom_deck: {len(deck)} cards for {count} players (LG-D01)")
        return deck
    if count != sum(DECK.values()):
        raise SetupError(f"Loup-Garou is played by exactly 16 players, not {count} (LG-002)")
    return [role for role, n in DECK.items() for _ in range(n)]
