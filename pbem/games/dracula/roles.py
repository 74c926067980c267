"""Dracula's roles, sides and the priorities of the night's resolution loop."""

from __future__ import annotations

DRACULA, VAMPIRE, HUMAN = "dracula", "vampire", "human"
ROLES = (DRACULA, VAMPIRE, HUMAN)
VAMPIRES, HUMANS = "vampires", "humans"

# Night resolution order (section 21): the priorities of the resolution loop's intents.
ORD_STAKES, ORD_BITES = 11, 12
