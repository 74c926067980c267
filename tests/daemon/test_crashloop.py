"""Crash-loop containment (pbem.daemon.inflight): a mail that kills the process is blamed, counted and
quarantined after ``max_failures`` crashes; the other mails are applied exactly once.

In-process tests (tests/support/inproc_daemon.py) stand for the death of the process with a
BaseException; the real-daemon test kills ``pbem serve`` for real (SIGKILL from inside the
engine) and restarts it as systemd ``Restart=`` would.
"""

from __future__ import annotations

import email
import email.policy
import os
from collections import Counter
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem.adapters.store import DaemonStore
from pbem.daemon.inflight import COMMIT, Marker, blame, count_crash, due_for_retry, record
from pbem.daemon.message import content_key
from pbem.daemon.service import Service
from tests.support import fake_table
from tests.support.daemon_process import (
    Daemon,
    game_state,
    mail,
    new_fake_game,
    pbem,
    send,
    wait_for,
    write_config,
)
from tests.support.inproc_daemon import PLAYERS, T0, Died, World, cmd, world
from tests.support.mailparts import text_of
from tests.support.mailstack import ADMIN, MODERATOR, MailStack

__all__ = ["world"]  # the fixture


def _burst(poison_at: int | None, n: int = 5) -> list[EmailMessage]:
    out = []
    for i in range(n):
        body = "CMD poison\nDIE\n" if i == poison_at else f"CMD w{i}\n"
        out.append(mail(f"{PLAYERS[i % 3]}@example.test", body, to="moderator+g1@example.test"))
    return out


def _notices(world: World, to: str) -> list[EmailMessage]:
    """The daemon's notices to ``to`` waiting in the outbox."""
    out = []
    for r in world.daemon_store().outbox():
        if r["kind"] == "notice" and r["rcpts"] == [to]:
            m = email.message_from_bytes(r["raw"].encode("latin-1"), policy=email.policy.default)
            assert isinstance(m, EmailMessage)
            out.append(m)
    return out


def _kill_while_in_hand(world: World, svc: Service, key: str) -> None:
    """An outside kill -9 landing while ``key`` is in hand (the marker names it)."""

    def kill() -> None:
        assert svc.crashloop.marker is not None
        pos = svc.crashloop.marker.read()
        if pos is not None and pos[1] == key:
            raise Died

    world.fault_at["after_fetch_parse"] = kill


# ---- the blame decision, pure ---------------------------------------------------------------


def test_blame_rules() -> None:
    rec = record("b1", "boot", ["k1", "k2", "k3"], {}, T0.isoformat())
    done = {"k1"}.__contains__
    assert blame(rec, ("b1", "k2"), "boot", done) == ("k2", [])
    # the marker of another batch, the group write, or a finished key: nobody to blame
    assert blame(rec, ("b0", "k2"), "boot", done) == (None, ["k2", "k3"])
    assert blame(rec, ("b1", COMMIT), "boot", done) == (None, ["k2", "k3"])
    assert blame(rec, ("b1", "k1"), "boot", done) == (None, ["k2", "k3"])
    assert blame(rec, None, "boot", done) == (None, ["k2", "k3"])
    # a reboot since: not the mail's fault, even alone in its batch
    assert blame(rec, ("b1", "k2"), "other", done) == (None, ["k2", "k3"])
    # a batch of one dies in its writes (an outside kill during an fsync): not blamed either
    solo = record("b2", "boot", ["k9"], {}, T0.isoformat())
    assert blame(solo, ("b2", "k9"), "boot", done) == ("k9", [])
    assert blame(solo, ("b2", COMMIT), "boot", done) == (None, ["k9"])
    assert blame(solo, ("b1", "done"), "boot", done) == (None, ["k9"])
    assert blame(solo, ("b2", "k9"), "other", done) == (None, ["k9"])
    assert blame(rec, None, "boot", lambda k: True) == (None, [])


