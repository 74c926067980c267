"""In-process daemon tests: the coordinator on a tmp data directory, opened by successive
:class:`Service` instances ("processes"). A "process death" is a BaseException raised while a
mail is in hand: no guard catches it and nothing of the batch reaches the disk, as with SIGKILL.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from pbem.adapters.imap import Fetched, ImapSettings
from pbem.adapters.smtp import SendResult, SmtpSettings
from pbem.adapters.store import DaemonStore, GameStore
from pbem.cli.newgame import create_game
from pbem.daemon.config import Config
from pbem.daemon.service import Service
from tests.support import fake_table
from tests.support.daemon_process import mail
from tests.support.mailstack import ADMIN, LIST, MODERATOR

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
PLAYERS = ["alice", "bob", "carol"]


class Died(BaseException):
    """Stands for the death of the process: not an Exception, so no guard catches it."""


class DyingTable(fake_table.Table):
    """The fake engine, dying on ``DIE`` in a mail."""

    def receive(
        self, msg: EmailMessage, *, channel: Any, now: datetime, **kw: Any
    ) -> fake_table.Step:
        if "DIE" in fake_table._text(msg):
            raise Died
        return super().receive(msg, channel=channel, now=now, **kw)


class NoScheduler:
    def arm(self, job: Any, when: datetime, callback: Any, plan: Any = None) -> None:
        pass

    def disarm_game(self, game_id: str, keep: Any) -> None:
        pass


class Accept:
    """A transport that accepts everything and records what it sent."""

    def __init__(self) -> None:
        self.sent: list[list[str]] = []

    async def send(self, mail_from: str, rcpts: Sequence[str], raw: bytes) -> SendResult:
        self.sent.append(list(rcpts))
        return SendResult(sent=list(rcpts))


def make_cfg(tmp: Path, **daemon: Any) -> Config:
    return Config(
        path=tmp / "pbem.toml",
        moderator=MODERATOR,
        bounce=MODERATOR.replace("moderator@", "moderator-bounce@"),
        admins=(ADMIN,),
        list_address=LIST,
        list_id="game.lists.example.test",
        language="en",
        timezone="UTC",
        imap=ImapSettings(host="127.0.0.1", port=1, user=MODERATOR, password="x"),
        smtp=SmtpSettings(host="127.0.0.1", port=1),
        data_dir=tmp / "data",
        engine="tests.support.fake_table:Table",
        **daemon,
    )


class World:
    """One data directory, opened by successive Service instances ("processes")."""

    def __init__(self, tmp: Path, engine: Any = DyingTable, **daemon: Any) -> None:
        self.cfg = make_cfg(tmp, **daemon)
        self.engine = engine
        self.now = T0
        self.mono = 1000.0  # the monotonic clock; advance it with ``now`` (no clock jump)
        self.transport = Accept()
        self.faults: list[str] = []
        self.fault_at: dict[str, Callable[[], None]] = {}
        self.svc: Service | None = None
        self.uid = 0

    def clock(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        """Time passes: the wall clock and the monotonic clock alike."""
        self.now += timedelta(seconds=seconds)
        self.mono += seconds

    def fault(self, point: str) -> None:
        self.faults.append(point)
        action = self.fault_at.get(point)
        if action is not None:
            action()

    def start(self) -> Service:
        if self.svc is not None:
            self.svc.close()
        self.svc = Service(
            cfg=self.cfg,
            engine=self.engine,
            transport=self.transport,
            scheduler=NoScheduler(),
            clock=self.clock,
            fault=self.fault,
            monotonic=lambda: self.mono,
        )
        self.svc.open()
        return self.svc

    def new_game(self, gid: str = "g1", **options: Any) -> None:
        setup = {
            "game": "fake",
            "game_id": gid,
            "players": [{"name": p, "email": f"{p}@example.test"} for p in PLAYERS],
            "options": options,
            "list": LIST,
        }
        create_game(self.cfg, setup, self.engine, self.now)

    def fetched(self, *msgs: EmailMessage) -> list[Fetched]:
        out = []
        for m in msgs:
            self.uid += 1
            raw = bytes(m)
            out.append(Fetched(self.uid, 1, len(raw), self.now, raw))
        return out

    def words(self, gid: str = "g1") -> Counter[str]:
        gs = GameStore(self.cfg.data_dir / "games" / gid, readonly=True)
        return Counter(e["word"] for e in gs.events() if e["type"] == "cmd")

    def daemon_store(self) -> DaemonStore:
        return DaemonStore(self.cfg.data_dir, readonly=True)

    def close(self) -> None:
        if self.svc is not None:
            self.svc.close()
            self.svc = None


def world_with_lupus_g1(tmp_path: Path, **setup: Any) -> World:
    """An in-process daemon's world running the real rules (as ``pbem status`` loads games)
    with one 8-seat English Lupus game, ``g1``, on the list; ``setup`` adds to its setup (a
    bench…)."""
    from pbem.table import Table

    w = World(tmp_path, engine=Table)
    w.cfg = replace(w.cfg, engine="pbem.table:Table")
    players = [{"name": f"p{i}", "email": f"p{i}@example.test"} for i in range(1, 9)]
    game = {"game": "lupus-in-tabula", "game_id": "g1", "lang": "en", "players": players}
    create_game(w.cfg, {**game, "list": LIST, **setup}, Table, w.now)
    return w


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path)
    try:
        yield w
    finally:
        w.close()


def cmd(player: str, word: str) -> EmailMessage:
    return mail(f"{player}@example.test", f"CMD {word}\n", to="moderator+g1@example.test")
