"""Dracula's roles as a table of role records, their sides, and the priorities of the night's
resolution loop.

A Dracula player's powers come from the room he is in and the objects he holds (the manor),
not from a card: the records hold only each role's side (DRA-007; a bitten human becomes a
vampire, DRA-117), and vampires do not know each other (DRA-003).
"""

from __future__ import annotations

from collections.abc import Mapping

from pbem.core.roles import Role, role_ids, teams

DRACULA, VAMPIRE, HUMAN = "dracula", "vampire", "human"
VAMPIRES, HUMANS = "vampires", "humans"

ROLE_TABLE: tuple[Role, ...] = (
    Role(DRACULA, VAMPIRES),
    Role(VAMPIRE, VAMPIRES),
    Role(HUMAN, HUMANS),
)
ROLES = role_ids(ROLE_TABLE)
TEAMS: Mapping[str, str] = teams(ROLE_TABLE)

# Night resolution order (section 21): the priorities of the resolution loop's intents.
ORD_STAKES, ORD_BITES = 11, 12
