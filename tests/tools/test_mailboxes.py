"""A whole game of each of the four games as each reader's mailbox (issue 15): every mail as
the daemon writes it parses, has its text and its HTML part, holds no template leftover, no
form tests/test_grammar.py forbids, and both parts name the same players."""

from __future__ import annotations

import mailbox
import re
from datetime import datetime
from html import unescape
from pathlib import Path

import pytest

from pbem.table import Step, Table
from pbem.tools.demo import demo_setup
from pbem.tools.mailboxes import GAME_MASTER, GAMES, play_and_deliver, write_mailboxes
from tests.support.mailparts import parse
from tests.test_grammar import EVERYWHERE, FORBIDDEN

LEFTOVERS = re.compile(r"\{\{|\}\}|\{%|%\}|\bNone\b|\bUndefined\b")
_ACTIONS = re.compile(r"<!--actions-->.*?<!--/actions-->", re.S)
_TITLE = re.compile(r"<title>.*?</title>", re.S)
_TAG = re.compile(r"<[^>]+>")


def visible(page: str) -> str:
    """The text a reader sees in the page, the quick actions left out (their links name the
    choices the text leaves to the reader: « TUER nom »)."""
    return unescape(_TAG.sub(" ", _TITLE.sub("", _ACTIONS.sub("", page))))


def named(text: str, names: list[str]) -> set[str]:
    return {n for n in names if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text)}


def faults(text: str, lang: str) -> list[str]:
    return [
        f"{why}: {m.group(0)!r}"
        for pattern, why in FORBIDDEN[lang] + EVERYWHERE
        for m in re.finditer(pattern, text)
    ]


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("game", GAMES)
def test_a_whole_game_reads_correctly_in_every_players_mailbox(
    game: str, lang: str, tmp_path: Path
) -> None:
    paths = write_mailboxes(tmp_path, game, lang)
    assert any(p.name == f"{GAME_MASTER}.mbox" for p in paths)  # the game master's too
    problems: set[str] = set()
    count = 0
    checked: set[bytes] = set()  # a list post is the same mail in every player's mailbox
    players = [p["name"] for p in demo_setup(game, 0, 1, lang)["players"]]
    for path in paths:
        box = mailbox.mbox(path, create=False)
        # each mail's bytes as the file holds them (iterating the box would parse each one,
        # and as_bytes() write it again, before the test parses it)
        raws = [box.get_bytes(key) for key in box.iterkeys()]
        box.close()
        for raw in raws:
            count += 1
            if raw in checked:
                continue  # the same bytes read the same way: checked in another mailbox
            checked.add(raw)
            parsed = parse(raw)
            assert parsed.get_content_type() == "multipart/alternative", parsed["Subject"]
            plain, page = parsed.get_body(("plain",)), parsed.get_body(("html",))
            assert plain is not None and page is not None
            subject = str(parsed["Subject"])
            text, html = str(plain.get_content()), str(page.get_content())
            for where, content in (("text", subject + "\n" + text), ("html", visible(html))):
                problems.update(
                    f"{subject}: {where}: leftover {m.group(0)!r}"
                    for m in LEFTOVERS.finditer(content)
                )
            problems.update(f"{subject}: {f}" for f in faults(subject + "\n" + text, lang))
            said_text = named(subject + "\n" + text, players)
            said_html = named(visible(html), players)
            if said_text != said_html:
                problems.add(f"{subject}: names differ: text {said_text}, html {said_html}")
    assert count > 100
    assert not problems, "\n".join(sorted(problems)[:40])


def test_a_game_played_without_its_mail_built_is_the_same_game() -> None:
    """``deliver=False`` (the tests that read the steps' mails in ``observe``): the same game,
    step for step, and no mail built."""
    steps: dict[bool, list[tuple[int, int]]] = {True: [], False: []}
    for deliver in (True, False):
        seen = steps[deliver]

        def observe(
            table: Table, step: Step, _now: datetime, seen: list[tuple[int, int]] = seen
        ) -> None:
            seen.append((len(table.events), len(step.outgoing)))

        table, delivered = play_and_deliver("lupus-in-tabula", "en", 3, observe, deliver=deliver)
        assert table.finished and bool(delivered) == deliver
    assert steps[True] == steps[False] and len(steps[True]) > 20
