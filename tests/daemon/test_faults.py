"""Fault matrix against the real daemon and servers (RELIABILITY §7.4): F1, F2, F3, F4, F5.

F1: kill -9 at deterministic hook points (a hook installed by tests/daemon/crash_launcher.py) and at random moments during a burst
(15 kills in ``make test``, 200 in ``make soak``): 0 lost, 0 applied twice, none left held,
every reply sent at least once (requirement 1, issue 16).
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import subprocess
import time
from collections import Counter
from email.message import EmailMessage
from pathlib import Path

import pytest

from tests.support.daemon_process import (
    Daemon,
    game_state,
    mail,
    new_fake_game,
    outbox_empty,
    send,
    wait_for,
    write_config,
)
from tests.support.fixtures import StartDaemon
from tests.support.mailstack import MODERATOR, MailStack

PLAYERS = ["alice", "bob", "carol", "dave"]
CAP = "outbound_cap_per_hour = 1000000\nerrors_per_hour = 1000\nautos_per_day = 100000"


def _content_keys(data: Path) -> set[str]:
    """The game's ledger keys of whole mails: a mail's copy keys (``mid:``, ``dkim:``, see
    pbem.daemon.dedup) ride in the ledger too."""
    from pbem.adapters.store import GameStore

    keys = GameStore(data / "games" / "g1", readonly=True).ledger_keys()
    return {k for k in keys if ":" not in k}


def _words(data: Path, gid: str = "g1") -> Counter[str]:
    return Counter(e["word"] for e in game_state(data, gid)[0] if e["type"] == "cmd")


def _burst(n: int, start: int = 0) -> list[EmailMessage]:
    return [
        mail(f"{PLAYERS[i % len(PLAYERS)]}@example.test", f"CMD w{i}\n", subject=f"order {i}")
        for i in range(start, start + n)
    ]


def _replied(stack: MailStack, sent: list[EmailMessage]) -> set[str]:
    got: set[str] = set()
    for p in PLAYERS:
        for m in stack.messages(f"{p}@example.test"):
            if m["List-Id"] is None and m["In-Reply-To"]:
                got.add(str(m["In-Reply-To"]))
                # a digest of several replies (coalesced) answers every mail it names
                got.update(str(m["References"] or "").split())
    return got


def _verify(stack: MailStack, d: Daemon, data: Path, sent: list[EmailMessage]) -> None:
    want = {str(m["Subject"]).split()[1] for m in sent}
    words = wait_for(
        lambda: (w := _words(data)) and set(w) >= {f"w{i}" for i in want} and w,
        timeout=60,
        what="every command applied",
        log=d.log,
    )
    assert set(words) == {f"w{i}" for i in want}, "lost commands"
    assert max(words.values()) == 1, f"applied twice: {[k for k, v in words.items() if v > 1]}"
    ids = {str(m["Message-ID"]) for m in sent}
    wait_for(lambda: _replied(stack, sent) >= ids, what="every reply", log=d.log)
    wait_for(lambda: not stack.messages(MODERATOR), what="INBOX drained", log=d.log)
    _events, _meta = game_state(data, "g1")
    assert len(_content_keys(data)) == len(sent), "the ledger equals the set of distinct messages"


@pytest.mark.parametrize(
    "point",
    ["after_fetch:1", "mid_state_write:3", "after_state:2", "after_move:1", "after_send:2"],
)
def test_f1_kill_at_hook_points(stack: MailStack, tmp_path: Path, point: str) -> None:
    cfg = write_config(stack, tmp_path, extra_daemon=CAP)
    new_fake_game(cfg, "g1", PLAYERS)
    sent = _burst(6)
    send(stack, *sent)
    d = Daemon(cfg).start(crash_at=point)
    try:
        rc = d.wait_exit()
        assert rc == -9, f"the hook {point} was not hit (rc={rc})\n{d.log()}"
        d.start()
        _verify(stack, d, tmp_path / "data", sent)
        assert d.stop() == 0
    finally:
        d.kill()


F1_KILLS = int(os.environ.get("PBEM_F1_KILLS", "15"))
"""Kills of the random F1 run: 15 in ``make test`` (5 at each aim), 200 in ``make soak``
(``PBEM_F1_KILLS``). Each kill costs a daemon start (~0.8 s of CPU), so each one is made to
land in the daemon's own work: a start-up kill waits until the data directory is being opened,
not a fixed delay after the ``exec`` that the interpreter may still spend importing."""
F1_AIMS = ("start-up", "in hand", "after commit")
"""Where a kill is aimed, in turn: each aim gets a third of the kills, whatever their number."""
F1_LIFETIME = 5.0
"""A daemon of the kill loop is killed at the latest this long after its start, so none lives
the ``quarantine_retry_seconds`` (the same) that would retry a held mail mid-loop: a mail held
by coincidence is retried by the final, unkilled daemon, and the verdict does not depend on
where the kills fell."""


def _marker(data: Path) -> tuple[str, str] | None:
    """The daemon's position marker (pbem.daemon.inflight): (batch id, key | commit | done)."""
    try:
        raw = (data / "inflight.pos").read_bytes()[:128]
    except OSError:
        return None
    batch, _, what = raw.split(b"\n", 1)[0].decode("ascii", "replace").strip().partition(" ")
    return (batch, what) if batch and what else None


