"""Lupus in Tabula's roles, sides and night order (LUP-010..LUP-102, LUP-216)."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.games.village.state import Seat

WOLF, VILLAGER, SEER, MEDIUM, POSSESSED = "werewolf", "villager", "seer", "medium", "possessed"

BODYGUARD, OWL, MASON, HAMSTER, MYTH = "bodyguard", "owl", "mason", "werehamster", "mythomaniac"

ROLES = (WOLF, VILLAGER, SEER, MEDIUM, POSSESSED, BODYGUARD, OWL, MASON, HAMSTER, MYTH)

# LUP-015: recommended minimum player count of each special character, in deck order.
SPECIAL_MINIMUM: Mapping[str, int] = {
    SEER: 8,
    MEDIUM: 9,
    POSSESSED: 10,
    BODYGUARD: 11,
    OWL: 12,
    MASON: 13,
    HAMSTER: 15,
    MYTH: 16,
}

# Night resolution order (LUP-216, LUP-D04); lower runs first.
NIGHT_ORDER: Mapping[str, int] = {"scan": 1, "protect": 2, "kill": 3, "nominate": 4, "copy": 5}

WEREWOLVES, VILLAGERS, HAMSTER_SIDE = "werewolves", "villagers", "werehamster"


def faction(seat: Seat) -> str:
    """LUP-100..LUP-102: the side a player wins with (a converted Mythomaniac follows his card)."""
    if seat.role in (WOLF, POSSESSED):
        return WEREWOLVES
    if seat.role == HAMSTER:
        return HAMSTER_SIDE
    return VILLAGERS


NIGHT_VERBS = {"scan": SEER, "protect": BODYGUARD, "kill": WOLF, "nominate": OWL, "copy": MYTH}
