"""Chasse aux sorcières' cards, sides, once-per-game powers and the words naming them
(CAS-010..CAS-015, CAS-D30)."""

from __future__ import annotations

from collections.abc import Mapping

DEMON, INNOCENT, PHOEBE, PRUE, COOP = "demon", "innocent", "phoebe", "prue", "coop"

PIPER, PAIGE, LEO, BILLIE, COLE = "piper", "paige", "leo", "billie", "cole"

ROLES = (DEMON, INNOCENT, PHOEBE, PRUE, COOP, PIPER, PAIGE, LEO, BILLIE, COLE)

DEMONS, GOOD, LOVERS = "demons", "good", "lovers"

CARD_OF: Mapping[str, str] = {
    "take": LEO,
    "keep": LEO,
    "lovers": COOP,
    "scan": PHOEBE,
    "swap": COLE,
    "burn": PIPER,
    "heal": PAIGE,
}

ONCE_PER_GAME = (PIPER, PAIGE)  # CAS-340, CAS-350; COLE's power ends too (CAS-394)

ROLE_WORDS: Mapping[str, tuple[str, ...]] = {
    DEMON: ("DEMON", "DÉMON", "DEMONS"),
    INNOCENT: ("INNOCENT", "SIMPLE INNOCENT"),
    PHOEBE: ("PHOEBE",),
    PRUE: ("PRUE",),
    COOP: ("COOP",),
    PIPER: ("PIPER",),
    PAIGE: ("PAIGE",),
    LEO: ("LEO", "LÉO"),
    BILLIE: ("BILLIE",),
    COLE: ("COLE",),
}


def faction(role: str) -> str:
    """CAS-014, CAS-015: a player's side is that of the card he holds."""
    return DEMONS if role == DEMON else GOOD


# CAS-D30: nicknames may not be a role name.
RESERVED = (*(w for words in ROLE_WORDS.values() for w in words), "PENNY")
