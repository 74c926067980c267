"""The daemon's side of HISTORY and DIGEST (issue 25), on a real game store, without a mail
server: HISTORY spends the player's reply budget as HELP does; the daily digest's job is armed
with the game's deadlines and its mails are committed with the day's event, once."""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Collection
from datetime import datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from pbem.adapters.store import GameStore
from pbem.daemon.deadlines import Deadlines
from pbem.daemon.digests import Digests, next_digest
from pbem.daemon.jobs import DigestJob, Job
from pbem.daemon.limits import SenderLimits
from pbem.daemon.ports import Game
from pbem.daemon.replies import Replies
from pbem.mail.render import shared_renderer
from pbem.table import Table
from tests.support.game_by_mail import Game as MailGame
from tests.support.game_by_mail import lupus_roles
from tests.support.inproc_daemon import make_cfg


def _mail(sender: str, body: str, n: int) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "moderator"
    msg["Subject"] = ""
    msg["Message-ID"] = f"<h{n}@test>"
    msg.set_content(body)
    return msg


ROLES = lupus_roles(8)
SETUP: dict[str, Any] = {  # as tests.support.game_by_mail.Game sets it up
    "moderator": "moderator",
    "game": "lupus-in-tabula",
    "seed": 1,
    "lang": "fr",
    "players": [{"name": n, "email": f"{n}@example.org", "lang": "fr"} for n in ROLES],
    "roles": dict(ROLES),
    "options": {},
}


def _game(tmp_path: Path) -> tuple[Game, MailGame]:
    played = MailGame(ROLES, lang="fr")
    encode = played.table.rules.codec.encode
    store = GameStore.create(tmp_path, "g1", SETUP, [encode(e) for e in played.table.events], [])
    return Game(store, played.table, set()), played


def test_history_spends_the_reply_budget_as_help_does(tmp_path: Path) -> None:
    """A HISTORY changes nothing (no event): it is answered from the member's burst, then not."""
    game, played = _game(tmp_path)
    replies = Replies(
        make_cfg(tmp_path),
        shared_renderer(),
        b"k" * 32,
        SenderLimits(1, 10, 2, 1),
        {"g1": game},
        Counter(),
    )
    now = played.now
    sent = []
    for n in range(3):
        step = played.table.receive(
            _mail("p4@example.org", "HISTORIQUE", n), channel="private", now=now
        )
        assert not step.events
        sent.append(len(replies.rows(game, step, now, error=not step.events)))
    assert sent == [1, 1, 0]


class _Scheduler:
    def __init__(self) -> None:
        self.armed: dict[Job, datetime] = {}

    def arm(
        self, job: Job, when: datetime, callback: Callable[[], Awaitable[None]], plan: Any = None
    ) -> None:
        self.armed[job] = when

    def disarm_game(self, game_id: str, keep: Collection[Job]) -> None:
        self.armed = {j: w for j, w in self.armed.items() if j in keep}


def test_the_digest_is_armed_sent_with_its_event_and_once(tmp_path: Path) -> None:
    """LUP-004: night 1's dawn is the day's post. DIGEST on arms the game's digest job at the
    configured hour (game time); sending commits the day's event with the mails; a second
    run of the day, in a restarted daemon (the table loaded again from the store), sends
    nothing."""
    game, played = _game(tmp_path)
    played.mail("p4", "DIGEST on")
    played.deadline()
    cfg = make_cfg(tmp_path, digest_hour=20)
    game.store.commit(
        events=[
            played.table.rules.codec.encode(e)
            for e in played.table.events[len(game.store.events()) :]
        ]
    )
    clock = {"now": played.now}
    replies = Replies(cfg, shared_renderer(), b"k" * 32, SenderLimits(), {"g1": game}, Counter())
    digests = Digests(cfg, {"g1": game}, lambda: clock["now"], replies, lambda: None)
    scheduler = _Scheduler()
    deadlines = Deadlines(
        cfg,
        {"g1": game},
        lambda: clock["now"],
        scheduler,
        lambda w: None,
        replies,
        None,
        lambda _: None,
        lambda: None,
        digests=digests,  # type: ignore[arg-type]
    )
    deadlines.rearm(game)
    at = scheduler.armed[DigestJob("g1")]
    assert at == next_digest(played.now, 20, "UTC") and at.hour == 20
    clock["now"] = at
    before = len(game.store.outbox())
    assert digests.send("g1") == 1
    rows = game.store.outbox()[before:]
    assert [r["rcpts"] for r in rows] == [["p4@example.org"]]
    assert game.store.events()[-1]["type"] == "DigestSent"
    restarted = Table.load(SETUP, game.store.events())
    again = Digests(
        cfg, {"g1": Game(game.store, restarted, set())}, lambda: at, replies, lambda: None
    )
    assert again.send("g1") == 0
    assert len(game.store.outbox()) == before + 1
