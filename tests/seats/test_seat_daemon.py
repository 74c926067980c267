"""Issue 13: the daemon's side of a substitution (pbem/seat_daemon.py), on a real game store:
the newcomer's new secret code, the seat's bounce record cleared."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

from pbem.adapters.codes import hash_secret, verify_secret
from pbem.adapters.store import GameStore
from pbem.core.events import Substituted
from pbem.core.ids import PlayerId
from pbem.daemon.seats import seat_rows
from pbem.mail.render import shared_renderer
from pbem.table import Step

NOW = datetime(2026, 1, 5, 18, 0, tzinfo=UTC)
EVENT = Substituted(PlayerId("carol"), "carol", "carol@x.org", "Zoe", "zoe@y.org", "en", "f")


def _game(tmp_path: Path, secrets: bool, empty: bool = False) -> SimpleNamespace:
    extra = {"secrets": {"carol": hash_secret("old-code")}} if secrets else None
    if empty:  # a game opened for sign-ups keeps an empty table of codes
        extra = {"secrets": {}}
    store = GameStore.create(tmp_path, "g1", {"game": "lupus-in-tabula"}, [], [], meta_extra=extra)
    store.commit(bounces=[{"player": "carol", "count": 3, "unreachable": True}])
    return SimpleNamespace(id="g1", store=store)


SERVICE = SimpleNamespace(
    texts=shared_renderer("UTC"),
    cfg=SimpleNamespace(moderator="moderator@x.org", bounce="bounce@x.org", html_mail=True),
    id_key=b"k" * 32,
)


def test_a_newcomer_gets_a_new_code_and_the_seat_a_clean_bounce_record(tmp_path: Path) -> None:
    game = _game(tmp_path, secrets=True)
    (row,) = seat_rows(SERVICE, game, Step(facts=(EVENT,)), NOW)
    assert row["rcpts"] == ["zoe@y.org"]
    raw = row["raw"]
    code = raw.split("secret code in g1: ", 1)[1].split()[0]
    stored = game.store.meta["secrets"]["carol"]
    assert verify_secret(code, stored) and not verify_secret("old-code", stored)
    record = game.store.bounce_states()["carol"]
    assert record["count"] == 0 and not record["unreachable"]
    assert record["cleared_by"] == "substitution"


@pytest.mark.parametrize("empty", [False, True])
def test_no_code_is_mailed_in_a_game_without_secret_codes(tmp_path: Path, empty: bool) -> None:
    game = _game(tmp_path, secrets=False, empty=empty)
    assert seat_rows(SERVICE, game, Step(facts=(EVENT,)), NOW) == []
    assert not game.store.meta.get("secrets")
    assert not game.store.bounce_states()["carol"]["unreachable"]


def test_a_former_player_gets_each_refusal_on_the_members_budget(tmp_path: Path) -> None:
    """Issue 26 item 2 (LUP-602): the address whose seat changed hands is no stranger (whose
    ``errors_per_hour`` of 1 let its list post's refusal through and silenced its STATUS a
    second later): each of its mails gets its polite refusal, on the players' budget."""
    from collections import Counter

    from pbem.daemon.limits import SenderLimits
    from pbem.daemon.ports import Game
    from pbem.daemon.replies import Replies
    from tests.seats.test_seat_rules import admin, mail, new_table
    from tests.support.inproc_daemon import make_cfg

    table = new_table()
    admin(table, "REPLACE carol WITH zoe@example.net Zoe")
    store = SimpleNamespace(game_id="g1", setup={"game": "lupus-in-tabula", "lang": "en"})
    game = Game(store, table, set())  # type: ignore[arg-type]
    cfg = make_cfg(tmp_path)
    replies = Replies(
        cfg, shared_renderer(), b"k" * 32, SenderLimits(1, 10), {"g1": game}, Counter()
    )
    assert "carol@example.org" in replies.members(game)
    for n, line in enumerate(("VOTE alice", "STATUS")):
        step = table.receive(mail("carol@example.org", f"{line}\n{n}"), channel="private", now=NOW)
        (row,) = replies.rows(game, step, NOW, error=True)
        assert row["rcpts"] == ["carol@example.org"]
