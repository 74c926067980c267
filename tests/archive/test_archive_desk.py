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
    acts = files["text"].split(heading)[1]
    for said in SAID[lang]:
        assert said in acts, said
        assert said.replace('"', "&#34;") in files["html"] or said in files["html"], said


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
    heading = "THE GAME MASTER’S ACTS" if lang == "en" else "LES INTERVENTIONS DU MJ"
    acts = archive_files(g.table, lang)["text"].split(heading)[1]
    assert said in acts
    assert acts.count("Le MJ a déplacé une échéance" if lang == "fr" else "master moved a") == 1


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_each_act_in_the_game_masters_section_links_to_the_phase_that_tells_it(lang: str) -> None:
    """The acts are told twice in the HTML archive: in their phase's story and in the game
    master's own section, which is an index of them: each line there is a link to the phase
    where the act is told, so the reader jumps to it instead of reading it again."""
    table = new_table()
    for line in ("PAUSE the host is ill", "RESUME", "EXTEND 24h", "CLOSE", "REMOVE dave bye"):
        assert admin(table, line).events, line
    html = archive_files(table, lang)["html"]
    index = html.split('id="mj"')[1].split("</ul>")[0]
    links = re.findall(r'<li class="desk"><a href="#(phase-\d+)">[^<]+</a> ?: (.+?)</li>', index)
    assert len(links) == 6, index  # the pause, its reason, and the four other acts
    for target, act in links:
        section = html.split(f'id="{target}">')[1].split("</section>")[0]
        assert f'<li class="desk">{act}</li>' in section, (target, act)
