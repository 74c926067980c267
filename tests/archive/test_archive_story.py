"""Issue 22: the archive is the story a game master posts at the end, in the reader's
language — never an event dump. Rendered for a whole bot game of each game in French and
English (players who gave their gender), it must hold no event class name, no internal id
(role, side, condition, room, object, verb, phase, ballot) and no ISO timestamp; it tells
each phase in sentences, the private exchanges whole, the vote timeline, the game master's
acts, and agrees with each player's gender (issue 26 item 3)."""

from __future__ import annotations

import importlib
import re

import pytest

from pbem.core.events import COMMON_EVENTS, RoleChanged, RolesDealt
from pbem.record.archive import archive_files
from pbem.table import Table
from tests.archive.bot_games import GAMES, WOMEN, whole_game

CASES = [(g, lang) for g in GAMES for lang in ("fr", "en")]
ISO = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")
PROSE = {"en": set(), "fr": {"vote", "vampire", "crucifix", "boudoir", "torture", "grimoire"}}
"""Ids that are also the reader's own word for the thing (« vote pour », « vampire »)."""
CODE = re.compile(r"[A-Z][a-z]+[A-Z]|[_#:\d]|^[A-Z]+\d")
"""An id no English sentence holds: a class name (NightResolved), a code (W1, dracula_room).
An English reader's archive is checked for these (its other ids are English words: "bite",
"pack", "debate"); a French reader's for every id."""
MAIL = re.compile(r'<summary>.*?</summary><div class="mail">.*?</div>', re.S)
QUOTED = re.compile(r"^ *\[(?:À |To |Sur la liste|On the list).*\n(?:  \|.*\n?)*", re.M)


def machine_words(table: Table) -> set[str]:
    """Every id the game's code uses: event classes, roles, sides, conditions, verbs,
    phases, ballots, Dracula's rooms and objects."""
    rules = table.rules
    package = type(rules).__module__.rpartition(".")[0]
    ids = {t.__name__ for t in (*COMMON_EVENTS, *rules.event_types)}
    ids |= set(importlib.import_module(f"{package}.roles").ROLES)
    ids |= {s.verb for s in rules.all_commands}
    for event in table.events:
        if isinstance(event, RolesDealt):
            ids |= set(event.roles.values()) | set(event.leftover)
        elif isinstance(event, RoleChanged):
            ids.add(event.role)
        ids |= {getattr(event, "phase", "") or "", getattr(event, "ballot", "") or ""}
    for seat in table.summary().get("players", []):
        ids |= {str(seat.get("team", "")), *map(str, seat.get("conditions", []))}
    if table.rules.id == "dracula":
        manor = importlib.import_module("pbem.games.dracula.manor")
        ids |= {*manor.ORDINARY, manor.SANCTUARY, *manor.NORMAL_OBJECTS, *manor.SPECIAL_OBJECTS}
    return {i for i in ids if len(i) > 1}


def story(text: str, deal: str) -> str:
    """The archive without its deal section: the committed deal is the canonical JSON the
    digest covers, byte for byte (ids and all), so that anyone can recompute it."""
    return text[: text.rindex(deal)]


def parts(table: Table, files: dict[str, str]) -> tuple[list[str], list[str]]:
    """(the archive's own words, the mails it quotes whole), HTML and text, without the
    CSS, the tags, the deal's reveal and the game's id (the operator's name for it)."""
    page = story(files["html"], 'id="donne"')
    page = re.sub(r"<style>.*?</style>", "", page, flags=re.S)
    text = story(files["text"], "LA DONNE" if table.setup.lang == "fr" else "THE DEAL")
    mails = MAIL.findall(page) + QUOTED.findall(text)
    own = [re.sub(r"<[^>]+>", " ", MAIL.sub("", page)), QUOTED.sub("", text)]
    for shown in (f"({table.game_id})", f"— {table.game_id} —"):
        own = [o.replace(shown, "") for o in own]
    return own, [re.sub(r"<[^>]+>", " ", m) for m in mails]


@pytest.mark.parametrize(("game", "lang"), CASES)
def test_the_archive_holds_no_machine_word_no_id_and_no_iso_time(game: str, lang: str) -> None:
    table = whole_game(game, lang, gendered=True)
    own, mails = parts(table, archive_files(table))
    ids = machine_words(table) - PROSE[lang]
    if lang == "en":
        ids = {i for i in ids if CODE.search(i)}
    classes = {i for i in ids if re.fullmatch(r"(?:[A-Z][a-z]+){2,}", i)}
    assert mails and own
    for rendered, words in [*((o, ids) for o in own), *((m, classes) for m in mails)]:
        pattern = re.compile(
            r"(?<![\w-])(" + "|".join(map(re.escape, sorted(words))) + r")(?![\w-])"
        )
        found = [
            rendered[max(0, m.start() - 60) : m.end() + 20] for m in pattern.finditer(rendered)
        ]
        assert not found, found[:5]
        assert not ISO.search(rendered), ISO.search(rendered)


