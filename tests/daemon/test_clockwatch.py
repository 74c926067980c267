"""Clock jumps in a running daemon (F14), with injected clocks: the pure :class:`ClockWatch`, and
the service applying the start-up outage policy when the wall clock steps under it."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Collection, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from pbem.adapters.imap import Fetched, ImapDown, ImapSettings
from pbem.adapters.smtp import SmtpSettings
from pbem.adapters.store import GameStore
from pbem.cli.newgame import create_game
from pbem.daemon.clockwatch import ClockWatch
from pbem.daemon.config import Config
from pbem.daemon.jobs import Job
from pbem.daemon.outbox import SendResult
from pbem.daemon.service import Service
from pbem.daemon.work import Deadline, Reminder
from tests.support.daemon_process import mail
from tests.support.fake_table import Table
from tests.support.mailparts import text_of
from tests.support.mailstack import ADMIN, LIST, MODERATOR

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


# ---- the pure watch --------------------------------------------------------------------------


def test_watch_ignores_normal_time_and_small_drift() -> None:
    w = ClockWatch()
    assert w.observe(100.0, T0) is None  # the first pair is the baseline
    assert w.observe(160.0, T0 + timedelta(seconds=60)) is None
    assert w.observe(460.0, T0 + timedelta(seconds=362)) is None  # NTP slew: 2 s in 5 min
    assert w.observe(460.5, T0 + timedelta(seconds=362.2)) is None  # 0.3 s back: tolerated


def test_watch_reports_forward_backward_and_suspend() -> None:
    w = ClockWatch()
    w.observe(0.0, T0)
    fwd = w.observe(1.0, T0 + timedelta(days=3, seconds=1))
    assert fwd is not None and fwd.forward and fwd.skew == timedelta(days=3)
    assert "forward" in fwd.describe()
    assert w.observe(2.0, T0 + timedelta(days=3, seconds=2)) is None  # new baseline
    back = w.observe(3.0, T0 + timedelta(days=3, seconds=3) - timedelta(hours=1))
    assert back is not None and not back.forward and back.skew == -timedelta(hours=1)
    # a suspend: CLOCK_MONOTONIC stands still while the wall clock runs on
    sus = w.observe(3.0, T0 + timedelta(days=3, hours=2))
    assert sus is not None and sus.forward and sus.elapsed == timedelta(0)


def test_watch_threshold_is_configurable() -> None:
    w = ClockWatch(forward=timedelta(seconds=10), backward=timedelta(seconds=10))
    w.observe(0.0, T0)
    assert w.observe(0.0, T0 + timedelta(seconds=9)) is None
    assert w.observe(0.0, T0 + timedelta(seconds=20)) is not None
    assert w.observe(0.0, T0 + timedelta(seconds=15)) is None  # 5 s back: within 10


# ---- the service, with injected clocks ------------------------------------------------------


class Clocks:
    def __init__(self) -> None:
        self.mono = 1000.0
        self.wall = T0

    def advance(self, seconds: float) -> None:
        self.mono += seconds
        self.wall += timedelta(seconds=seconds)

    def jump(self, delta: timedelta) -> None:
        self.wall += delta  # only the wall clock steps


class FakeScheduler:
    def __init__(self) -> None:
        self.jobs: dict[str, datetime] = {}
        self.keys: dict[str, Job] = {}

    def arm(
        self, job: Job, when: datetime, callback: Callable[[], Awaitable[None]], plan: Any = None
    ) -> None:
        self.jobs[str(job)] = when
        self.keys[str(job)] = job

    def disarm_game(self, game_id: str, keep: Collection[Job]) -> None:
        kept = {str(job) for job in keep}
        for j in [j for j in self.jobs if self.keys[j].game_id == game_id and j not in kept]:
            del self.jobs[j]


class FakeTransport:
    async def send(self, mail_from: str, rcpts: Sequence[str], raw: bytes) -> SendResult:
        raise AssertionError("the sender task is not run here")


class FakeBox:
    def __init__(self, mails: list[Fetched]) -> None:
        self.s = ImapSettings(host="127.0.0.1", port=1, user=MODERATOR, password="x")
        self.uidvalidity = 1
        self.interrupt = threading.Event()
        self.mails = {f.uid: f for f in mails}
        self.moved: dict[int, str] = {}

    @property
    def connected(self) -> bool:
        return True

    def connect(self) -> None:
        pass

    def pending_uids(self) -> list[int]:
        return sorted(self.mails)

    def fetch(self, uids: Sequence[int]) -> list[Fetched]:
        return [self.mails[u] for u in uids if u in self.mails]

    def move(self, uids: Sequence[int], name: str) -> None:
        for u in uids:
            self.mails.pop(u)
            self.moved[u] = name

    def wait(self, max_seconds: float) -> bool:
        return False

    def close(self) -> None:
        pass


def _cfg(tmp: Path) -> Config:
    return Config(
        path=tmp / "pbem.toml",
        moderator=MODERATOR,
        bounce=MODERATOR,
        admins=(ADMIN,),
        list_address=LIST,
        list_id="game.lists.example.test",
        language="en",
        timezone="UTC",
        imap=ImapSettings(host="127.0.0.1", port=1, user=MODERATOR, password="x"),
        smtp=SmtpSettings(host="127.0.0.1", port=1),
        data_dir=tmp / "data",
        outage_threshold_hours=6.0,
        outage_grace_hours=24.0,
    )


def _service(tmp: Path, clocks: Clocks) -> Service:
    cfg = _cfg(tmp)
    setup = {
        "game": "fake",
        "game_id": "g1",
        "list": LIST,
        "players": [{"name": p, "email": f"{p}@example.test"} for p in ("alice", "bob")],
        "options": {"phase_minutes": 60},
    }
    create_game(cfg, setup, Table, clocks.wall)
    svc = Service(
        cfg=cfg,
        engine=Table,
        transport=FakeTransport(),
        scheduler=FakeScheduler(),
        clock=lambda: clocks.wall,
        monotonic=lambda: clocks.mono,
    )
    svc.open()
    svc.deadlines.rearm_all()
    return svc


def _fetched(uid: int, sender: str, body: str, at: datetime) -> Fetched:
    return Fetched(uid, 1, 100, at, bytes(mail(sender, body)))


def _events(svc: Service) -> list[tuple[Any, ...]]:
    return [
        (e["type"], e.get("word") or e.get("n"), e.get("phase"))
        for e in GameStore(svc.root / "games" / "g1", readonly=True).events()
    ]


def _run(svc: Service, body: Callable[[], Awaitable[None]]) -> None:
    async def go() -> None:
        worker = asyncio.create_task(svc.worker())
        try:
            await body()
        finally:
            svc.request_stop()
            await worker
            svc.close()

    asyncio.run(go())


def test_long_forward_jump_extends_and_tells_players(tmp_path: Path) -> None:
    clocks = Clocks()
    svc = _service(tmp_path, clocks)
    box = FakeBox([])
    svc.imap.mailbox = box
    due = T0 + timedelta(hours=1)

    async def body() -> None:
        assert svc.clock_jumps.note() is None  # the baseline
        clocks.advance(10)
        clocks.jump(timedelta(days=3))
        jump = svc.clock_jumps.note()
        assert jump is not None and jump.forward and jump.skew == timedelta(days=3)
        assert box.interrupt.is_set(), "the IMAP wait is cut short"
        # APScheduler reads the wall clock: it fires the deadline at once; it is held
        assert await svc.work.submit(Deadline("g1", "phase-1")) is False
        assert await svc.work.submit(Reminder("g1", "phase-1", 1.0)) == 0
        assert _events(svc) == [("phase", 1, None)]
        await svc.imap.handle_clock_jump(box)
        assert svc.clock_jumps.pending is None and not svc.clock_jumps.hold
        (rec,) = svc.games["g1"].store.deadline_states().values()
        new = datetime.fromisoformat(rec["extended_to"])
        assert new == clocks.wall + timedelta(hours=24) and rec["state"] == "open"
        assert svc.scheduler.jobs["g1:phase-1"] == new  # type: ignore[attr-defined]
        assert _events(svc) == [("phase", 1, None)], "not resolved: extended"
        # the players are told (a public mail to the list), the admins alerted
        rows = [r for r in svc.games["g1"].store.outbox() if r["kind"] == "public"]
        assert any(b"extended" in _raw(r).lower() and LIST in r["rcpts"] for r in rows)
        alerts = [r for r in svc.daemon.outbox() if r["kind"] == "alert"]
        assert len(alerts) == 1 and alerts[0]["rcpts"] == [ADMIN]
        subject, text = _message(alerts[0])
        # French first, English too, like the players' daemon mails
        assert subject.index("l'horloge système a sauté") < subject.index("the wall clock jumped")
        assert "en avant de 72 h" in text and "jumped forward by 72 h" in text
        assert "Traité comme une panne" in text and "Treated as an outage" in text
        # the extended deadline then resolves once
        clocks.advance(24 * 3600 + 1)
        assert await svc.work.submit(Deadline("g1", "phase-1")) is True
        assert await svc.work.submit(Deadline("g1", "phase-1")) is False
        assert [e[0] for e in _events(svc)] == ["phase", "phase"]
        assert due < new

    _run(svc, body)


def _raw(row: dict[str, Any]) -> bytes:
    raw = row["raw"]
    return raw.encode("latin-1") if isinstance(raw, str) else bytes(raw)


def _message(row: dict[str, Any]) -> tuple[str, str]:
    """(Subject, text body) of an outbox row, decoded."""
    import email
    import email.policy
    from email.message import EmailMessage

    msg = email.message_from_bytes(_raw(row), policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return str(msg["Subject"]).strip(), text_of(msg)


def _extension_mail(svc: Service) -> tuple[str, str]:
    mails = [_message(r) for r in svc.games["g1"].store.outbox() if r["kind"] == "public"]
    (mail,) = [m for m in mails if "Deadline extended" in m[0]]  # not the opening post
    return mail


def test_extension_after_a_clock_jump_is_worded_as_a_jump(tmp_path: Path) -> None:
    """A forward jump under a running daemon extends the passed deadline like an outage, but the
    players are not told the game master was unreachable: it never was."""
    clocks = Clocks()
    svc = _service(tmp_path, clocks)
    box = FakeBox([])
    svc.imap.mailbox = box

    async def body() -> None:
        svc.clock_jumps.note()
        clocks.advance(10)
        clocks.jump(timedelta(days=3))
        svc.clock_jumps.note()
        await svc.imap.handle_clock_jump(box)
        subject, text = _extension_mail(svc)
        assert subject == "[g1] Échéance repoussée / [g1] Deadline extended"
        assert text.index("L'horloge du serveur a fait un bond en avant de 72.0 h") < text.index(
            "The server's clock jumped forward by 72.0 h"
        )
        assert "dimanche 1er mars à 13:00 UTC" in text and "Sun 1 Mar 13:00 UTC" in text
        assert "Thu 5 Mar 12:00:10 UTC" in text, "the new deadline: now + the grace"
        assert "injoignable" not in text and "unreachable" not in text

    _run(svc, body)


def test_extension_after_an_outage_keeps_the_outage_wording(tmp_path: Path) -> None:
    """At start-up after a long outage (``down`` from ``last_seen``), the same extension says the
    game master was unreachable, for how long."""
    clocks = Clocks()
    svc = _service(tmp_path, clocks)
    box = FakeBox([])
    svc.imap.mailbox = box

    async def body() -> None:
        clocks.advance(3 * 24 * 3600)  # the daemon was down: no jump seen, start-up drain
        await svc.imap.drain_at_startup(box, down=timedelta(days=3))
        subject, text = _extension_mail(svc)
        assert subject == "[g1] Échéance repoussée / [g1] Deadline extended"
        assert "Le maître du jeu a été injoignable pendant 72.0 h" in text
        assert "The game master was unreachable for 72.0 h" in text
        assert "horloge" not in text and "clock" not in text

    _run(svc, body)


def test_short_forward_jump_drains_mail_first_then_resolves_in_order(tmp_path: Path) -> None:
    clocks = Clocks()
    svc = _service(tmp_path, clocks)
    due = T0 + timedelta(hours=1)
    box = FakeBox(
        [
            _fetched(7, "alice@example.test", "CMD early", due - timedelta(minutes=10)),
            _fetched(8, "bob@example.test", "CMD late", due + timedelta(minutes=10)),
        ]
    )
    svc.imap.mailbox = box

    async def body() -> None:
        svc.clock_jumps.note()
        clocks.jump(timedelta(minutes=90))  # < outage_threshold_hours: drain, then resolve
        assert await svc.work.submit(Deadline("g1", "phase-1")) is False  # held
        await svc.imap.handle_clock_jump(box)
        assert _events(svc) == [
            ("phase", 1, None),
            ("cmd", "early", 1),
            ("phase", 2, None),
            ("cmd", "late", 2),
        ]
        assert box.moved == {7: "Processed", 8: "Processed"}
        assert "extended_to" not in str(svc.games["g1"].store.deadline_states())
        assert "g1:phase-2" in svc.scheduler.jobs  # type: ignore[attr-defined]

    _run(svc, body)


def test_backward_jump_rearms_and_resolves_nothing_twice(tmp_path: Path) -> None:
    clocks = Clocks()
    svc = _service(tmp_path, clocks)
    box = FakeBox([])
    svc.imap.mailbox = box

    async def body() -> None:
        svc.clock_jumps.note()
        clocks.advance(3600)
        assert await svc.work.submit(Deadline("g1", "phase-1")) is True
        after_first = _events(svc)
        assert [e[0] for e in after_first] == ["phase", "phase"]
        clocks.jump(-timedelta(hours=2))  # back before the resolved deadline
        jump = svc.clock_jumps.note()
        assert jump is not None and not jump.forward
        # a stale timer for the resolved phase, fired before and after the handling
        assert await svc.work.submit(Deadline("g1", "phase-1")) is False
        await svc.imap.handle_clock_jump(box)
        assert await svc.work.submit(Deadline("g1", "phase-1")) is False
        assert await svc.work.submit(Deadline("g1", "phase-1", clocks.wall)) is False
        assert _events(svc) == after_first
        # the next phase stays armed at its own (wall) time, not resolved early
        nxt = svc.games["g1"].table.deadlines()["phase-2"]
        assert svc.scheduler.jobs["g1:phase-2"] == nxt  # type: ignore[attr-defined]
        alerts = [r for r in svc.daemon.outbox() if r["kind"] == "alert"]
        assert len(alerts) == 1
        _, text = _message(alerts[0])
        assert "en arrière de 2 h" in text and "jumped backward by 2 h" in text
        assert "none is resolved twice" in text

    _run(svc, body)


def test_two_jumps_before_handling_add_up() -> None:
    w = ClockWatch()
    w.observe(0.0, T0)
    a = w.observe(10.0, T0 + timedelta(hours=1, seconds=10))
    assert w.observe(70.0, T0 + timedelta(hours=1, seconds=70)) is None
    b = w.observe(80.0, T0 + timedelta(hours=4, seconds=80))
    assert a is not None and b is not None
    both = a.then(b)
    assert both.skew == timedelta(hours=4) and both.elapsed == timedelta(seconds=80)
    back = w.observe(81.0, T0 + timedelta(seconds=81))  # and all the way back
    assert back is not None and both.then(back).skew == timedelta(0)


class DroppingBox(FakeBox):
    def __init__(self, mails: list[Fetched]) -> None:
        super().__init__(mails)
        self.drops = 1

    def pending_uids(self) -> list[int]:
        if self.drops:
            self.drops -= 1
            raise ImapDown("dropped")
        return super().pending_uids()


def test_jump_survives_an_imap_drop_mid_handling(tmp_path: Path) -> None:
    clocks = Clocks()
    svc = _service(tmp_path, clocks)
    box = DroppingBox([])
    svc.imap.mailbox = box

    async def body() -> None:
        svc.clock_jumps.note()
        clocks.jump(timedelta(days=3))
        svc.clock_jumps.note()
        with pytest.raises(ImapDown):
            await svc.imap.handle_clock_jump(box)
        # still pending: a scheduler-fired deadline stays held until the reconnection
        assert svc.clock_jumps.pending is not None and not svc.clock_jumps.hold
        assert await svc.work.submit(Deadline("g1", "phase-1")) is False
        await svc.imap.handle_clock_jump(box)
        assert svc.clock_jumps.pending is None
        (rec,) = svc.games["g1"].store.deadline_states().values()
        assert rec.get("extended_to") and _events(svc) == [("phase", 1, None)]
        alerts = [r for r in svc.daemon.outbox() if r["kind"] == "alert"]
        assert len(alerts) == 1, "one alert, not one per attempt"

    _run(svc, body)
