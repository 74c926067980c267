"""Lupus in Tabula's cards as one table of role records (LUP-010..LUP-102, LUP-216).

The table's order is the deck's order (LUP-015: the werewolves, the villagers, then the special
characters by their recommended minimum). Everything else the rules know of a card is derived
from it; the one odd card, the Mythomaniac, takes the card he copies on Night 2 (LUP-381: a
hook in :mod:`pbem.games.lupus.night`) and then plays it and wins with its side.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from pbem.core.roles import (
    Action,
    Role,
    by_id,
    knowing_partners,
    priorities,
    role_ids,
    teams,
    verb_owners,
)
from pbem.games.village.state import Seat

WOLF, VILLAGER, SEER, MEDIUM, POSSESSED = "werewolf", "villager", "seer", "medium", "possessed"
BODYGUARD, OWL, MASON, HAMSTER, MYTH = "bodyguard", "owl", "mason", "werehamster", "mythomaniac"
WEREWOLVES, VILLAGERS, HAMSTER_SIDE = "werewolves", "villagers", "werehamster"

# Priorities: the night's resolution order (LUP-216, LUP-D04), lower first. min_players: the
# recommended minimum table of each special character (LUP-015). partners_know: the werewolves
# (LUP-D05), the two Seers (LUP-D07) and the Masons (LUP-360) know each other.
ROLE_TABLE: tuple[Role, ...] = (
    Role(
        WOLF,
        WEREWOLVES,
        (Action("kill", priority=3),),
        prompt="lupus/wolves_prompt",
        partners_know=True,
    ),
    Role(VILLAGER, VILLAGERS),
    Role(
        SEER,
        VILLAGERS,
        (Action("scan", priority=1, allow_self=False),),  # LUP-610
        min_players=8,
        prompt="lupus/seer_prompt",
        partners_know=True,
    ),
    Role(MEDIUM, VILLAGERS, min_players=9),
    Role(POSSESSED, WEREWOLVES, min_players=10),
    Role(
        BODYGUARD,
        VILLAGERS,
        (Action("protect", priority=2, allow_self=False),),  # LUP-611
        min_players=11,
        prompt="lupus/bodyguard_prompt",
    ),
    Role(
        OWL, VILLAGERS, (Action("nominate", priority=4),), min_players=12, prompt="lupus/owl_prompt"
    ),
    Role(MASON, VILLAGERS, copies=2, min_players=13, partners_know=True),  # LUP-016
    Role(HAMSTER, HAMSTER_SIDE, min_players=15),
    Role(
        MYTH,
        VILLAGERS,
        (Action("copy", priority=5, nights=(2,), allow_self=False),),  # LUP-380, LUP-616
        min_players=16,
        prompt="lupus/myth_prompt",
    ),
)

ROLES = role_ids(ROLE_TABLE)
CARDS: Mapping[str, Role] = by_id(ROLE_TABLE)
SPECIAL_MINIMUM: Mapping[str, int] = {r.id: r.min_players for r in ROLE_TABLE if r.min_players}
NIGHT_ORDER: Mapping[str, int] = priorities(ROLE_TABLE)
NIGHT_VERBS: Mapping[str, str] = verb_owners(ROLE_TABLE)
TEAMS: Mapping[str, str] = teams(ROLE_TABLE)
KNOW_EACH_OTHER = knowing_partners(ROLE_TABLE)


def faction(seat: Seat) -> str:
    """LUP-100..LUP-102: the side a player wins with, his card's (a converted Mythomaniac
    follows the card he took)."""
    return TEAMS[seat.role]


@functools.cache  # asked for every living player at every close and every bot's round
def acts_on_night(role: str, number: int) -> bool:
    """The card has a night action it may send on night ``number``."""
    return any(not a.nights or number in a.nights for a in CARDS[role].actions)
