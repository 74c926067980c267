"""A private notice to several readers is rendered once per language when its template never
reads the reader's ``name`` (issue 23), and reads as rendered for each reader."""

from __future__ import annotations

from typing import Any

import pytest

from pbem.core.events import Notice, private
from pbem.core.ids import PlayerId
from pbem.mail.render import Renderer
from pbem.table import Table
from pbem.table.mailpages import MailPages
from pbem.table.mails import notice_mails
from pbem.tools.demo import demo_setup
from pbem.tools.simulate import EPOCH
from tests.support.renders import count_renders


def test_the_packs_victim_is_rendered_once_and_a_named_notice_for_each() -> None:
    setup = demo_setup("lupus-in-tabula", 8, 1, "fr")
    setup["players"][2]["lang"] = "en"  # a reader of the other language: his own text
    table, step = Table.new(setup, EPOCH, Renderer())
    table.apply(step)
    readers = [PlayerId(p.name) for p in table.setup.players[:3]]
    rendered = count_renders(table.renderer)
    victim = private("lupus/wolves_victim", readers, victim="Damien", drawn_among=[])
    mails = notice_mails(table, victim, "k")
    assert rendered == ["lupus/wolves_victim"] * 2  # French once, English once
    fresh = Renderer()
    for mail, name in zip(mails, readers, strict=True):
        lang = table.by_name[name].lang
        params = {"game": table.rules.title, "genders": table.genders, "name": name}
        expected = fresh.mail("lupus/wolves_victim", lang, {**params, **victim.params})
        assert (mail.subject, mail.body) == expected
    assert mails[0].body == mails[1].body != mails[2].body
    rendered.clear()
    masons = private("lupus/masons", readers, others=["Damien"])
    named = notice_mails(table, masons, "m")
    assert rendered == ["lupus/masons"] * 3 and len({m.body for m in named}) == 3


def test_a_template_that_includes_another_may_read_anything() -> None:
    renderer = Renderer()
    assert not renderer.reads("lupus/wolves_victim", "fr", "name")
    assert renderer.reads("lupus/masons", "fr", "name")
    assert renderer.reads("dracula/dusk", "en", "name")  # it imports the role macros


def test_a_public_notices_page_is_for_every_seat_named_once_per_setup(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The readers of a public notice's page (its quick actions, LUP-400's votes) are every
    seat in the setup's order; the tuple is made once per setup, not per notice (issue 23)."""
    table, step = Table.new(demo_setup("lupus-in-tabula", 8, 1, "fr"), EPOCH, Renderer())
    table.apply(step)
    seats = table.setup.seats
    assert seats == tuple(PlayerId(p.name) for p in table.setup.players)
    assert table.setup.seats is seats
    asked: list[tuple[PlayerId, ...]] = []
    prompt = MailPages.prompt

    def spy(self: MailPages, *args: Any, **kwargs: Any) -> str:
        asked.append(args[4])
        return prompt(self, *args, **kwargs)

    monkeypatch.setattr(MailPages, "prompt", spy)
    notice = next(e for e in table.events if isinstance(e, Notice) and e.public)
    for mail in notice_mails(table, notice, "k", table.state):
        assert isinstance(mail.html, str)
    assert asked == [seats]
