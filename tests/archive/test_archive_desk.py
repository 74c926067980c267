"""Issue 22: the archive publishes the game master's acts — who paused (and why), resumed,
extended, closed, rolled back, removed or replaced whom, and when — in the reader's words."""

from __future__ import annotations

import re

import pytest

from pbem.record.archive import archive_files
from tests.seats.test_seat_rules import admin, new_table

SAID = {
    "en": [
        "The game master paused the game (",
        'Why: "the host is ill"',
        "The game master resumed the game (",
        "The game master moved a deadline from ",
        "The game master closed the phase before its deadline (",
        "The game master undid the last resolution and reopened the phase.",
        'The game master removed dave from the game: "asked to leave".',
        "The game master replaced carol with Zoe.",
    ],
    "fr": [
        "Le MJ a mis la partie en pause (",
        "Motif de la pause : « the host is ill »",
        "Le MJ a relancé la partie (",
        "Le MJ a déplacé une échéance du ",
        "Le MJ a clos la phase avant son échéance (",
        "Le MJ a annulé la dernière résolution et rouvert la phase.",
        "Le MJ a retiré dave de la partie : « asked to leave ».",
        "Le MJ a remplacé carol par Zoe.",
    ],
}


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_game_masters_acts_are_in_the_archive(lang: str) -> None:
    table = new_table()
    for line in (
        "PAUSE the host is ill",
        "RESUME",
        "EXTEND 24h",
        "CLOSE",
        "ROLLBACK 24h",
        "REMOVE dave asked to leave",
        "REPLACE carol WITH zoe@example.net Zoe",
    ):
        step = admin(table, line)
        assert step.events, line  # each act was taken
    files = archive_files(table, lang)
    heading = "THE GAME MASTER’S ACTS" if lang == "en" else "LES INTERVENTIONS DU MJ"
    story, index = files["text"].split(heading)
    page, page_index = files["html"].replace("&#34;", '"').split('id="mj"')
    for said in SAID[lang]:  # told in the story; the section's index only names it
        assert said in story and said not in index, said
        assert said in page and said not in page_index, said


@pytest.mark.parametrize(
    ("lang", "said", "line"),
    [
        (
            "fr",
            "Échéance repoussée du mardi 6 janvier à 12:00 UTC au mercredi 7 janvier à 12:00 UTC "
            "pour cause d’absence déclarée : p1.",
            "ABSENCE le 06/01",
        ),
        (
            "en",
            "A deadline moved from Tue 6 Jan 12:00 UTC to Wed 7 Jan 12:00 UTC for a declared "
            "absence: p1.",
            "ABSENT on 06/01",
        ),
    ],
)
def test_a_deadline_moved_for_an_absence_says_so_not_the_game_master(
    lang: str, said: str, line: str
) -> None:
    """Issue 25 follow-up: with ``absence_mode = "extend"`` the archive names the absence (and
    whose) that moved a deadline; the game master's own EXTEND keeps its wording."""
    from tests.desk.desk_game import DeskGame

    g = DeskGame("lupus-in-tabula", lang=lang, options={"absence_mode": "extend"})
    g.mail("p1", line)  # the first night's deadline: Tuesday 6 January, 12:00
    g.admin("PROLONGER 1h" if lang == "fr" else "EXTEND 1h")
    text = archive_files(g.table, lang)["text"]
    assert text.count(said) == 1
    assert text.count("Le MJ a déplacé une échéance" if lang == "fr" else "master moved a") == 1
    heading = "THE GAME MASTER’S ACTS" if lang == "en" else "LES INTERVENTIONS DU MJ"
    index = (
        "deadline moved (absence: p1), deadline moved."
        if lang == "en"
        else ("échéance repoussée (absence : p1), échéance déplacée.")
    )
    assert index in text.split(heading)[1]


INDEX = {
    "en": [
        ("phase-2", "Night 1", "paused, resumed, deadline moved, phase closed early."),
        ("phase-3", "Day 1: debate", "dave removed."),
    ],
    "fr": [
        ("phase-2", "Nuit 1", "pause, reprise, échéance déplacée, phase close avant son échéance."),
        ("phase-3", "Jour 1 : débat", "retrait de dave."),
    ],
}


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_game_masters_acts_are_told_once_and_indexed_by_phase(lang: str) -> None:
    """Note10's « told twice »: each act is told in its phase's story (where it explains a
    deadline or a death), and the game master's section is only an index: per phase, a link
    to it and a few words per act, never the act's sentence again."""
    table = new_table()
    for line in ("PAUSE the host is ill", "RESUME", "EXTEND 24h", "CLOSE", "REMOVE dave bye"):
        assert admin(table, line).events, line
    files = archive_files(table, lang)
    html = files["html"]
    index = html.split('id="mj"')[1].split("</ul>")[0]
    links = re.findall(r'<li class="desk"><a href="#(phase-\d+)">([^<]+)</a> ?: (.+?)</li>', index)
    assert links == INDEX[lang], index
    for (target, _, _), told in zip(links, (5, 1), strict=True):
        # night 1: the pause, its reason and the three others; day 1: the removal
        section = html.split(f'id="{target}">')[1].split("</section>")[0]
        assert section.count('<li class="desk">') == told, section
    heading = "THE GAME MASTER’S ACTS" if lang == "en" else "LES INTERVENTIONS DU MJ"
    story, index_text = files["text"].split(heading)
    assert story.count("[Game master]" if lang == "en" else "[MJ]") == 6
    colon = ":" if lang == "en" else " :"
    lines = [f"- {phase}{colon} {acts}" for _, phase, acts in links]
    assert index_text.strip().splitlines()[1:3] == lines


@pytest.mark.parametrize(
    ("lang", "still"),
    [
        (
            "fr",
            "La partie reste en pause : les échéances de la nouvelle phase attendent la reprise.",
        ),
        ("en", "The game stays paused: the new phase's deadlines wait for the resumption."),
    ],
)
def test_a_close_in_a_pause_is_told_as_the_game_staying_paused_not_a_second_pause(
    lang: str, still: str
) -> None:
    """A CLORE in a pause pauses the phase it opens (pbem/desk/close.py): the archive told it
    as a second « Le MJ a mis la partie en pause » the game master never asked for."""
    table = new_table()
    for line in ("PAUSE", "CLOSE", "RESUME"):
        assert admin(table, line).events, line
    files = archive_files(table, lang)
    paused = SAID[lang][0]
    for text in (files["text"], files["html"].replace("&#39;", "'")):
        assert text.count(paused) == 1 and text.count(still) == 1, text
