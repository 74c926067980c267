"""Issue 14 leftovers: the archive's timeline names each phase as players read it in their
mails (« Nuit 2 », « Jour 3 : premier tour du vote »), never by the game's phase id, and the
CSS and the chart macros the two languages share exist once."""

from __future__ import annotations

import re

import pytest

from pbem.core.events import PhaseStarted
from pbem.mail.render import templates_root
from pbem.record.archive import archive_files
from tests.archive.bot_games import GAMES, whole_game

FIRST_NIGHT = {
    ("lupus-in-tabula", "fr"): "Nuit 1",
    ("lupus-in-tabula", "en"): "Night 1",
    ("loup-garou", "fr"): "Nuit 1",
    ("loup-garou", "en"): "Night 1",
    ("chasse-aux-sorcieres", "fr"): "Nuit 1 : le choix de Léo",
    ("chasse-aux-sorcieres", "en"): "Night 1: Léo's choice",
    ("dracula", "fr"): "Manche 1, nuit 1 : le choix des pièces",
    ("dracula", "en"): "Round 1, night 1: the choice of rooms",
}


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("game", GAMES)
def test_the_timeline_names_phases_as_players_read_them(game: str, lang: str) -> None:
    table = whole_game(game, lang)
    ids = {e.phase for e in table.ruled if isinstance(e, PhaseStarted)}
    files = archive_files(table)
    headings = re.findall(r"^== (.*?)(?: \(|$)", files["text"], re.M)
    html_headings = re.findall(r"<h3>([^<]*)", files["html"])
    assert len(headings) == len(html_headings) > 5
    assert FIRST_NIGHT[(game, lang)] in headings
    codes = {i for i in ids if not i.isalpha() or len(i) <= 2}  # W1, round1, dracula_room
    raw = re.compile(rf"(?:{'|'.join(map(re.escape, ids))}) \d+")  # what the timeline showed
    for heading in headings + html_headings:
        assert not set(re.findall(r"[\w-]+", heading)) & codes, heading
        assert not raw.fullmatch(heading), heading
        assert "{n}" not in heading and "Phase" not in heading
    if game == "dracula":  # a game of rounds: every round's days count from 1 again
        assert sum(h.endswith((" journée 1", " day 1")) for h in headings) == 3


def test_the_css_and_chart_macros_exist_once_for_both_languages() -> None:
    root = templates_root()
    for shared in ("_style.css", "_macros.html"):
        assert (root / "shared" / "archive" / shared).is_file()
        assert [p.parent.parent.name for p in root.glob(f"*/archive/{shared}")] == ["shared"]
    fr = archive_files(whole_game("lupus-in-tabula", "fr"))["html"]
    en = archive_files(whole_game("lupus-in-tabula", "en"))["html"]
    style = re.compile(r"<style>.*?</style>", re.S)
    found_fr, found_en = style.search(fr), style.search(en)
    assert found_fr and found_en and found_fr.group() == found_en.group()


CONDITION_SEED = {"dracula": 1}


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("game", GAMES)
def test_the_cast_names_teams_and_conditions_in_the_readers_language(game: str, lang: str) -> None:
    """The archive's cast names each team and condition as the game's mails do (« humain
    (Humains) [Malédiction] », DRA-011 and DRA-370's curse), never by its id. Before: « humain
    (humans) [cursed] » in a French Dracula archive, « [lover, young_wolf] » in Loup-Garou's."""
    # a seed whose game ends with a condition in play (a Dracula curse lasts one round)
    table = whole_game(game, lang, seed=CONDITION_SEED.get(game))
    seats = table.summary()["players"]
    ids = {str(s["team"]) for s in seats} | {str(c) for s in seats for c in s.get("conditions", [])}
    assert any(s.get("conditions") for s in seats) or game == "lupus-in-tabula"
    text = archive_files(table)["text"]
    cast = [line for line in text.splitlines() if line.startswith("- ")]
    shown = [w for line in cast for w in re.findall(r"\(([^(),]+)\)|\[([^\]]+)\]", line)]
    words = {w.strip() for pair in shown for part in pair for w in part.split(",") if w.strip()}
    assert words and not words & ids, sorted(words & ids)