def test_count_crash_counts_deaths_in_consecutive_runs_only() -> None:
    """Issue 16: a poison dies in every run; an outside kill rarely lands on the same mail in
    consecutive runs, so a run that ended otherwise starts the count again."""
    first = count_crash({}, died_in_run=7, max_failures=3)
    assert (first.failures, first.crashes, first.held) == (1, 1, False)
    row = {"status": "failing", "failures": 1, "crashes": 1, "crash_run": 7}
    second = count_crash(row, died_in_run=8, max_failures=3)
    assert (second.failures, second.crashes, second.held) == (2, 2, False)
    third = count_crash({**row, "failures": 2, "crash_run": 8}, died_in_run=9, max_failures=3)
    assert (third.failures, third.held, third.newly_held) == (3, True, True)
    # run 9 ended without this mail in hand (another mail, nothing, a clean stop): back to 1
    gap = count_crash({**row, "failures": 2, "crash_run": 8}, died_in_run=10, max_failures=3)
    assert (gap.failures, gap.crashes, gap.held) == (1, 2, False)
    # a held mail dies when retried: held again at once, one retry spent, no new alert
    held = {"status": "quarantined", "failures": 3, "crashes": 3, "crash_run": 9}
    again = count_crash({**held, "auto_retries": 1}, died_in_run=30, max_failures=3)
    assert (again.held, again.newly_held, again.retry_died, again.retries) == (
        True,
        False,
        True,
        2,
    )


def test_due_for_retry_only_held_crash_mail_once_stable_and_bounded() -> None:
    rows = [
        {"key": "b", "status": "quarantined", "crashes": 3, "at": "2026-11-29T12:02"},
        {"key": "a", "status": "quarantined", "crashes": 3, "at": "2026-11-29T12:01"},
        {"key": "raised", "status": "quarantined", "crashes": 0, "at": "2026-11-29T12:00"},
        {"key": "failing", "status": "failing", "crashes": 2, "at": "2026-11-29T12:00"},
        {"key": "spent", "status": "quarantined", "crashes": 5, "auto_retries": 2, "at": ""},
    ]
    assert due_for_retry(rows, uptime=599, after=600, retries=2) == []
    assert due_for_retry(rows, uptime=600, after=600, retries=2) == ["a", "b"]
    assert due_for_retry(rows, uptime=6000, after=600, retries=0) == []


# ---- crash-loop containment, in-process --------------------------------------------------


def test_poison_that_kills_is_blamed_alone_and_quarantined(world: World) -> None:
    world.new_game()
    burst = _burst(poison_at=2)
    key = content_key(bytes(burst[2]))
    deaths = 0
    for _run in range(10):
        svc = world.start()
        try:
            done = svc.writer.handle_batch(world.fetched(*burst))
        except Died:
            deaths += 1
            continue
        break
    assert deaths == world.cfg.max_failures, "quarantined after exactly max_failures crashes"
    assert sorted(done.values()).count("quarantine") == 1
    assert world.words() == Counter({"w0": 1, "w1": 1, "w3": 1, "w4": 1}), "0 lost, 0 dup"
    ds = world.daemon_store()
    (row,) = ds.shunt_rows()
    assert row["key"] == key and row["status"] == "quarantined"
    assert row["failures"] == row["crashes"] == world.cfg.max_failures
    assert "process died" in row["error"] and row["subject"] == "orders"
    assert (world.cfg.data_dir / "shunt" / f"{key}.eml").read_bytes() == bytes(burst[2])
    alerts = [r for r in ds.outbox() if r["kind"] == "alert"]
    assert len(alerts) == 1
    alert = email.message_from_bytes(
        alerts[0]["raw"].encode("latin-1"), policy=email.policy.default
    )
    assert isinstance(alert, EmailMessage)
    assert str(alert["Subject"]).strip() == (
        "[pbem] un message a été mis en quarantaine / [pbem] a mail was quarantined"
    )
    body = text_of(alert)
    assert body.index("le démon est mort en le traitant") < body.index("the daemon process died")
    assert body.count(f"pbem shunt retry {key[:12]}") == 2
    # its sender (a player) is told, once, French first, in the mail's thread
    (notice,) = _notices(world, "carol@example.test")
    assert str(notice["Subject"]) == "Votre message est retenu / Your mail is held"
    assert notice["In-Reply-To"] == burst[2]["Message-ID"]
    text = text_of(notice)
    assert text.index("n'a pas été appliqué") < text.index("was not applied")
    assert "s'est arrêté brutalement" in text and "« orders »" in text
    # stable afterwards: the quarantined mail is only moved, new mail is applied
    svc = world.start()
    again = svc.writer.handle_batch(world.fetched(burst[2], cmd("alice", "later")))
    assert sorted(again.values()) == ["processed", "quarantine"]
    assert world.words()["later"] == 1
    assert len(_notices(world, "carol@example.test")) == 1, "told once"


