"""Loup-Garou's identities as one table of role records, the night's steps and the words the
players use (LG-010..LG-118, LG-617..LG-621)."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.core.match import fold
from pbem.core.roles import Action, Role, by_id, priorities, role_ids, teams

WOLF, MASTER, VILLAGER, THIEF = "werewolf", "master_wolf", "villager", "thief"

SEER, WITCH, GIRL, ELDER, PIPER = "seer", "witch", "little_girl", "elder", "pied_piper"

VILLAGERS, WOLVES, PIPER_SIDE, LOVERS = "villagers", "wolves", "pied_piper", "lovers"

# LG-211, LG-321, LG-322: the thief's nights and the choices open on each (the thief's hook).
THIEF_NIGHTS: Mapping[int, tuple[str, ...]] = {2: ("wolf",), 7: ("wolf", "villager")}

# The cards in the deck's order (LG-010): the initial team (LG-011), the copies of the 16-card
# deck, the commands each owns (the council's KILL and LOUPS belong to the wolves' team, LG-510),
# and its prompt. The odd cards keep hooks in the phase modules: the witch's two potions
# (LG-350), the thief's choices (LG-321), the little girl's matchmaking night (LG-220).
ROLE_TABLE: tuple[Role, ...] = (
    Role(WOLF, WOLVES),
    Role(MASTER, WOLVES, (Action("bite", phase="bite", once_per_game=True),)),  # LG-610
    Role(VILLAGER, VILLAGERS, copies=8),
    Role(
        THIEF,
        VILLAGERS,
        (Action("become", nights=tuple(THIEF_NIGHTS)),),  # LG-621
        prompt="loupgarou/thief_prompt",
    ),
    Role(SEER, VILLAGERS, (Action("scan"),), prompt="loupgarou/seer_prompt"),  # LG-611
    Role(
        WITCH,
        VILLAGERS,
        (
            Action("save", once_per_game=True),  # LG-350, LG-613
            Action("poison", priority=6, once_per_game=True),  # LG-225, LG-614
        ),
        prompt="loupgarou/witch_prompt",
    ),
    Role(
        GIRL,
        VILLAGERS,
        (Action("ask"), Action("lovers", nights=(2,))),  # LG-617, LG-220
        prompt="loupgarou/girl_prompt",
    ),
    Role(ELDER, VILLAGERS),
    Role(PIPER, PIPER_SIDE, (Action("charm"),), prompt="loupgarou/piper_prompt"),  # LG-619
)

ROLES = role_ids(ROLE_TABLE)
CARDS: Mapping[str, Role] = by_id(ROLE_TABLE)
# LG-011: the initial team of each identity.
INITIAL_TEAM: Mapping[str, str] = teams(ROLE_TABLE)
# LG-D19: the identities whose powers the Ancien's death takes from a Villager: the Villagers'
# cards that own a command.
POWERED = tuple(r.id for r in ROLE_TABLE if r.team == VILLAGERS and r.actions)
# LG-224, LG-225: the priorities of the night's intents in the kernel's loop (lower first): the
# wolves' attack (the council's), then the witch's poison.
NIGHT_ORDER: Mapping[str, int] = {"wolves": 5, **priorities(ROLE_TABLE)}
# The night verbs and the identity that holds each (the council's are by team, LG-510).
NIGHT_ROLES: Mapping[str, str] = {
    a.verb: r.id for r in ROLE_TABLE for a in r.actions if a.phase == "night"
}

# Section 4.3 as a table: the night's steps in the order they resolve (the attacks step runs
# the kernel's loop on the wolves' and the potion's intents, ordered by NIGHT_ORDER).
NIGHT_STEPS = ("lovers", "charm", "scan", "ask", "attacks", "grief", "become")

# LG-115, LG-116: which sides each checkpoint examines, in priority order.
CHECKPOINTS: Mapping[str, tuple[str, ...]] = {
    "dawn": (LOVERS, PIPER_SIDE, WOLVES, VILLAGERS),
    "lynch": (LOVERS, WOLVES, VILLAGERS),
}


CONDITIONS = ("mayor", "lover", "charmed", "young_wolf", "idiot")

QUESTIONS: Mapping[str, tuple[str, ...]] = {  # LG-617, LG-618
    "wolves": ("LOUPS", "WOLVES", "LOUP", "WOLF", "1"),
    "seer": ("VOYANTE", "SEER", "2"),
    "piper": ("FLUTE", "PIPER", "JOUEUR DE FLUTE", "3"),
    "conditions": ("CONDITIONS", "CONDITION", "4"),
}

BECOME: Mapping[str, tuple[str, ...]] = {  # LG-621
    "wolf": ("LOUP", "WOLF", "LOUP-GAROU", "WEREWOLF"),
    "villager": ("VILLAGEOIS", "VILLAGER"),
}

# How a reply restates them (French, English).
QUESTION_LABELS: Mapping[str, tuple[str, str]] = {
    "wolves": ("LOUPS", "WOLVES"),
    "seer": ("VOYANTE", "SEER"),
    "piper": ("FLUTE", "PIPER"),
    "conditions": ("CONDITIONS", "CONDITIONS"),
}

BECOME_LABELS: Mapping[str, tuple[str, str]] = {
    "wolf": ("LOUP", "WOLF"),
    "villager": ("VILLAGEOIS", "VILLAGER"),
}

# LG-D42: words a nickname may not be (besides the command keywords the engine checks).
RESERVED = {fold(w) for words in (*QUESTIONS.values(), *BECOME.values()) for w in words}
