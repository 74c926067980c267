"""Chasse aux sorcières' deck: 16 cards for 14 players (CAS-002, CAS-010)."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.games.chasse.roles import INNOCENT, ROLE_TABLE

# CAS-010: the 16 cards for 14 players (CAS-002), in the seed's order.
DECK: Mapping[str, int] = {
    role.id: role.copies for role in sorted(ROLE_TABLE, key=lambda r: r.id == INNOCENT)
}  # the seed lists the Demons, the special cards, then the Innocents
PLAYERS = 14


def deck_cards(deck: Mapping[str, int]) -> list[str]:
    """The deck's cards, one entry per card."""
    return [role for role, n in deck.items() for _ in range(n)]