def test_blame_is_counted_once_if_start_up_dies_before_clearing_the_record(world: World) -> None:
    world.new_game()
    burst = _burst(poison_at=1, n=3)
    svc = world.start()
    with pytest.raises(Died):
        svc.writer.handle_batch(world.fetched(*burst))
    assert svc.crashloop.inflight is not None
    rec = svc.crashloop.inflight.read()
    assert rec is not None
    svc = world.start()
    assert [r["failures"] for r in world.daemon_store().shunt_rows()] == [1]
    assert svc.crashloop.inflight is not None
    svc.crashloop.inflight.write(rec)  # as if start-up died between the blame and clearing the file
    world.start()
    assert [r["failures"] for r in world.daemon_store().shunt_rows()] == [1]


def test_mail_blamed_once_by_a_kill_from_outside_is_cleared_when_it_succeeds(
    world: World,
) -> None:
    """An operator's kill -9 while a good mail is in hand counts one failure; the mail is then
    handled alone, succeeds, and its shunt row goes."""
    world.engine = fake_table.Table
    world.new_game()
    burst = _burst(poison_at=None)
    victim = content_key(bytes(burst[1]))

    svc = world.start()

    def kill_while_victim_in_hand() -> None:
        assert svc.crashloop.marker is not None
        pos = svc.crashloop.marker.read()
        if pos is not None and pos[1] == victim:
            raise Died

    world.fault_at["after_fetch_parse"] = kill_while_victim_in_hand
    with pytest.raises(Died):
        svc.writer.handle_batch(world.fetched(*burst))
    world.fault_at.clear()
    svc = world.start()
    (row,) = world.daemon_store().shunt_rows()
    assert row["key"] == victim and row["status"] == "failing" and row["failures"] == 1
    world.faults.clear()
    svc.writer.handle_batch(world.fetched(*burst))
    # [w0] [victim alone] [w2 w3 w4]: three runs, three group commits
    assert world.faults.count("after_group") == 3
    assert world.words() == Counter({f"w{i}": 1 for i in range(5)})
    assert world.daemon_store().shunt_rows() == []


def test_death_during_the_group_write_isolates_the_suspects(world: World) -> None:
    world.engine = fake_table.Table
    world.new_game()
    burst = _burst(poison_at=None, n=4)
    svc = world.start()

    writes = []

    def die_in_the_group_write() -> None:
        writes.append(1)
        if len(writes) == 2:  # the 1st is the in-flight record, the 2nd the group's
            raise Died

    world.fault_at["mid_state_write"] = die_in_the_group_write
    with pytest.raises(Died):
        svc.writer.handle_batch(world.fetched(*burst))
    world.fault_at.clear()
    assert svc.crashloop.marker is not None and svc.crashloop.marker.read() is not None
    assert svc.crashloop.marker.read()[1] == COMMIT  # type: ignore[index]
    svc = world.start()
    assert set(svc.crashloop.suspects) == {content_key(bytes(m)) for m in burst}
    assert world.daemon_store().shunt_rows() == [], "nobody is blamed"
    world.faults.clear()
    done = svc.writer.handle_batch(world.fetched(*burst))
    assert list(done.values()) == ["processed"] * 4
    assert world.faults.count("after_group") == 4, "one suspect per batch"
    assert svc.crashloop.suspects == {}
    assert world.words() == Counter({f"w{i}": 1 for i in range(4)})
    # suspects are persisted with the next in-flight record: gone after a restart too
    svc = world.start()
    assert svc.crashloop.suspects == {}


