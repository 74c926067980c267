"""The figures of ``pbem stats`` on records written by hand (issue 24 item 5): the Wilson
interval against a hand computation, a substitute's tenure, the splits by player count and by
option, and the page at a phone's width in French, agreeing with each player's gender."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pbem.record.stats import record_stats
from pbem.record.stats_page import render_index, render_stats_page
from tests.archive.test_screenshot import NARROW, WIDTH, layout, layouts

SCHEMA = json.loads(Path("docs/stats-schema.json").read_text(encoding="utf-8"))
NAMES = ("Alice", "Bruno", "Carole", "Damien", "Élodie", "Fabien", "Gaëlle", "Hugo")
GENDERS = {"Alice": "f", "Carole": "f", "Élodie": "f", "Gaëlle": "f", "Bruno": "m", "Damien": "m"}
WOLVES = ("Damien", "Hugo")


def record(
    villagers_win: bool,
    *,
    count: int = 8,
    options: dict[str, Any] | None = None,
    cast: dict[str, list[tuple[int, str]]] | None = None,
    deaths: tuple[tuple[str, int], ...] = (),
    ending: str = "victory",
) -> dict[str, Any]:
    """A finished Lupus record with just what the statistics read: the seats (Damien and Hugo
    the wolves), the deal, the phases (two days), the tenure, the deaths and the result."""
    names = [*NAMES, *(f"P{i}" for i in range(count - len(NAMES)))][:count]
    roles = {n: "werewolf" if n in WOLVES else "villager" for n in names}
    side = ("villagers" if villagers_win else "werewolves") if ending == "victory" else None
    dead = {seat for seat, _ in deaths}
    events = [
        {"type": "RolesDealt", "roles": roles, "leftover": []},
        *(
            {"type": "PhaseStarted", "phase": p, "number": n, "deadlines": {}}
            for n in (1, 2)
            for p in ("night", "debate")
        ),
    ]
    return {
        "record_version": 1,
        "game": "lupus-in-tabula",
        "setup": {
            "options": options or {},
            "players": [{"name": n, "lang": "fr", "gender": GENDERS.get(n)} for n in names],
        },
        "cast": [
            {
                "seat": n,
                "holders": [
                    {"name": who, "from_index": at, "from_link": 1, "until_index": None}
                    for at, who in (cast or {}).get(n, [(0, n)])
                ],
            }
            for n in names
        ],
        "deaths": [{"player": s, "cause": "wolves", "index": i, "link": 1} for s, i in deaths],
        "result": {
            "termination": ending,
            "side": side,
            "winners": [
                n for n in names if (roles[n] == "villager") == villagers_win and ending != "admin"
            ],
            "players": [
                {
                    "name": n,
                    "role": roles[n],
                    "team": "werewolves" if n in WOLVES else "villagers",
                    "alive": n not in dead,
                }
                for n in names
            ],
        },
        "events": events,
    }


def test_a_camps_rate_and_its_wilson_interval_are_the_hand_computed_ones() -> None:
    """3 wins in 4: p = 0.75, z = 1.959964, z² = 3.841459; centre = (p + z²/8) / (1 + z²/4)
    = 1.230182 / 1.960365 = 0.627527; half = z·√(p(1-p)/4 + z²/64) / (1 + z²/4)
    = 1.959964 × √0.106898 / 1.960365 = 0.326888: 30.1 % to 95.4 %; 1 in 4 mirrors it."""
    stats = record_stats([record(True), record(True), record(True), record(False)])
    jsonschema.Draft202012Validator(SCHEMA).validate(stats)
    camps = {c["camp"]: c for c in stats["camps"]}
    assert camps["villagers"] == {
        "game": "lupus-in-tabula",
        "camp": "villagers",
        "played": 4,
        "won": 3,
        "rate": 0.75,
        "low": 0.301,
        "high": 0.954,
    }
    assert (camps["werewolves"]["rate"], camps["werewolves"]["low"]) == (0.25, 0.046)
    assert camps["werewolves"]["high"] == 0.699
    werewolf = next(r for r in stats["roles"] if r["role"] == "werewolf")
    assert (werewolf["held"], werewolf["won"]) == (8, 2)  # two cards a game, by seat
    assert stats["length"]["lupus-in-tabula"]["days"] == 2.0


def test_a_game_ended_with_no_side_counts_for_no_camp_and_a_score_for_the_cards_only() -> None:
    """END NONE decides nothing (no camp nor card lost it); a win on score (Dracula's
    ``match_end``) is no camp's, but its winners' cards won."""
    decided = record(True)
    stats = record_stats([decided, record(False, ending="admin"), record(True, ending="match_end")])
    camps = {c["camp"]: (c["won"], c["played"]) for c in stats["camps"]}
    assert camps == {"villagers": (1, 1), "werewolves": (0, 1)}
    villager = next(r for r in stats["roles"] if r["role"] == "villager")
    assert (villager["won"], villager["held"]) == (12, 12)  # 6 a game, 2 games
    assert (
        stats["games"] == {"lupus-in-tabula": 3}
        and stats["length"]["lupus-in-tabula"]["games"] == 3
    )


def test_a_substitutes_tenure_counts_for_him_the_replaced_players_for_her() -> None:
    """Carole held her seat until position 1 of the log, Zoé from there: the seat's death
    (position 3) and its win are Zoé's; Carole keeps her game and one replacement."""
    swap = {"Carole": [(0, "Carole"), (1, "Zoé")]}
    stats = record_stats([record(False, cast=swap, deaths=(("Carole", 3), ("Alice", 0)))])
    jsonschema.Draft202012Validator(SCHEMA).validate(stats)
    players = {p["player"]: p for p in stats["players"]}
    carole, zoe = players["Carole"], players["Zoé"]
    assert (carole["games"], carole["replaced"], carole["substitute"]) == (1, 1, 0)
    assert (carole["wins"], carole["survived"], carole["died"]) == (0, 0, 0)
    assert (zoe["games"], zoe["replaced"], zoe["substitute"]) == (1, 0, 1)
    assert (zoe["wins"], zoe["survived"], zoe["died"]) == (0, 0, 1)
    assert (players["Alice"]["died"], players["Alice"]["survived"]) == (1, 0)
    assert (players["Damien"]["wins"], players["Damien"]["survived"]) == (1, 1)
    assert carole["gender"] == "f" and zoe["gender"] is None
    # one game counts once, even for whoever ends it holding two seats (both won)
    swap = {"Carole": [(0, "Carole"), (1, "Zoé")], "Fabien": [(0, "Fabien"), (2, "Zoé")]}
    zoe = next(
        p for p in record_stats([record(True, cast=swap)])["players"] if p["player"] == "Zoé"
    )
    assert (zoe["games"], zoe["wins"], zoe["survived"], zoe["substitute"]) == (1, 1, 1, 2)
    order = [p["player"] for p in stats["players"]]
    assert order.index("Damien") < order.index("Élodie") < order.index("Fabien")


