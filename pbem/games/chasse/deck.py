"""Chasse aux sorcières' deck: 16 cards for 14 players (CAS-002, CAS-010)."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.games.chasse.roles import (
    BILLIE,
    COLE,
    COOP,
    DEMON,
    INNOCENT,
    LEO,
    PAIGE,
    PHOEBE,
    PIPER,
    PRUE,
)

# CAS-010: the 16 cards for 14 players (CAS-002).
DECK: Mapping[str, int] = {
    DEMON: 4,
    PHOEBE: 1,
    PRUE: 1,
    COOP: 1,
    PIPER: 1,
    PAIGE: 1,
    LEO: 1,
    BILLIE: 1,
    COLE: 1,
    INNOCENT: 4,
}

PLAYERS = 14


def deck_cards(deck: Mapping[str, int]) -> list[str]:
    """The deck's cards, one entry per card."""
    return [role for role, n in deck.items() for _ in range(n)]