def test_outside_kills_on_one_mail_in_runs_not_consecutive_do_not_hold_it(world: World) -> None:
    """Issue 16: three outside kills land while the same good mail is in hand, but a run in
    between died with another mail in hand: the count starts again, nothing is held."""
    world.engine = fake_table.Table
    world.new_game()
    burst = _burst(poison_at=None)
    victim, w0 = (content_key(bytes(m)) for m in (burst[1], burst[0]))
    for in_hand in (victim, w0, victim, victim):
        svc = world.start()
        _kill_while_in_hand(world, svc, in_hand)
        with pytest.raises(Died):
            svc.writer.handle_batch(world.fetched(*burst))
        world.fault_at.clear()
    svc = world.start()
    rows = {r["key"]: r for r in world.daemon_store().shunt_rows()}
    assert rows[victim]["status"] == "failing" and rows[victim]["failures"] == 2
    assert rows[victim]["crashes"] == 3
    done = svc.writer.handle_batch(world.fetched(*burst))
    assert list(done.values()) == ["processed"] * 5
    assert world.words() == Counter({f"w{i}": 1 for i in range(5)})
    assert world.daemon_store().shunt_rows() == []


def test_good_mail_held_by_outside_kills_is_retried_once_the_daemon_is_stable(
    world: World,
) -> None:
    """Issue 16: outside kills hit the same good mail in three runs in a row (the worst case):
    it is held, its sender told; once the daemon has been up quarantine_retry_seconds it is
    retried alone and applied exactly once, and leaves the shunt."""
    world.engine = fake_table.Table
    world.new_game()
    burst = _burst(poison_at=None)
    victim = content_key(bytes(burst[1]))
    for _run in range(world.cfg.max_failures):
        svc = world.start()
        _kill_while_in_hand(world, svc, victim)
        with pytest.raises(Died):
            svc.writer.handle_batch(world.fetched(*burst))
        world.fault_at.clear()
    svc = world.start()
    done = svc.writer.handle_batch(world.fetched(*burst))
    assert sorted(done.values()) == ["processed"] * 4 + ["quarantine"]
    (row,) = world.daemon_store().shunt_rows()
    assert row["key"] == victim and row["status"] == "quarantined" and row["told"] is True
    (notice,) = _notices(world, "bob@example.test")
    assert "réessayé automatiquement" in text_of(notice)
    alert = [r for r in world.daemon_store().outbox() if r["kind"] == "alert"]
    assert len(alert) == 1
    world.advance(world.cfg.quarantine_retry_seconds - 1)
    assert svc.crashloop.held_due() == [], "not before the daemon has been stable long enough"
    world.advance(1)
    assert svc.crashloop.held_due() == [victim]
    assert svc.intake.retry_held() == 1
    assert world.words() == Counter({f"w{i}": 1 for i in range(5)})
    assert world.daemon_store().shunt_rows() == []
    assert svc.crashloop.held_due() == []
    # the IMAP copy (moved to the quarantine folder) seen again: deduplicated
    assert svc.writer.handle_batch(world.fetched(burst[1])) == {world.uid: "processed"}
    assert world.words()["w1"] == 1