@pytest.mark.parametrize(("game", "lang"), CASES)
def test_no_event_is_named_by_its_class_even_in_words(game: str, lang: str) -> None:
    """Issue 26 item 5: the timeline printed « Idiot Chosen », « Mayor Elected », « Night
    Resolved » (a class name split into words) in French pages."""
    table = whole_game(game, lang, gendered=True)
    files = archive_files(table)
    names = {t.__name__ for t in (*COMMON_EVENTS, *table.rules.event_types)}
    spaced = {re.sub(r"(?<!^)(?=[A-Z])", " ", n) for n in names} - names
    for rendered in (files["html"], files["text"]):
        assert not [s for s in spaced if s in rendered]


MASCULINE = re.compile(r"\b(?:mort|vivant|gagnant|lynché|tué|dévoré|empoisonné|brûlé|retiré)\b")


@pytest.mark.parametrize("game", GAMES)
def test_the_cast_agrees_with_each_players_gender(game: str) -> None:
    """Issue 26 item 3: « Alice : … mort (lynché, Jour 1) », « — gagnant », « vivant —
    gagnant » for women, in the text body and the HTML page alike. Each woman's line in the
    cast holds no masculine form of the words it uses; each man's no feminine one."""
    table = whole_game(game, "fr", gendered=True)
    files = archive_files(table)
    text = files["text"].split("DISTRIBUTION\n")[1].split("\n\n")[0]
    page = files["html"].split('id="distribution"')[1].split("</table>")[0]
    rows = [ln for ln in text.splitlines() if ln.startswith("- ")]
    rows += re.findall(r"<tr class=[^>]*>(.*?)</tr>", page, re.S)
    checked = 0
    for row in rows:
        first = re.search(r"<td[^>]*>([^<(★&]+)", row) or re.match(r"- (\S+)", row)
        assert first
        name = first.group(1).strip()
        woman = name in WOMEN
        fate = row.split("</span>", 1)[-1] if "<td" in row else row.split(",", 1)[-1]
        if woman:
            assert not MASCULINE.search(fate), row
            checked += bool(re.search(r"\b(?:morte|vivante|gagnante)\b", fate))
        else:
            assert not re.search(r"\b(?:morte|vivante|gagnante)\b", fate), row
    assert checked  # some woman died, lived or won in this game


def test_a_game_of_rounds_counts_its_rounds_not_its_phases() -> None:
    """Issue 22: « 13 joueurs, 5 jours, 65 phases » for a three-round Dracula game."""
    text = archive_files(whole_game("dracula", "fr"))["text"]
    assert text.splitlines()[1] == "13 joueurs, 3 manches."
    en = archive_files(whole_game("dracula", "en"))["text"]
    assert en.splitlines()[1] == "13 players, 3 rounds."


def test_a_private_mail_is_kept_whole() -> None:
    """Issue 22: private mails were cut to their first line (« voici l'équipe des
    Loups-garous : » and nothing after); the wolves' list now follows it, and the page
    folds each mail in a <details>."""
    files = archive_files(whole_game("loup-garou", "fr"))
    lines = files["text"].splitlines()
    at = next(i for i, ln in enumerate(lines) if "voici l'équipe des Loups-garous :" in ln)
    assert lines[at + 1].startswith("  |   - ") and lines[at + 2].startswith("  |   - ")
    team = re.search(
        r"voici l&#39;équipe des Loups-garous :\n(.*?)</div></details>", files["html"], re.S
    )
    assert team and team.group(1).count("\n  - ") >= 2


def test_the_text_archive_has_its_title_once() -> None:
    """Issue 22: the text archive repeated its title."""
    text = archive_files(whole_game("lupus-in-tabula", "fr"))["text"]
    title = text.splitlines()[0]
    assert text.count(title) == 1


@pytest.mark.parametrize(("lang", "cue"), [("fr", "en gras sur fond rose"), ("en", "in bold")])
def test_the_vote_timeline_names_the_cue_its_majority_row_has(lang: str, cue: str) -> None:
    """The caption said « en rouge » of a row drawn bold on a pale pink ground: it names what
    a reader sees (bold, which a colour-blind reader and a printout keep too)."""
    page = archive_files(whole_game("lupus-in-tabula", lang))["html"]
    assert 'class="majority"' in page and cue in page
    assert re.search(r"\.majority td\{[^}]*font-weight:bold", page)
    assert "en rouge" not in page and "in red" not in page


@pytest.mark.parametrize(("game", "lang"), CASES)
def test_the_cast_says_the_night_and_the_day_of_a_death_alike(game: str, lang: str) -> None:
    """LUP-217, LG-224, CAS-223, DRA-471: the cast and the story said « dévoré (nuit 7) »
    beside « lynchée au jour 7 »: now « la nuit 7 », « le jour 7 » (Dracula: « la journée 2 »
    and the round, « à la fin de la manche 1 », as its headings say them)."""
    text = archive_files(whole_game(game, lang), lang)["text"]
    deaths = [
        line
        for line in text.splitlines()
        if line.startswith("  † ")
        or (line.startswith("- ") and (" mort" in line or " dead" in line))
    ]
    assert deaths, game
    for line in deaths:
        assert not re.search(r"\((?:nuit|night|jour|day|phase finale|final phase)\b", line), line
        assert not re.search(r"\bau jour \d", line), line
