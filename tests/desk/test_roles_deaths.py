"""``ROLES`` writes each death as a game master would, per game, in French and English,
agreeing with the player: « morte, lynchée par le village le jour 2 », « mort, dévoré par
les Loups-garous la nuit 1 », never the raw cause (« mort (lynch) »); the night and the day
said alike (« (nuit 7) » sat beside « au jour 7 »; LUP-217, LG-224, CAS-223, DRA-471)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from pbem.mail.render import Renderer
from tests.desk.desk_game import DeskGame
from tests.test_grammar import EVERYWHERE, FORBIDDEN, Everyone, agreement_faults

RENDERER = Renderer()
GAMES_ROOT = Path(__file__).resolve().parents[2] / "pbem" / "games"

# Every cause a game's rules give a PlayerDied (and the phase such a death happens in):
# removal (docs/seats.md), then per game its own deaths.
CAUSES: dict[str, dict[str, tuple[str, int]]] = {
    "lupus": {  # LUP-217: the wolves' victim and the Werehamster the Seer designated
        "lynch": ("round1", 2),
        "wolves": ("night", 1),
        "probe": ("night", 1),  # LUP-372
        "removed": ("round2", 2),
    },
    "loupgarou": {
        "lynch": ("day", 2),
        "burned": ("day", 2),  # the Mayor burned in the Idiot's place (LG-252)
        "grief": ("night", 1),  # LG-447: a Lover dies of grief
        "wolves": ("night", 1),
        "wolves_and_poison": ("night", 1),
        "poison": ("night", 1),
        "removed": ("election", 0),
    },
    "chasse": {
        "lynch": ("day", 2),
        "demons": ("W2", 1),
        "piper": ("W2", 1),
        "grief": ("W2", 1),  # CAS-234
        "revenge": ("revenge", 2),  # CAS-320
        "removed": ("L", 1),
    },
    "dracula": {
        "stake": ("bites", 2),  # DRA-324
        "burned": ("flames", 5),  # DRA-471
        "dracula_dead": ("flames", 5),  # DRA-472
        "fight": ("flames", 5),  # DRA-474
        "removed": ("day", 3),
    },
}
ROLE = {"lupus": "villager", "loupgarou": "villager", "chasse": "innocent", "dracula": "human"}
DEAD = {"f": "morte", "m": "mort", None: "hors jeu"}


def literal_causes(game: str) -> set[str]:
    """The causes written as literals in a game's rules (PlayerDied, kill intents)."""
    found: set[str] = set()
    for path in (GAMES_ROOT / game).glob("*.py"):
        source = path.read_text()
        found |= set(re.findall(r'PlayerDied\([^,()]+, "(\w+)"\)', source))
        found |= set(re.findall(r'Intent\("kill", [^,()]+, "(\w+)"', source))
        for pair in re.findall(r'cause = "(\w+)" if [^\n]* else "(\w+)"', source):
            found |= set(pair)
    return found


@pytest.mark.parametrize("game", sorted(CAUSES))
def test_every_cause_of_death_in_the_rules_has_a_wording(game: str) -> None:
    assert literal_causes(game) | {"removed"} <= set(CAUSES[game])


def render(game: str, lang: str, gender: str | None) -> list[str]:
    cast: list[dict[str, Any]] = []
    for cause, (phase, number) in CAUSES[game].items():
        seat = {"name": "Inès", "holder": "", "role": ROLE[game], "dealt": "", "side": ""}
        seat |= {"conditions": [], "alive": False, "cause": cause}
        cast.append(seat | {"death": {"phase": phase, "number": number}})
    params = {"game": "G", "phase": "day", "number": 2, "finished": False, "paused": False}
    params |= {"cast": cast, "names": f"{game}/_names.jinja", "orders": {}}
    params |= {"deadlines": {}, "bench": [], "genders": Everyone(gender)}
    text = RENDERER.text("desk/roles", lang, params)
    return [line for line in text.splitlines() if line.startswith("  - Inès")]


@pytest.mark.parametrize("gender", ["f", "m", None])
@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("game", sorted(CAUSES))
def test_roles_words_every_death_for_every_gender(game: str, lang: str, gender: str | None) -> None:
    lines = render(game, lang, gender)
    assert len(lines) == len(CAUSES[game])
    for line, (cause, (phase, number)) in zip(lines, CAUSES[game].items(), strict=True):
        assert f"({cause})" not in line, line  # the fallback for a cause with no wording
        for pattern, why in FORBIDDEN[lang] + EVERYWHERE:
            assert not re.search(pattern, line), (why, line)
        assert not agreement_faults(line, lang, {"Inès"}, gender, cards=True), line
        if lang == "fr":
            word = DEAD[gender] if cause != "removed" else "retir" if gender else "hors jeu"
            assert word in line, line
            if gender == "f":
                assert not re.search(r"\b(mort|lynché|dévoré|tué|retiré|brûlé)\b", line), line
            if gender is None:
                assert not re.search(r"\b(mort|morte|\w+ée?)\b,", line), line
        assert "(" not in line and ")" not in line, line  # no « (nuit 1) » beside « jour 2 »
        day = "la journée" if game == "dracula" else "le jour"
        if phase in ("night", "W2", "bites"):
            assert line.endswith(f"la nuit {number}" if lang == "fr" else f"on night {number}")
        elif phase == "flames":
            assert line.endswith(
                "à la fin de la manche" if lang == "fr" else "at the end of the round"
            )
        elif number == 0:
            assert line.endswith(
                "avant la première nuit" if lang == "fr" else "before the first night"
            )
        elif phase != "L":
            assert line.endswith(f"{day} {number}" if lang == "fr" else f"on day {number}")


@pytest.mark.parametrize(
    ("gender", "wording"),
    [
        ("f", "morte, lynchée par le village le jour 1"),
        ("m", "mort, lynché par le village le jour 1"),
        (None, "hors jeu : victime du vote du village le jour 1"),
    ],
)
def test_roles_in_a_real_game_agrees_with_the_dead_player(gender: str | None, wording: str) -> None:
    """A Lupus lynch (LUP-217's day, LUP-408) read in ROLES: the setup's gender reaches the
    desk, and the phase of the death is the day it happened."""
    genders = {"p5": gender} if gender else {}
    g = DeskGame("lupus-in-tabula", lang="fr", genders=genders)
    g.until("round1")
    for voter, target in [("p3", "p5"), ("p4", "p5"), ("p6", "p5"), ("p8", "p7")]:
        g.post(voter, f"VOTE {target}")
    while g.alive("p5"):
        g.deadline()
    g.admin("ROLES")
    line = next(x for x in g.admin_reply().splitlines() if x.startswith("  - p5 : "))
    assert line.split(", ", 2)[-1].startswith(wording) or wording in line, line