def test_a_held_copy_cut_short_by_a_death_is_written_whole_and_never_applied_short(
    world: World,
) -> None:
    """F1 (issue 16): a kill between the creation of a held mail's copy (shunt/<key>.eml) and
    its write left an empty file, which the next runs kept as it was; the retry applied zero
    bytes (« no game »), recorded the key, and the player's command was lost. A copy is now
    written whole or not at all, and one that is not the mail's bytes (its key is their
    sha256) is written again, never applied."""
    world.engine = fake_table.Table
    world.new_game()
    burst = _burst(poison_at=None)
    victim = content_key(bytes(burst[1]))
    for run in range(world.cfg.max_failures):
        svc = world.start()
        _kill_while_in_hand(world, svc, victim)
        with pytest.raises(Died):
            svc.writer.handle_batch(world.fetched(*burst))
        world.fault_at.clear()
        if run == 0:  # the death cut the copy's write short: the file exists, empty
            copy = world.cfg.data_dir / "shunt" / f"{victim}.eml"
            copy.parent.mkdir(exist_ok=True)
            copy.write_bytes(b"")
    svc = world.start()
    svc.writer.handle_batch(world.fetched(*burst))
    assert copy.read_bytes() == bytes(burst[1])
    copy.write_bytes(b"")  # a copy left short by an older pbem: never applied as it is
    world.advance(world.cfg.quarantine_retry_seconds)
    assert svc.intake.retry_held() == 0
    assert "w1" not in world.words()
    (row,) = world.daemon_store().shunt_rows()
    assert row["key"] == victim
    copy.write_bytes(bytes(burst[1]))
    world.advance(world.cfg.quarantine_retry_seconds)
    assert svc.intake.retry_held() == 1
    assert world.words() == Counter({f"w{i}": 1 for i in range(5)})


def test_poison_retried_when_stable_dies_again_and_stays_held_within_the_bound(
    world: World,
) -> None:
    """A real poison: held after max_failures deaths, retried automatically at most
    quarantine_retries times, each death holding it again at once; one admin alert, one notice
    to its sender, and the other mails applied once."""
    world.new_game()
    burst = _burst(poison_at=2)
    key = content_key(bytes(burst[2]))
    deaths = 0
    for _run in range(10):
        svc = world.start()
        try:
            svc.writer.handle_batch(world.fetched(*burst))
            world.advance(world.cfg.quarantine_retry_seconds)
            if not svc.crashloop.held_due():
                break
            svc.intake.retry_held()
        except Died:
            deaths += 1
    assert deaths == world.cfg.max_failures + world.cfg.quarantine_retries
    (row,) = world.daemon_store().shunt_rows()
    assert row["key"] == key and row["status"] == "quarantined"
    assert row["auto_retries"] == world.cfg.quarantine_retries
    assert row["crashes"] == deaths
    assert len([r for r in world.daemon_store().outbox() if r["kind"] == "alert"]) == 1
    assert len(_notices(world, "carol@example.test")) == 1
    assert world.words() == Counter({"w0": 1, "w1": 1, "w3": 1, "w4": 1})


class RaisingTable(fake_table.Table):
    """The fake engine, raising on ``BOOM`` in a mail (a bug, not a death)."""

    def receive(self, msg: EmailMessage, **kw: object) -> fake_table.Step:
        if "BOOM" in fake_table._text(msg):
            raise RuntimeError("boom")
        return super().receive(msg, **kw)  # type: ignore[arg-type]


def test_mail_held_after_raising_tells_its_sender_and_is_not_retried_alone(
    world: World,
) -> None:
    world.engine = RaisingTable
    world.new_game()
    boom = mail("alice@example.test", "CMD p1\nBOOM\n", to="moderator+g1@example.test")
    svc = world.start()
    for _n in range(world.cfg.max_failures):
        svc.writer.handle_batch(world.fetched(boom))
    (row,) = world.daemon_store().shunt_rows()
    assert row["status"] == "quarantined" and row["told"] is True
    (notice,) = _notices(world, "alice@example.test")
    text = text_of(notice)
    assert "a échoué 3 fois" in text and "Un administrateur l'examinera" in text
    assert "réessayé automatiquement" not in text, "a bug that raises is not retried alone"
    world.advance(world.cfg.quarantine_retry_seconds)
    assert svc.crashloop.held_due() == []