def test_the_camps_split_by_player_count_and_by_the_options_that_differ() -> None:
    games = [
        record(True, count=8, options={"wolves_tie": "random", "early_close": False}),
        record(False, count=10, options={"wolves_tie": "none", "early_close": False}),
        record(True, count=10, options={"wolves_tie": "none", "early_close": False}),
    ]
    stats = record_stats(games)
    jsonschema.Draft202012Validator(SCHEMA).validate(stats)
    split = {(r["players"], r["camp"]): (r["won"], r["played"]) for r in stats["by_players"]}
    assert split[(8, "villagers")] == (1, 1) and split[(10, "villagers")] == (1, 2)
    options = {(r["option"], r["value"], r["camp"]) for r in stats["by_option"]}
    assert ("wolves_tie", "none", "werewolves") in options
    assert {o for o, _, _ in options} == {"wolves_tie"}  # the same everywhere splits nothing


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_stats_page_fits_a_phones_width_and_agrees_with_each_player(
    lang: str, tmp_path: Path
) -> None:
    swap = {
        "Carole": [(0, "Carole"), (1, "Zoé")],
        "Bruno": [(0, "Bruno"), (2, "Yann")],
        "Fabien": [(0, "Fabien"), (2, "Zoé")],  # Fabien said neither « il » nor « elle »
    }
    games = [
        record(True, count=8, options={"wolves_tie": "random"}, cast=swap),
        record(False, count=10, options={"wolves_tie": "no_victim"}),
        record(True, count=12, options={"wolves_tie": "no_victim"}),
    ]
    page = render_stats_page(record_stats(games), lang)
    if lang == "fr":  # the options as the rules page words them, never their ids
        assert "Égalité entre les loups : au hasard" in page and "wolves_tie" not in page
        assert "Carole : remplacée 1 fois" in page and "Bruno : remplacé 1 fois" in page
        assert "Fabien : a cédé son siège 1 fois" in page  # neutral, never a guess
        assert "Zoé : a repris 2 sièges" in page and "les Villageois" in page
        assert "2 jours en moyenne (de 2 à 2), 4 phases" in page
        assert "werewolves" not in page.replace("lupus-in-tabula", "")
    else:
        assert "Carole: replaced 1×" in page and "Zoé: took over 2 seats" in page
        assert "Tie among the wolves: no victim" in page
    assert "<script" not in page
    measured = layout(page, tmp_path)
    assert measured["scroll"] == measured["client"] and measured["wide"] == [], measured
    assert measured["charts"] == 3  # camps, player counts, cards
    assert measured["sections"] == ["stats"]


def test_the_archive_index_charts_text_reads_at_14_px_on_a_phone(tmp_path: Path) -> None:
    """The index's statistics charts drew 11-12 px texts, shrunk further to fit a phone (a
    400 px chart in a 360 px page): every text, the charts' included, is at least 14 px as
    Chromium shows it at 412 and 360 px, in French and English, and nothing is wider than
    the page; the charts are not shrunk (a chart's text is its size times its scale)."""
    games = [record(villagers_win=w, count=n) for w, n in ((True, 8), (False, 10), (True, 24))]
    stats = record_stats(games)
    row = {
        "id": "village1",
        "rules": "lupus-in-tabula",
        "game": "Lupus in Tabula",
        "players": 8,
        "side": "villagers",
        "winners": ["Alice"],
        "html": "village1.html",
        "text": "village1.txt",
    }
    pages = [render_index([row], stats, lang) for lang in ("fr", "en") for _ in (1, 2)]
    measured = layouts(pages, tmp_path, [WIDTH, NARROW, WIDTH, NARROW])
    for found in measured:
        assert found["charts"] == 3
        assert found["small"] == [], found["small"]
        assert found["scroll"] == found["client"] and found["wide"] == [], found


@pytest.mark.parametrize(("lang", "said"), [("fr", "<td>personne</td>"), ("en", "<td>nobody</td>")])
def test_the_archive_index_says_nobody_won_a_game_without_winners(lang: str, said: str) -> None:
    """A game the game master ended naming no side (END NONE) or that no one could win had
    an empty « Gagnants » cell in the index: it now says nobody won, as the archive does."""
    row = {
        "id": "village1",
        "rules": "lupus-in-tabula",
        "game": "Lupus in Tabula",
        "players": 8,
        "side": None,
        "winners": [],
        "html": "village1.html",
        "text": "village1.txt",
    }
    page = render_index([row], record_stats([record(villagers_win=True, count=8)]), lang)
    assert said in page
