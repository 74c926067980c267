"""Crash-loop containment (pbem.inflight): a mail that kills the process is blamed, counted and
quarantined after ``max_failures`` crashes; the other mails are applied exactly once.

In-process tests (tests/daemon/inproc.py) stand for the death of the process with a
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

from pbem.inflight import COMMIT, Marker, blame, record
from pbem.service import content_key
from tests.daemon import fake_engine
from tests.daemon.conftest import ADMIN, MODERATOR
from tests.daemon.harness import (
    Daemon,
    game_state,
    mail,
    new_fake_game,
    pbem,
    send,
    wait_for,
    write_config,
)
from tests.daemon.inproc import PLAYERS, T0, Died, World, cmd, world
from tests.daemon.mailstack import MailStack

__all__ = ["world"]  # the fixture


def _burst(poison_at: int | None, n: int = 5) -> list[EmailMessage]:
    out = []
    for i in range(n):
        body = "CMD poison\nDIE\n" if i == poison_at else f"CMD w{i}\n"
        out.append(mail(f"{PLAYERS[i % 3]}@example.test", body, to="moderator+g1@example.test"))
    return out


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


# ---- crash-loop containment, in-process --------------------------------------------------


def test_poison_that_kills_is_blamed_alone_and_quarantined(world: World) -> None:
    world.new_game()
    burst = _burst(poison_at=2)
    key = content_key(bytes(burst[2]))
    deaths = 0
    for _run in range(10):
        svc = world.start()
        try:
            done = svc.handle_batch(world.fetched(*burst))
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
    body = alert.get_content()
    assert body.index("le démon est mort en le traitant") < body.index("the daemon process died")
    assert body.count(f"pbem shunt retry {key[:12]}") == 2
    # stable afterwards: the quarantined mail is only moved, new mail is applied
    svc = world.start()
    again = svc.handle_batch(world.fetched(burst[2], cmd("alice", "later")))
    assert sorted(again.values()) == ["processed", "quarantine"]
    assert world.words()["later"] == 1


def test_blame_is_counted_once_if_start_up_dies_before_clearing_the_record(world: World) -> None:
    world.new_game()
    burst = _burst(poison_at=1, n=3)
    svc = world.start()
    with pytest.raises(Died):
        svc.handle_batch(world.fetched(*burst))
    assert svc.inflight is not None
    rec = svc.inflight.read()
    assert rec is not None
    svc = world.start()
    assert [r["failures"] for r in world.daemon_store().shunt_rows()] == [1]
    assert svc.inflight is not None
    svc.inflight.write(rec)  # as if start-up died between the blame and clearing the file
    world.start()
    assert [r["failures"] for r in world.daemon_store().shunt_rows()] == [1]


def test_mail_blamed_once_by_a_kill_from_outside_is_cleared_when_it_succeeds(
    world: World,
) -> None:
    """An operator's kill -9 while a good mail is in hand counts one failure; the mail is then
    handled alone, succeeds, and its shunt row goes."""
    world.engine = fake_engine.Table
    world.new_game()
    burst = _burst(poison_at=None)
    victim = content_key(bytes(burst[1]))

    svc = world.start()

    def kill_while_victim_in_hand() -> None:
        assert svc.marker is not None
        pos = svc.marker.read()
        if pos is not None and pos[1] == victim:
            raise Died

    world.fault_at["after_fetch_parse"] = kill_while_victim_in_hand
    with pytest.raises(Died):
        svc.handle_batch(world.fetched(*burst))
    world.fault_at.clear()
    svc = world.start()
    (row,) = world.daemon_store().shunt_rows()
    assert row["key"] == victim and row["status"] == "failing" and row["failures"] == 1
    world.faults.clear()
    svc.handle_batch(world.fetched(*burst))
    # [w0] [victim alone] [w2 w3 w4]: three runs, three group commits
    assert world.faults.count("after_group") == 3
    assert world.words() == Counter({f"w{i}": 1 for i in range(5)})
    assert world.daemon_store().shunt_rows() == []


def test_death_during_the_group_write_isolates_the_suspects(world: World) -> None:
    world.engine = fake_engine.Table
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
        svc.handle_batch(world.fetched(*burst))
    world.fault_at.clear()
    assert svc.marker is not None and svc.marker.read() is not None
    assert svc.marker.read()[1] == COMMIT  # type: ignore[index]
    svc = world.start()
    assert set(svc.suspects) == {content_key(bytes(m)) for m in burst}
    assert world.daemon_store().shunt_rows() == [], "nobody is blamed"
    world.faults.clear()
    done = svc.handle_batch(world.fetched(*burst))
    assert list(done.values()) == ["processed"] * 4
    assert world.faults.count("after_group") == 4, "one suspect per batch"
    assert svc.suspects == {}
    assert world.words() == Counter({f"w{i}": 1 for i in range(4)})
    # suspects are persisted with the next in-flight record: gone after a restart too
    svc = world.start()
    assert svc.suspects == {}


def test_a_reboot_blames_nobody(world: World) -> None:
    world.new_game()
    burst = _burst(poison_at=0, n=1)
    svc = world.start()
    with pytest.raises(Died):
        svc.handle_batch(world.fetched(*burst))
    # the machine went down instead: the boot id in the in-flight record differs
    assert svc.inflight is not None
    rec = svc.inflight.read()
    assert rec is not None
    svc.inflight.write({**rec, "boot": "another-boot"})
    svc = world.start()
    assert world.daemon_store().shunt_rows() == []
    assert list(svc.suspects) == [content_key(bytes(burst[0]))]


def test_one_extra_durable_write_per_batch(world: World) -> None:
    """The in-flight record costs one atomic write per batch, not per mail."""
    world.engine = fake_engine.Table
    world.new_game()
    svc = world.start()
    world.faults.clear()
    svc.handle_batch(world.fetched(*[cmd(PLAYERS[i % 3], f"w{i}") for i in range(20)]))
    # the in-flight record (daemon.json), then the group: the game's head only
    assert world.faults.count("mid_state_write") == 2
    assert world.faults.count("after_group") == 1


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
        crashes = d.restart_until_up()
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
