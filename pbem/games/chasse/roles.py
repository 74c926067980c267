"""Chasse aux sorcières' cards as one table of role records (CAS-010..CAS-015, CAS-D30).

Each record gives the card's side (CAS-014, CAS-015: the side of the card held), its copies in
the 16-card deck (CAS-010), the words naming it (CAS-D30), the commands it owns with the
sub-phase that collects each (CAS-220, CAS-221) and its step in the night's resolution
(CAS-210..CAS-217), and its prompt. The odd cards keep their hooks in the phase modules: Léo
exchanges with the leftover cards (CAS-360..CAS-364), Cole swaps cards until he becomes a
Demon (CAS-391..CAS-397), Prue's revenge is a window of its own (CAS-D18).
"""

from __future__ import annotations

from collections.abc import Mapping

from pbem.core.roles import Action, Role, by_id, priorities, role_ids, teams, verb_owners, words_of

DEMON, INNOCENT, PHOEBE, PRUE, COOP = "demon", "innocent", "phoebe", "prue", "coop"
PIPER, PAIGE, LEO, BILLIE, COLE = "piper", "paige", "leo", "billie", "cole"
DEMONS, GOOD, LOVERS = "demons", "good", "lovers"

ROLE_TABLE: tuple[Role, ...] = (
    Role(DEMON, DEMONS, copies=4, words=("DEMON", "DÉMON", "DEMONS")),
    Role(INNOCENT, GOOD, copies=4, words=("INNOCENT", "SIMPLE INNOCENT")),
    Role(
        PHOEBE,
        GOOD,
        (Action("scan", priority=7, phase="W1"),),
        words=("PHOEBE",),
        prompt="chasse/phoebe_prompt",
    ),
    Role(PRUE, GOOD, words=("PRUE",), prompt="chasse/revenge_prompt"),
    Role(
        COOP,
        GOOD,
        (Action("lovers", priority=5, phase="C", nights=(1,)),),
        words=("COOP",),
        prompt="chasse/coop_prompt",
    ),
    Role(
        PIPER,
        GOOD,
        (Action("burn", priority=10, phase="W2", once_per_game=True),),  # CAS-340
        words=("PIPER",),
        prompt="chasse/piper_prompt",
    ),
    Role(
        PAIGE,
        GOOD,
        (Action("heal", priority=11, phase="W2", once_per_game=True),),  # CAS-350
        words=("PAIGE",),
        prompt="chasse/paige_prompt",
    ),
    Role(
        LEO,
        GOOD,
        (
            Action("take", priority=4, phase="L", nights=(1,)),
            Action("keep", phase="L", nights=(1,)),
        ),
        words=("LEO", "LÉO"),
        prompt="chasse/leo_prompt",
    ),
    Role(BILLIE, GOOD, words=("BILLIE",)),  # sits in the Demons' council (CAS-214, CAS-D10)
    Role(
        COLE,
        GOOD,
        (Action("swap", priority=9, phase="W1"),),  # CAS-394: ends when Cole becomes a Demon
        words=("COLE",),
        prompt="chasse/cole_prompt",
    ),
)

# The council's kill (the living Demons and Billie, CAS-214): an action of no single card.
COUNCIL_KILL = Action("kill", priority=8, phase="W1")

ROLES = role_ids(ROLE_TABLE)
CARDS: Mapping[str, Role] = by_id(ROLE_TABLE)
CARD_OF: Mapping[str, str] = verb_owners(ROLE_TABLE)
TEAMS: Mapping[str, str] = teams(ROLE_TABLE)
ROLE_WORDS: Mapping[str, tuple[str, ...]] = words_of(ROLE_TABLE)
ONCE_PER_GAME = tuple(r.id for r in ROLE_TABLE if any(a.once_per_game for a in r.actions))
# The seed's step numbers are the resolution priorities (CAS-210..CAS-217, CAS-223, CAS-225).
NIGHT_STEPS: Mapping[str, int] = priorities((*ROLE_TABLE, Role("council", DEMONS, (COUNCIL_KILL,))))
# Which sub-phase collects which command (CAS-220, CAS-221).
SUBPHASE_OF: Mapping[str, str] = {a.verb: a.phase for r in ROLE_TABLE for a in r.actions} | {
    COUNCIL_KILL.verb: COUNCIL_KILL.phase
}


def faction(role: str) -> str:
    """CAS-014, CAS-015: a player's side is that of the card he holds."""
    return TEAMS[role]


# CAS-D30: nicknames may not be a role name.
RESERVED = (*(w for words in ROLE_WORDS.values() for w in words), "PENNY")
