"""Labels and sentences that name a group of players agree with them, as a careful MJ writes
them: one name agrees with that player, several take the feminine plural only when every one
is a woman (« Nommées : Alice et Chloé », « Nommés : Alice et Bruno »); English counts them
(« Nominee: Alice »)."""

from __future__ import annotations

from typing import Any

import pytest

from pbem.mail.render import Renderer

T = "2026-01-08T00:00:00+00:00"
WOMEN = {"Alice": "f", "Chloé": "f", "Inès": "f"}
MIXED = {"Alice": "f", "Bruno": "m", "Chloé": "f"}
DURATIONS = {k: 3600 for k in ("night", "debate", "round1", "defence", "round2", "L", "C")}
DURATIONS |= {k: 3600 for k in ("W1", "W2", "day", "day1", "pairing", "room_choice", "bites")}
DURATIONS |= {"final_choice": 3600}

LUPUS_STATUS = {
    "role": "villager",
    "faction": "villagers",
    "alive": True,
    "partners": [],
    "phase": "round2",
    "number": 2,
    "deadlines": {},
    "pending": [],
    "vote": None,
}
ROUND1 = {"day": 2, "votes": [], "counts": [], "draws": [], "outcome": "defence", "owl": None}
CASES: list[tuple[str, str, str, dict[str, Any], str | tuple[str, ...]]] = [
    # LUP-622, LUP-741: the status and round 1's result name the nominees
    (
        "LUP-622",
        "fr",
        "lupus/status",
        {
            **LUPUS_STATUS,
            "name": "Bruno",
            "nominees": ["Alice", "Chloé"],
            "living": ["Alice", "Bruno", "Chloé"],
            "genders": MIXED,
        },
        "Nommées : Alice et Chloé.",
    ),
    (
        "LUP-622",
        "fr",
        "lupus/status",
        {
            **LUPUS_STATUS,
            "name": "Bruno",
            "nominees": ["Alice", "Bruno"],
            "living": ["Alice", "Bruno"],
            "genders": MIXED,
        },
        "Nommés : Alice et Bruno.",
    ),
    (
        "LUP-622",
        "fr",
        "lupus/status",
        {
            **LUPUS_STATUS,
            "name": "Bruno",
            "nominees": ["Alice"],
            "living": ["Alice", "Chloé"],
            "genders": MIXED,
        },
        "Nommée : Alice.",
    ),
    (
        "LUP-622",
        "fr",
        "lupus/status",
        {
            **LUPUS_STATUS,
            "name": "Alice",
            "nominees": [],
            "living": ["Alice", "Chloé"],
            "genders": MIXED,
        },
        "Joueuses vivantes : Alice et Chloé.",
    ),
    (
        "LUP-622",
        "en",
        "lupus/status",
        {
            **LUPUS_STATUS,
            "name": "Bruno",
            "nominees": ["Alice"],
            "living": ["Alice", "Bruno"],
            "genders": MIXED,
        },
        "Nominee: Alice.",
    ),
    (
        "LUP-741",
        "fr",
        "lupus/round1_result",
        {**ROUND1, "nominees": ["Alice", "Chloé"], "deadline": T, "genders": WOMEN},
        "Nommées : Alice et Chloé.",
    ),
    (
        "LUP-407",
        "fr",
        "lupus/round1_result",
        {**ROUND1, "nominees": ["Alice", "Chloé"], "deadline": T, "genders": WOMEN},
        "Les nommées peuvent se défendre",
    ),
    (
        "LUP-407",
        "fr",
        "lupus/round1_result",
        {**ROUND1, "nominees": ["Alice", "Bruno"], "deadline": T, "genders": MIXED},
        "Les nommés peuvent se défendre",
    ),
    # LUP-742, LUP-408: round 2's opening, « sauf les nommées votent pour l'une d'elles »
    (
        "LUP-742",
        "fr",
        "lupus/round2_open",
        {"day": 2, "deadline": T, "nominees": ["Alice", "Chloé"], "voters": [], "genders": WOMEN},
        "sauf les nommées votent pour l'une d'elles",
    ),
    (
        "LUP-408",
        "fr",
        "lupus/round2_open",
        {"day": 2, "deadline": T, "nominees": ["Alice", "Bruno"], "voters": [], "genders": MIXED},
        "sauf les nommés votent pour l'un d'eux",
    ),
    # LUP-360: the Masons, LUP-381: the Mythomaniac joins the pack
    (
        "LUP-360",
        "fr",
        "lupus/masons",
        {"name": "Bruno", "others": ["Alice", "Chloé"], "genders": MIXED},
        "les autres Franc-maçonnes sont Alice et Chloé",
    ),
    (
        "LUP-381",
        "fr",
        "lupus/myth_result",
        {
            "name": "Inès",
            "became": "werewolf",
            "target": "Alice",
            "partners": ["Alice", "Chloé"],
            "genders": WOMEN,
        },
        "Vous chassez avec elles",
    ),
    # LUP-722: the pack's victim drawn among the tied
    (
        "LUP-722",
        "fr",
        "lupus/wolves_victim",
        {"victim": "Alice", "drawn_among": ["Alice", "Bruno"], "genders": MIXED},
        "Alice (tirée au sort entre Alice et Bruno)",
    ),
    # LUP-700, CAS-700, LG-700: the openings list the players
    (
        "LUP-700",
        "fr",
        "lupus/opening",
        {
            "players": ["Alice", "Chloé", "Inès"],
            "deck": {},
            "warnings": [],
            "ghost_variant": False,
            "durations": DURATIONS,
            "genders": WOMEN,
        },
        "Joueuses (3) : Alice, Chloé et Inès.",
    ),
    (
        "LUP-700",
        "fr",
        "lupus/opening",
        {
            "players": ["Alice", "Bruno", "Chloé"],
            "deck": {},
            "warnings": [],
            "ghost_variant": False,
            "durations": DURATIONS,
            "genders": MIXED,
        },
        "Joueurs (3) : Alice, Bruno et Chloé.",
    ),
    (
        "CAS-625",
        "fr",
        "chasse/status",
        {
            "name": "Alice",
            "role": "prue",
            "faction": "good",
            "alive": True,
            "partner": None,
            "is_penny": False,
            "penny": None,
            "phase": "day",
            "number": 2,
            "deadlines": {},
            "pending": [],
            "vote": None,
            "living": ["Alice", "Chloé"],
            "genders": WOMEN,
        },
        "Joueuses en jeu : Alice et Chloé.",
    ),
    # CAS-750: the Lovers revealed with the victory; CAS-731: the tie-breaker's prompt
    (
        "CAS-750",
        "fr",
        "chasse/victory",
        {
            "side": "good",
            "winners": ["Bruno"],
            "reveal": [{"name": "Bruno", "role": "prue", "dealt": "prue", "alive": True}],
            "penny": None,
            "leftover": [],
            "lovers": ["Alice", "Chloé"],
            "genders": MIXED,
        },
        "Amoureuses : Alice et Chloé.",
    ),
    (
        "CAS-731",
        "fr",
        "chasse/tie_prompt",
        {
            "name": "Bruno",
            "mode": "spare",
            "tied": ["Alice", "Chloé"],
            "penny": None,
            "deadline": T,
            "genders": MIXED,
        },
        ("qui décidez laquelle est sauvée", "l'autre sera éliminée."),
    ),
    (
        "CAS-750",
        "fr",
        "chasse/victory",
        {"side": "lovers", "winners": ["Alice", "Chloé"], "reveal": [], "genders": WOMEN},
        "Victoire des Amoureuses ! Gagnantes : Alice et Chloé.",
    ),
    # LG-723: the other Charmed; LG-627: the status's living players
    (
        "LG-723",
        "fr",
        "loupgarou/charmed",
        {"name": "Bruno", "others": ["Alice"], "genders": MIXED},
        "L'autre joueuse vivante envoûtée : Alice.",
    ),
    (
        "LG-723",
        "fr",
        "loupgarou/charmed",
        {"name": "Inès", "others": ["Alice", "Chloé"], "genders": WOMEN},
        "Les autres joueuses vivantes envoûtées : Alice et Chloé.",
    ),
    (
        "LG-723",
        "en",
        "loupgarou/charmed",
        {"name": "Bruno", "others": ["Alice"], "genders": MIXED},
        "The other living Charmed player: Alice.",
    ),
    # DRA-220: the players who choose a teammate before night 4
    (
        "DRA-220",
        "fr",
        "dracula/pairing_open",
        {"players": ["Alice", "Chloé"], "deadline": T, "genders": WOMEN},
        "Joueuses concernées : Alice et Chloé.",
    ),
    (
        "DRA-220",
        "fr",
        "dracula/pairing_open",
        {"players": ["Alice", "Bruno"], "deadline": T, "genders": MIXED},
        "Joueurs concernés : Alice et Bruno.",
    ),
    (
        "DRA-220",
        "en",
        "dracula/pairing_open",
        {"players": ["Alice"], "deadline": T, "genders": {}},
        "Player concerned: Alice.",
    ),
]


@pytest.mark.parametrize(("rule", "lang", "template", "params", "said"), CASES)
def test_a_group_of_players_agrees_with_them(
    rule: str, lang: str, template: str, params: dict[str, Any], said: str | tuple[str, ...]
) -> None:
    """The rule's mail names a group of players in the words that agree with them (``rule``
    cites the mail's rule)."""
    game = {"lupus": "Lupus in Tabula", "chasse": "Chasse", "loupgarou": "LG", "dracula": "D"}
    params = {"game": game[template.split("/")[0]], **params}
    text = Renderer().text(template, lang, params)
    for words in (said,) if isinstance(said, str) else said:
        assert words in text, (rule, words)
