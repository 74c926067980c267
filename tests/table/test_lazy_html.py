"""A mail's HTML part is made when it is first read, once (issue 23: render only what is
sent): a step nobody sends makes no page, and the page read is the one the table as it was
would have made."""

from __future__ import annotations

import random
from typing import Any

import pytest

from pbem.table import Table
from pbem.table.mailpages import MailPages
from pbem.tools.demo import demo_setup, play
from pbem.tools.simulate import EPOCH


def test_a_step_makes_its_pages_only_when_read(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []
    for name in ("page", "prompt"):
        real = getattr(MailPages, name)

        def counted(self: MailPages, *args: Any, _real: Any = real, **kw: Any) -> str:
            made.append(args[0])
            page: str = _real(self, *args, **kw)
            return page

        monkeypatch.setattr(MailPages, name, counted)
    _table, step = Table.new(demo_setup("lupus-in-tabula", 8, 1, "fr"), EPOCH)
    assert step.outgoing and not made
    first = step.outgoing[0]
    page = first.html
    assert page.startswith("<!DOCTYPE html>") and len(made) == 1
    assert first.html is page and len(made) == 1  # kept: made once


def test_a_page_read_after_the_game_moved_on_is_the_page_of_its_moment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table, step = Table.new(demo_setup("lupus-in-tabula", 8, 3, "fr"), EPOCH)
    table.apply(step)
    sent = play(table, random.Random(3))
    late = [mail.html for mail in sent]  # read once the game is over
    table, step = Table.new(demo_setup("lupus-in-tabula", 8, 3, "fr"), EPOCH)
    table.apply(step)
    timely: list[str] = []

    def commit_reading(mails: Any) -> None:
        timely.extend(mail.html for mail in mails)

    real_apply = Table.apply

    def apply(self: Table, step: Any) -> None:
        commit_reading(step.outgoing)  # read as the daemon does, before the next mail
        real_apply(self, step)

    monkeypatch.setattr(Table, "apply", apply)
    play(table, random.Random(3))
    assert late == timely and any("mailto:" in page for page in late)