def _opened_the_data(d: Daemon, data: Path) -> bool:
    """Whether the daemon has its data directory's lock file open (``DirLock``, the first step
    of ``Service.open``): its imports are done and its start-up has begun. Read from
    ``/proc/PID/fd``, which does not touch the lock (a test's own flock could make the daemon
    find its data directory in use)."""
    assert d.proc is not None
    lock = os.path.realpath(data / ".lock")  # as /proc shows it
    try:
        fds = os.listdir(f"/proc/{d.proc.pid}/fd")
    except OSError:
        return False
    for fd in fds:
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/{d.proc.pid}/fd/{fd}") == lock:
                return True
    return False


def _kill_at_random(d: Daemon, data: Path, rng: random.Random, aim: str) -> None:
    """kill -9 at a random moment of the daemon's work, aimed by events rather than by guessed
    delays (a busy machine starts Python slowly): during start-up (once the data directory is
    being opened: the recovery, the resending, the first fetch), while a batch is in hand, or
    just after a commit (the MOVE, the sending, the next fetch)."""
    start = time.monotonic()
    before = _marker(data)
    if aim == "start-up":
        while time.monotonic() - start < F1_LIFETIME and d.alive():
            if _opened_the_data(d, data):
                break
            time.sleep(0.002)
        time.sleep(rng.uniform(0, 0.3))  # the random moment itself, not a wait for something
    else:
        # the first batch of this process (a new id), in hand or already committed
        while time.monotonic() - start < F1_LIFETIME and d.alive():
            now = _marker(data)
            if now is not None and (before is None or now[0] != before[0]):
                break
            time.sleep(0.002)
        time.sleep(rng.uniform(0, 0.01 if aim == "in hand" else 0.05))
    d.kill()


def _held(data: Path) -> list[dict[str, object]]:
    from pbem.adapters.store import DaemonStore

    return DaemonStore(data, readonly=True).shunt_rows()