def test_shunt_row_of_a_mail_applied_just_before_a_death_is_dropped(world: World) -> None:
    """A group writes the game's file, then daemon.json: a death in between leaves the shunt row
    of a mail that is applied. It must not stay "failing" (or held) for ever: start-up drops
    it."""
    world.engine = fake_table.Table
    world.new_game()
    burst = _burst(poison_at=None, n=3)
    victim = content_key(bytes(burst[1]))
    svc = world.start()
    _kill_while_in_hand(world, svc, victim)
    with pytest.raises(Died):
        svc.writer.handle_batch(world.fetched(*burst))
    world.fault_at.clear()
    svc = world.start()
    assert [r["key"] for r in world.daemon_store().shunt_rows()] == [victim]
    group_writes = []

    def die_in_the_victims_daemon_write() -> None:
        # the victim's solo batch writes the game's file, then daemon.json
        assert svc.crashloop.inflight is not None and svc.crashloop.marker is not None
        rec = svc.crashloop.inflight.read()
        if rec and rec["keys"] == [victim] and svc.crashloop.marker.read() == (rec["id"], COMMIT):
            group_writes.append(1)
            if len(group_writes) == 2:
                raise Died

    world.fault_at["mid_state_write"] = die_in_the_victims_daemon_write
    with pytest.raises(Died):
        svc.writer.handle_batch(world.fetched(*burst))
    world.fault_at.clear()
    assert world.words()["w1"] == 1, "the game's write was done"
    svc = world.start()
    assert world.daemon_store().shunt_rows() == []
    svc.writer.handle_batch(world.fetched(*burst))
    assert world.words() == Counter({"w0": 1, "w1": 1, "w2": 1})


def test_a_reboot_blames_nobody(world: World) -> None:
    world.new_game()
    burst = _burst(poison_at=0, n=1)
    svc = world.start()
    with pytest.raises(Died):
        svc.writer.handle_batch(world.fetched(*burst))
    # the machine went down instead: the boot id in the in-flight record differs
    assert svc.crashloop.inflight is not None
    rec = svc.crashloop.inflight.read()
    assert rec is not None
    svc.crashloop.inflight.write({**rec, "boot": "another-boot"})
    svc = world.start()
    assert world.daemon_store().shunt_rows() == []
    assert list(svc.crashloop.suspects) == [content_key(bytes(burst[0]))]


def test_one_extra_durable_write_per_batch(world: World) -> None:
    """The in-flight record costs one atomic write per batch, not per mail."""
    world.engine = fake_table.Table
    world.new_game()
    svc = world.start()
    world.faults.clear()
    svc.writer.handle_batch(world.fetched(*[cmd(PLAYERS[i % 3], f"w{i}") for i in range(20)]))
    # the in-flight record (daemon.json), then the group: the game's head only
    assert world.faults.count("mid_state_write") == 2
    assert world.faults.count("after_group") == 1


