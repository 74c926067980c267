"""Loup-Garou's identities, teams, night steps and the words the players use (LG-010..LG-118,
LG-617..LG-621)."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.core.match import fold

WOLF, MASTER, VILLAGER, THIEF = "werewolf", "master_wolf", "villager", "thief"

SEER, WITCH, GIRL, ELDER, PIPER = "seer", "witch", "little_girl", "elder", "pied_piper"

ROLES = (WOLF, MASTER, VILLAGER, THIEF, SEER, WITCH, GIRL, ELDER, PIPER)

VILLAGERS, WOLVES, PIPER_SIDE, LOVERS = "villagers", "wolves", "pied_piper", "lovers"

# LG-011: the initial team of each identity (every other identity is a Villager).
INITIAL_TEAM: Mapping[str, str] = {WOLF: WOLVES, MASTER: WOLVES, PIPER: PIPER_SIDE}

# LG-D19: the identities whose powers the Ancien's death takes from a Villager.
POWERED = (SEER, WITCH, GIRL, THIEF)

# LG-224, LG-225: the priorities of the night's intents in the kernel's loop (lower first).
NIGHT_ORDER: Mapping[str, int] = {"wolves": 5, "poison": 6}

# Section 4.3 as a table: the night's steps in the order they resolve (the attacks step runs
# the kernel's loop on the wolves' and the potion's intents, ordered by NIGHT_ORDER).
NIGHT_STEPS = ("lovers", "charm", "scan", "ask", "attacks", "grief", "become")

# LG-115, LG-116: which sides each checkpoint examines, in priority order.
CHECKPOINTS: Mapping[str, tuple[str, ...]] = {
    "dawn": (LOVERS, PIPER_SIDE, WOLVES, VILLAGERS),
    "lynch": (LOVERS, WOLVES, VILLAGERS),
}

# LG-211, LG-321, LG-322: the thief's nights and the choices open on each.
THIEF_NIGHTS: Mapping[int, tuple[str, ...]] = {2: ("wolf",), 7: ("wolf", "villager")}

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

# The night verbs and the identity that holds each (the council's are by team, LG-510).
NIGHT_ROLES: Mapping[str, str] = {
    "scan": SEER,
    "save": WITCH,
    "poison": WITCH,
    "ask": GIRL,
    "lovers": GIRL,
    "charm": PIPER,
    "become": THIEF,
}
