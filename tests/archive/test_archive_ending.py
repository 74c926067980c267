"""Issue 22: the archive ends its story with how the game ended, worded for every
``Termination`` in both languages (never the raw value); the header counts the nights and days
that actually began; a moved deadline reads from the one in force before the move."""

from __future__ import annotations

import itertools
import re
from datetime import timedelta

import pytest

from pbem.core.outcome import Termination
from pbem.record.archive import archive_files, archive_model, render_html, render_text
from tests.seats.test_seat_rules import NOW, admin, new_table

ENDED_BY_GM = {
    "fr": "Gagnants : personne : la partie a été arrêtée par le MJ.",
    "en": "Winners: nobody: the game master ended the game.",
}
ENDING = {
    "fr": "Le MJ a arrêté la partie pendant la phase « Nuit 1 » ; personne ne gagne.",
    "en": "The game master ended the game during “Night 1”; nobody wins.",
}


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_game_ended_by_the_game_master_with_no_winner_says_so(lang: str) -> None:
    table = new_table()
    assert admin(table, "END NONE").events
    files = archive_files(table, lang)
    for text in (files["text"], files["html"]):
        assert ENDED_BY_GM[lang] in text
        assert "(admin)" not in text and "—" not in text.split(ENDED_BY_GM[lang])[0][-40:]


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("termination", list(Termination))
@pytest.mark.parametrize("winners", [[], ["alice", "bob"]])
def test_no_termination_is_printed_as_stored(
    lang: str, termination: Termination, winners: list[str]
) -> None:
    table = new_table()
    admin(table, "END NONE")
    model = {**archive_model(table, lang), "termination": termination.value, "winners": winners}
    raw = [t.value for t in Termination if not (lang == "en" and t.value == "victory")]
    for text in (render_text(model), render_html(model)):
        said = text.split("\n\n")[0]  # the header's outcome line
        assert not [v for v in raw if re.search(rf"\b{v}\b", text)], said
        assert "(—" not in said and ": —" not in said


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_story_ends_with_how_the_game_ended(lang: str) -> None:
    table = new_table()
    admin(table, "END NONE")
    files = archive_files(table, lang)
    heading = "THE GAME MASTER’S ACTS" if lang == "en" else "LES INTERVENTIONS DU MJ"
    story = files["text"].split(heading)[0]
    end = "== The end of the game" if lang == "en" else "== La fin de la partie"
    assert end in story and ENDING[lang] in story.split(end)[1]
    assert story.rstrip().endswith(ENDING[lang])
    html = files["html"]
    assert html.index('id="fin"') < html.index('id="mj"')
    assert ENDING[lang] in html


@pytest.mark.parametrize(
    ("lang", "size"), [("en", "8 players, 1 night."), ("fr", "8 joueurs, 1 nuit.")]
)
def test_a_game_stopped_in_night_one_counts_no_day(lang: str, size: str) -> None:
    table = new_table()
    admin(table, "END NONE")
    text = archive_files(table, lang)["text"]
    assert text.splitlines()[1] == size
    assert "jour" not in text.splitlines()[1] and "day" not in text.splitlines()[1]


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_each_moved_deadline_reads_from_the_one_in_force(lang: str) -> None:
    table = new_table()
    for _ in range(3):
        assert admin(table, "PROLONGER 1h").events
    moves = [it for ph in archive_model(table, lang)["phases"] for it in ph["entries"]]
    moved = [it for it in moves if it.get("act") == "moved"]
    assert len(moved) == 3
    for before, after in itertools.pairwise(moved):
        assert after["due"] == before["to"]  # from the deadline the previous move set
    assert moved[2]["to"] - moved[2]["due"] == timedelta(hours=1)
    assert moved[0]["due"] > NOW
    if lang == "fr":  # as the tester read it: the third move starts where the second ended
        text = archive_files(table, lang)["text"]
        said = [line for line in text.splitlines() if line.startswith("  [MJ] Le MJ a déplacé")]
        assert said == [
            "  [MJ] Le MJ a déplacé une échéance du mardi 6 janvier à 12:00 UTC"
            " au mardi 6 janvier à 13:00 UTC.",
            "  [MJ] Le MJ a déplacé une échéance du mardi 6 janvier à 13:00 UTC"
            " au mardi 6 janvier à 14:00 UTC.",
            "  [MJ] Le MJ a déplacé une échéance du mardi 6 janvier à 14:00 UTC"
            " au mardi 6 janvier à 15:00 UTC.",
        ]
        assert "== Nuit 1 (jusqu’au mardi 6 janvier à 15:00 UTC)" in text  # the one in force
