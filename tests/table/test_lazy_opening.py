"""A new game's opening mails are rendered when first read (issue 23: render only what is
sent): a game set up and stored without sending them renders none, the mails read late are
the ones read at once, and whoever sends them (``pbem new-game``) still reads them all."""

from __future__ import annotations

import email
import email.policy
from dataclasses import astuple
from datetime import datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from pbem.adapters.store import GameStore
from pbem.cli.newgame import create_game
from pbem.mail.render import Renderer
from pbem.table import Table
from pbem.table.mails import committed, step_of
from pbem.table.step import Outgoing
from pbem.tools.demo import demo_setup
from pbem.tools.simulate import EPOCH
from tests.support.inproc_daemon import T0, make_cfg

SEALED = {"deal_salt": "0123456789abcdef" * 2, "admins": ["mj@village.example"]}


def _mails(outgoing: tuple[Outgoing, ...]) -> list[tuple[Any, ...]]:
    return [(*astuple(o), o.html) for o in outgoing]


def _eager(
    setup: dict[str, Any], now: datetime = EPOCH
) -> tuple[tuple[dict[str, Any], ...], list[tuple[Any, ...]]]:
    """The opening as it was made before it was lazy: rendered with the step."""
    table, lazy = Table.new(setup, now)
    events = list(lazy.facts)
    if "deal_salt" in setup:
        step = committed(table, events[:-1], setup["deal_salt"])  # less its DealCommitted
    else:
        step = step_of(table, events, reply=None)
    return step.events, _mails(step.outgoing)


def test_a_new_game_renders_no_mail_until_its_opening_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rendered: list[str] = []
    real = Renderer.mail

    def counted(self: Renderer, template: str, *args: Any, **kw: Any) -> tuple[str, str]:
        rendered.append(template)
        return real(self, template, *args, **kw)

    monkeypatch.setattr(Renderer, "mail", counted)
    _table, step = Table.new(demo_setup("lupus-in-tabula", 8, 1, "fr"), EPOCH)
    assert step.events and not rendered
    assert len(step.outgoing) > 8 and rendered  # the opening post, each role card...
    read = len(rendered)
    assert step.outgoing and len(rendered) == read  # kept: rendered once


@pytest.mark.parametrize("sealed", [False, True], ids=["open", "sealed"])
@pytest.mark.parametrize(
    ("game", "players"), [("lupus-in-tabula", 8), ("loup-garou", 16), ("dracula", 13)]
)
def test_the_opening_read_late_is_the_opening_read_at_once(
    game: str, players: int, sealed: bool
) -> None:
    setup = {**demo_setup(game, players, 4, "fr"), **(SEALED if sealed else {})}
    events, eager = _eager(setup)
    _table, step = Table.new(setup, EPOCH)
    assert step.events == events and _mails(step.outgoing) == eager  # read at once
    table, step = Table.new(setup, EPOCH)
    table.apply(step)  # the game moved on before anyone read its opening
    assert step.events == events and _mails(step.outgoing) == eager
    assert table.state == table.rules.fold(table.ruled)


def test_new_game_queues_every_opening_mail_in_the_outbox(tmp_path: Path) -> None:
    """``pbem new-game`` (the daemon's way in) reads the opening and writes each of its mails
    as an outbox row, as it did when the opening was rendered with the step."""
    cfg = make_cfg(tmp_path)
    setup = {**demo_setup("lupus-in-tabula", 8, 2, "fr"), "game_id": "v1", "deal_salt": "ab" * 16}
    _events, eager = _eager(setup, T0)
    create_game(cfg, setup, Table, T0)
    rows = GameStore(cfg.data_dir / "games" / "v1", readonly=True).outbox()
    assert len(rows) == len(eager) > 8
    for row, (_key, to, public, _subject, body, *_rest) in zip(rows, eager, strict=True):
        mail = email.message_from_bytes(row["raw"].encode("latin-1"), policy=email.policy.default)
        assert isinstance(mail, EmailMessage)
        text = mail.get_body(("plain",))
        assert text is not None
        sent = text.get_content().replace("\r\n", "\n")  # filed in its thread, titled
        assert all(line in sent for line in body.splitlines())
        assert row["kind"] == ("public" if public else "reply")
        assert public or tuple(row["rcpts"]) == to
