"""Dracula's manor: its rooms with their keywords (section 0.3) and its objects (DRA-202,
DRA-340)."""

from __future__ import annotations

from collections.abc import Mapping

# Section 0.3: rooms and their keywords.
BOUDOIR, BALLROOM, DUNGEONS, TORTURE, SANCTUARY = (
    "boudoir",
    "ballroom",
    "dungeons",
    "torture",
    "sanctuary",
)
ORDINARY: tuple[str, ...] = (BOUDOIR, BALLROOM, DUNGEONS, TORTURE)
ROOM_WORDS: Mapping[str, tuple[str, ...]] = {
    BOUDOIR: ("BOUDOIR",),
    BALLROOM: ("BAL", "SALLE DE BAL", "BALLROOM"),
    DUNGEONS: ("GEOLES", "GEÔLES", "DUNGEONS"),
    TORTURE: ("TORTURE", "SALLE DE TORTURE", "TORTURE CHAMBER"),
}
ROOM_LABELS: Mapping[str, tuple[str, str]] = {
    # How a receipt or a quick action writes each room (French, English), as the seed names
    # them (section 0.3, DRA-011): never the internal id (« PIECE BALLROOM » to a French
    # player). Each label is one of the room's keywords, so a quick action sends it as is.
    BOUDOIR: ("BOUDOIR", "BOUDOIR"),
    BALLROOM: ("SALLE DE BAL", "BALLROOM"),
    DUNGEONS: ("GEÔLES", "DUNGEONS"),
    TORTURE: ("SALLE DE TORTURE", "TORTURE CHAMBER"),
    SANCTUARY: ("SANCTUAIRE", "SANCTUARY"),
}

# Objects (DRA-202, DRA-340).
CRUCIFIX, GARLIC, CANDLE, MAGNIFIER, KEY, STAKE = (
    "crucifix",
    "garlic",
    "candle",
    "magnifier",
    "key",
    "stake",
)
MANUAL, GRIMOIRE, PAINTKIT, PHONOGRAPH = "manual", "grimoire", "paintkit", "phonograph"
NORMAL_OBJECTS: tuple[str, ...] = (
    CRUCIFIX,
    GARLIC,
    CANDLE,
    CANDLE,
    MAGNIFIER,
    MAGNIFIER,
    MAGNIFIER,
    KEY,
    STAKE,
    STAKE,
    STAKE,
)
SPECIAL_OBJECTS: tuple[str, ...] = (MANUAL, GRIMOIRE, PAINTKIT, PHONOGRAPH)
START_FLOOR: Mapping[str, tuple[str, ...]] = {  # DRA-340
    DUNGEONS: (MANUAL,),
    TORTURE: (GRIMOIRE,),
    BOUDOIR: (PAINTKIT,),
    BALLROOM: (PHONOGRAPH,),
}
