"""Loup-Garou's deck (LG-010)."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.core.errors import SetupError
from pbem.games.loupgarou.options import LoupGarouOptions
from pbem.games.loupgarou.roles import (
    ELDER,
    GIRL,
    MASTER,
    PIPER,
    ROLES,
    SEER,
    THIEF,
    VILLAGER,
    WITCH,
    WOLF,
)

# LG-010: the deck, one card per player.
DECK: Mapping[str, int] = {
    WOLF: 1,
    MASTER: 1,
    VILLAGER: 8,
    THIEF: 1,
    SEER: 1,
    WITCH: 1,
    GIRL: 1,
    ELDER: 1,
    PIPER: 1,
}


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