@pytest.mark.slow(30)
@pytest.mark.timeout(600 + 8 * F1_KILLS)
def test_f1_random_kills_during_burst(stack: MailStack, tmp_path: Path) -> None:
    """F1 (issue 16): kill -9 at F1_KILLS random moments during a burst of 3 mails per kill.
    Verdict: every command applied exactly once, none left held, every reply sent. Outside
    kills may hold a good mail (three kills in a row landing while it is in hand); the final
    daemon retries it once up ``quarantine_retry_seconds``. The waits are bounded and generous:
    the verdict is read after a clean stop, so a duplicate cannot slip in after it."""
    cfg = write_config(
        stack,
        tmp_path,
        extra_daemon=f"{CAP}\nquarantine_retry_seconds = {F1_LIFETIME}",
    )
    new_fake_game(cfg, "g1", PLAYERS)
    data = tmp_path / "data"
    rng = random.Random(1234)
    sent: list[EmailMessage] = []
    d = Daemon(cfg)
    aims: Counter[str] = Counter()
    began = time.monotonic()
    try:
        for r in range(F1_KILLS):
            batch = _burst(3, start=len(sent))
            for m in batch:
                stack.inject(bytes(m), "moderator+g1@example.test", sender=str(m["From"]))
            sent += batch
            d.start()
            aim = F1_AIMS[r % len(F1_AIMS)]
            _kill_at_random(d, data, rng, aim)
            aims[aim] += 1
            assert d.wait_exit() == -9, d.log()  # it died of our kill, not on its own
        killing = time.monotonic() - began
        d.start()
        want = {f"w{i}" for i in range(len(sent))}
        wait_for(
            lambda: set(_words(data)) >= want and not _held(data),
            timeout=120 + len(sent),
            what="every command applied and none held",
            log=d.log,
        )
        ids = {str(m["Message-ID"]) for m in sent}
        wait_for(lambda: _replied(stack, sent) >= ids, timeout=120, what="every reply", log=d.log)
        wait_for(lambda: not stack.messages(MODERATOR), what="INBOX drained", log=d.log)
        assert d.stop() == 0, d.log()
    finally:
        d.kill()
    words = _words(data)  # after a clean stop: nothing can be applied any more
    assert set(words) == want, "lost commands"
    assert max(words.values()) == 1, f"applied twice: {[k for k, v in words.items() if v > 1]}"
    assert len(_content_keys(data)) == len(sent), "the ledger equals the set of distinct messages"
    logs = [p.read_text(errors="replace") for p in tmp_path.glob("pbem-daemon-*.log")]
    blamed = sum(t.count("killed the daemon: failure") for t in logs)
    held = sum(t.count(", quarantined") for t in logs)
    retried = sum(t.count("retried automatically: applied") for t in logs)
    print(
        f"F1 random: {F1_KILLS} kill -9 ({dict(aims)}), {len(sent)} mails, 0 lost, "
        f"0 applied twice; {blamed} blames, {held} held then retried ({retried} applied); "
        f"kill loop {killing:.0f} s, total {time.monotonic() - began:.0f} s"
    )


@pytest.mark.slow(6)
def test_f2_kill_between_resolving_and_resolved(
    start_daemon: StartDaemon, stack: MailStack, tmp_path: Path
) -> None:
    d = start_daemon(
        PLAYERS,
        config={"extra_daemon": CAP},
        crash_at="mid_resolve",
        phase_minutes=0.03,
        phases=1,
    ).daemon
    assert d.wait_exit() == -9, d.log()
    events, _meta = game_state(tmp_path / "data", "g1")
    from pbem.adapters.store import GameStore

    states = GameStore(tmp_path / "data" / "games" / "g1", readonly=True).deadline_states()
    (rec,) = states.values()
    assert rec["deadline"] == "phase-1" and rec["state"] == "resolving"
    d.start()

    def results() -> list[EmailMessage]:
        return [m for m in stack.messages("alice@example.test") if "result" in str(m["Subject"])]

    wait_for(results, what="the result mail", log=d.log)
    # a second result, were the deadline resolved twice, would be queued by then
    wait_for(lambda: outbox_empty(tmp_path / "data"), what="every mail sent", log=d.log)
    assert len(results()) == 1, "one result mail"
    events, _ = game_state(tmp_path / "data", "g1")
    assert [e["type"] for e in events].count("end") == 1, "resolved exactly once"
    assert d.stop() == 0


@pytest.mark.slow(15)
def test_f3_imap_drop_mid_idle_and_server_restart(
    start_daemon: StartDaemon, stack: MailStack, tmp_path: Path
) -> None:
    run = start_daemon(PLAYERS)
    d, data = run.daemon, run.data
    send(stack, mail("alice@example.test", "CMD a1"))
    wait_for(lambda: _words(data) == Counter({"a1": 1}), log=d.log)
    time.sleep(0.5)  # the daemon is in IDLE now
    assert stack.dovecot.kill_imap_children() >= 1
    send(stack, mail("alice@example.test", "CMD a2"))
    wait_for(lambda: "a2" in _words(data), what="after the drop", log=d.log)
    # the whole server goes away for a while, mail is queued meanwhile, then it is back
    log_file = tmp_path / "pbem-daemon-1.log"

    def reconnect_delays() -> list[float]:
        text = log_file.read_text(errors="replace")[before:]
        return [float(x) for x in re.findall(r"IMAP unavailable .*; retrying in (\S+) s", text)]

    before = len(log_file.read_text(errors="replace"))
    stack.dovecot.stop()
    # the server stays away for three reconnect attempts (not a guessed 3 s, which a busy
    # machine may spend before the daemon notices)
    wait_for(lambda: len(reconnect_delays()) >= 3, what="three attempts", log=d.log)
    assert d.alive()
    # backoff, not a busy loop: each attempt waits twice as long as the one before
    assert reconnect_delays()[:3] == [0.5, 1.0, 2.0], d.log()
    stack.dovecot.start()
    send(stack, mail("bob@example.test", "CMD b1"))
    wait_for(lambda: "b1" in _words(data), what="after the restart", log=d.log)
    assert max(_words(data).values()) == 1
    assert len(reconnect_delays()) <= 8, d.log()
    assert d.stop() == 0