def test_a_batchs_mail_is_hashed_once(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 23: the writer makes each mail's content key for its in-flight record and hands
    it to the intake, which made it again (a sha256 of the whole mail)."""
    import pbem.daemon.intake.guard as guard
    import pbem.daemon.queue as queue

    world.engine = fake_table.Table
    world.new_game()
    svc = world.start()
    made: list[str] = []

    def counted(raw: bytes) -> str:
        made.append(content_key(raw))
        return made[-1]

    monkeypatch.setattr(queue, "content_key", counted)
    monkeypatch.setattr(guard, "content_key", counted)
    mails = world.fetched(*[cmd(PLAYERS[i % 3], f"w{i}") for i in range(5)])
    assert set(svc.writer.handle_batch(mails).values()) == {"processed"}
    assert len(made) == len(set(made)) == 5


def test_marker_survives_in_the_file(tmp_path: Path) -> None:
    m = Marker(tmp_path / "inflight.pos")
    assert m.read() is None
    m.set("b1", "k" * 64)
    m.set("b1", COMMIT)
    m.close()
    assert Marker(tmp_path / "inflight.pos").read() == ("b1", COMMIT)


# ---- the real daemon, killed for real ------------------------------------------------------

CAP = "outbound_cap_per_hour = 1000000\nerrors_per_hour = 1000\nautos_per_day = 100000"


def _game_words(data: Path) -> Counter[str]:
    return Counter(e["word"] for e in game_state(data, "g1")[0] if e["type"] == "cmd")


def _shunt_states(data: Path) -> list[str]:
    if not (data / "daemon.json").exists():
        return []
    return list(DaemonStore(data, readonly=True).shunt_status().values())


@pytest.mark.slow(10)
@pytest.mark.parametrize("arrival", ["before_start", "while_running"])
def test_crash_loop_real_daemon(stack: MailStack, tmp_path: Path, arrival: str) -> None:
    """A mail that SIGKILLs ``pbem serve``: restarted like systemd would, the daemon dies at most
    max_failures times, quarantines it, alerts the admins, applies every other mail of the burst
    exactly once, then runs stably; ``pbem shunt list|show|retry`` work on it.

    ``before_start``: the burst is drained at start-up (one mail per work item);
    ``while_running``: the first death is in a group-commit batch of the IMAP loop."""
    cfg = write_config(stack, tmp_path, extra_daemon=CAP, extra_imap="idle_renew = 1")
    new_fake_game(cfg, "g1", PLAYERS)
    data = tmp_path / "data"
    die = tmp_path / "die"
    die.write_text("on")
    burst = [
        mail(f"{PLAYERS[i % 3]}@example.test", f"CMD w{i}\n", subject=f"order {i}")
        for i in range(7)
    ]
    poison = mail("bob@example.test", "CMD poison\nDIE\n", subject="poison")
    burst.insert(3, poison)
    d = Daemon(cfg, FAKE_ENGINE_DIE=str(die))
    if arrival == "before_start":
        send(stack, *burst)
    else:
        d.start()
        wait_for(lambda: "ready" in d.log(), what="the daemon ready", log=d.log)
        send(stack, *burst)
    try:
        if arrival == "before_start":
            d.start()
        crashes = d.restart_until(lambda: "quarantined" in _shunt_states(data))
        assert crashes == 3, f"{crashes} crashes before the quarantine\n{d.log()}"
        wait_for(lambda: stack.messages(MODERATOR, "Quarantine"), what="quarantine", log=d.log)
        (q,) = stack.messages(MODERATOR, "Quarantine")
        assert q["Subject"] == "poison"
        want = Counter({f"w{i}": 1 for i in range(7)})
        wait_for(lambda: _game_words(data) == want, what="the burst applied", log=d.log)
        wait_for(lambda: not stack.messages(MODERATOR), what="INBOX drained", log=d.log)
        wait_for(
            lambda: any("quarantined" in str(m["Subject"]) for m in stack.messages(ADMIN)),
            what="the admin alert",
            log=d.log,
        )
        # its sender is told that it is held (issue 16), French first, once
        (held,) = wait_for(
            lambda: [m for m in stack.messages("bob@example.test") if "held" in str(m["Subject"])],
            what="the sender told",
            log=d.log,
        )
        assert str(held["Subject"]) == "Votre message est retenu / Your mail is held"
        assert held["In-Reply-To"] == poison["Message-ID"]
        assert "« poison »" in text_of(held)
        # stable: new mail is applied by the same process
        send(stack, mail("carol@example.test", "CMD after\n"))
        wait_for(lambda: _game_words(data)["after"] == 1, what="mail after", log=d.log)
        assert d.alive()
        listing = pbem(cfg, "shunt", "list")
        assert listing.returncode == 0 and "quarantined" in listing.stdout
        assert "failures=3" in listing.stdout and "'poison'" in listing.stdout
        key = listing.stdout.split()[0]
        show = pbem(cfg, "shunt", "show", key)
        assert "process died" in show.stdout and "DIE" in show.stdout
        os.unlink(die)  # the bug is fixed
        assert pbem(cfg, "shunt", "retry", key).returncode == 0
        wait_for(lambda: _game_words(data)["poison"] == 1, what="the retried mail", log=d.log)
        assert d.stop() == 0
        assert max(_game_words(data).values()) == 1
    finally:
        d.kill()