@pytest.mark.slow(12)
def test_f3_imap_drop_during_the_startup_drain(stack: MailStack, tmp_path: Path) -> None:
    """F3 at start-up: the server drops while the daemon drains a backlog (the outage policy
    runs before the main loop); it reconnects and finishes the drain: the daemon stays up,
    0 lost, 0 applied twice."""
    cfg = write_config(stack, tmp_path, extra_daemon="autos_per_day = 1000")
    new_fake_game(cfg, "g1", PLAYERS)
    data = tmp_path / "data"
    gate = tmp_path / "gate"
    gate.mkdir()
    # the drain applies the whole backlog, then moves it: the engine holds at the 11th of
    # 150 mails until the connection is dropped, so the drop lands before the MOVEs however
    # fast the drain and however slow this test (a busy machine once let the whole drain
    # finish before the test saw its tenth command)
    sent = _burst(150)
    sent[10] = mail(str(sent[10]["From"]), "CMD w10\nGATE\n", subject="order 10")
    send(stack, *sent)
    d = Daemon(cfg, FAKE_ENGINE_GATE=str(gate)).start()
    try:
        wait_for((gate / "reached").exists, what="the drain under way", log=d.log)
        assert stack.dovecot.kill_imap_children() >= 1
        (gate / "open").touch()
        _verify(stack, d, data, sent)
        assert "IMAP dropped during the start-up drain" in d.log(), d.log()
        assert d.alive(), d.log()
        assert d.stop() == 0
    finally:
        d.kill()


@pytest.mark.slow(8)
def test_f4_uidvalidity_change_rescans_without_duplicates(stack: MailStack, tmp_path: Path) -> None:
    cfg = write_config(stack, tmp_path)
    new_fake_game(cfg, "g1", PLAYERS)
    data = tmp_path / "data"
    first = _burst(3)
    send(stack, *first)
    # crash after the commit but before the MOVE: the mail stays in INBOX, already applied
    d = Daemon(cfg).start(crash_at="after_state:3")
    try:
        assert d.wait_exit() == -9, d.log()
        subprocess.run(
            [
                "doveadm",
                "-c",
                str(stack.dovecot.conf),
                "mailbox",
                "update",
                "-u",
                MODERATOR,
                "--uid-validity",
                "4242",
                "INBOX",
            ],
            check=True,
        )
        more = _burst(2, start=3)
        send(stack, *more)
        d.start()
        _verify(stack, d, data, first + more)
        assert "UIDVALIDITY of INBOX changed" in d.log()
        wait_for(
            lambda: any(
                "UIDVALIDITY" in str(m["Subject"]) for m in stack.messages("admin@example.test")
            ),
            what="the admin alert",
            log=d.log,
        )
        assert d.stop() == 0
    finally:
        d.kill()


def test_f5_smtp_down_does_not_block_processing(
    start_daemon: StartDaemon, stack: MailStack
) -> None:
    stack.handler.mode = "451"
    run = start_daemon(PLAYERS)
    d, data = run.daemon, run.data
    sent = _burst(4)
    for m in sent:
        stack.inject(bytes(m), "moderator+g1@example.test", sender=str(m["From"]))
    wait_for(lambda: len(_words(data)) == 4, what="commands applied while SMTP refuses", log=d.log)
    assert _replied(stack, sent) == set()
    stack.handler.mode = "ok"
    wait_for(
        lambda: _replied(stack, sent) >= {str(m["Message-ID"]) for m in sent},
        timeout=60,
        what="replies after SMTP came back",
        log=d.log,
    )
    assert d.stop() == 0
