"""The hardened unit: `systemd-analyze verify` clean, security exposure ≤ 2.0 (requirement 12),
and the sd_notify datagrams (READY only after an IMAP round-trip, then WATCHDOG)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.support.daemon_process import (
    ROOT,
    Daemon,
    game_state,
    mail,
    new_fake_game,
    send,
    wait_for,
    write_config,
)
from tests.support.mailstack import MailStack

UNIT = ROOT / "systemd" / "pbem.service"


def _analyze() -> str:
    exe = shutil.which("systemd-analyze")
    assert exe, "systemd-analyze is missing: run scripts/install-mailstack.sh (make test does)"
    return exe


def _unit_copy(tmp_path: Path) -> Path:
    # verify checks that ExecStart exists: point it at this interpreter, the rest unchanged
    text = re.sub(
        r"^ExecStart=\S+",
        f"ExecStart={sys.executable} -m pbem.cli.main",
        UNIT.read_text(),
        flags=re.M,
    )
    out = tmp_path / "pbem.service"
    out.write_text(text)
    return out


def test_unit_verifies_clean(tmp_path: Path) -> None:
    r = subprocess.run(
        [_analyze(), "verify", str(_unit_copy(tmp_path))], capture_output=True, text=True
    )
    assert r.returncode == 0 and not r.stderr.strip(), r.stderr


def test_unit_security_exposure_at_most_2(tmp_path: Path) -> None:
    r = subprocess.run(
        [_analyze(), "security", "--offline=yes", str(_unit_copy(tmp_path))],
        capture_output=True,
        text=True,
    )
    m = re.search(r"Overall exposure level for \S+: ([0-9.]+)", r.stdout)
    assert m, r.stdout + r.stderr
    assert float(m.group(1)) <= 2.0, r.stdout
    for line in (
        "User=pbem",
        "UMask=0007",
        "ProtectSystem=strict",
        "NoNewPrivileges=yes",
        "LoadCredential=",
        "Restart=on-failure",
        "WatchdogSec=",
        "Type=notify",
    ):
        assert line in UNIT.read_text()


def test_ready_and_watchdog_after_imap_round_trip(stack: MailStack, tmp_path: Path) -> None:
    cfg = write_config(stack, tmp_path, extra_imap="idle_renew = 1")
    path = str(tmp_path / "notify.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(path)
        sock.settimeout(0.2)
        got: list[str] = []

        def drain() -> list[str]:
            try:
                while True:
                    got.append(sock.recv(4096).decode())
            except TimeoutError:
                pass
            return got

        d = Daemon(cfg, NOTIFY_SOCKET=path, WATCHDOG_USEC="4000000").start()
        try:
            wait_for(
                lambda: sum("WATCHDOG=1" in g for g in drain()) >= 2,
                timeout=20,
                what="READY then watchdog pings",
                log=d.log,
            )
            assert got[0].startswith("READY=1")
            assert d.stop() == 0
            drain()
            assert any("STOPPING=1" in g for g in got)
        finally:
            d.kill()


def _stopped(pid: int) -> bool:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "T"


def test_watchdog_pings_stop_while_sigstopped_and_resume(stack: MailStack, tmp_path: Path) -> None:
    """Requirement 12 without systemd as PID 1: a SIGSTOPped daemon stops feeding the watchdog
    (so systemd's WatchdogSec would kill and restart it); after SIGCONT the pings resume, READY
    is not sent again, and the pause is not mistaken for a clock jump (monotonic time runs on)."""
    cfg = write_config(stack, tmp_path, extra_imap="idle_renew = 1")
    path = str(tmp_path / "notify.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(path)
        sock.settimeout(0.2)
        got: list[str] = []

        def drain() -> list[str]:
            new = []
            try:
                while True:
                    new.append(sock.recv(4096).decode())
            except TimeoutError:
                pass
            got.extend(new)
            return new

        d = Daemon(cfg, NOTIFY_SOCKET=path, WATCHDOG_USEC="2000000").start()
        assert d.proc is not None
        pid = d.proc.pid
        try:
            wait_for(lambda: "WATCHDOG=1" in "".join(drain()), what="a first ping", log=d.log)
            d.proc.send_signal(signal.SIGSTOP)
            wait_for(lambda: _stopped(pid), what="the daemon stopped")
            drain()  # what was sent before the stop
            time.sleep(2.5)  # longer than WatchdogSec=2: systemd would restart it now
            assert drain() == [], "pings while stopped"
            d.proc.send_signal(signal.SIGCONT)
            wait_for(
                lambda: "WATCHDOG=1" in "".join(drain()), what="pings after SIGCONT", log=d.log
            )
            assert sum("READY=1" in g for g in got) == 1
            assert d.stop() == 0
            assert "clock jump" not in d.log()
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
            d.kill()


class WatchdogSupervisor(threading.Thread):
    """What systemd does for ``Type=notify``, ``WatchdogSec=`` and ``Restart=on-failure``
    (systemd.service(5)), for a machine without systemd as PID 1: it reads the sd_notify
    datagrams on ``NOTIFY_SOCKET``; once ``READY=1`` came, a gap longer than ``watchdog``
    seconds between ``WATCHDOG=1`` pings is a failure: ``SIGABRT`` (the default
    ``WatchdogSignal=``), ``SIGKILL`` after ``abort_timeout`` (``TimeoutAbortSec=``), then a
    restart after ``restart_sec`` (``RestartSec=``)."""

    def __init__(
        self, daemon: Daemon, sock: socket.socket, watchdog: float, restart_sec: float = 0.2
    ) -> None:
        super().__init__(daemon=True)
        self.d, self.sock, self.watchdog, self.restart_sec = daemon, sock, watchdog, restart_sec
        self.abort_timeout = 1.0
        self.ready = 0  # READY=1 datagrams seen
        self.watchdog_kills = 0
        self.done = threading.Event()

    def run(self) -> None:
        last: float | None = None  # the last ping (or READY) of the current process
        while not self.done.is_set():
            with contextlib.suppress(TimeoutError):
                msg = self.sock.recv(4096).decode()
                if "READY=1" in msg:
                    self.ready += 1
                    last = time.monotonic()
                if "WATCHDOG=1" in msg and last is not None:
                    last = time.monotonic()
            if last is None or time.monotonic() - last <= self.watchdog:
                continue
            assert self.d.proc is not None
            self.d.proc.send_signal(signal.SIGABRT)  # pending while the process is stopped
            if self.d.wait_exit(self.abort_timeout) is None:
                self.d.proc.kill()
                self.d.proc.wait()
            self.watchdog_kills += 1
            last = None
            time.sleep(self.restart_sec)
            self.d.start()


@pytest.mark.slow(15)
def test_a_sigstopped_daemon_is_killed_by_the_watchdog_and_restarted(
    stack: MailStack, tmp_path: Path
) -> None:
    """Requirement 12, "a SIGSTOPped daemon is restarted", under the supervisor above (systemd's
    documented watchdog behaviour): the stopped daemon misses its pings, is killed and
    restarted; the new process sends READY again and applies the mail that arrived meanwhile,
    once."""
    cfg = write_config(stack, tmp_path, extra_imap="idle_renew = 1")
    new_fake_game(cfg, "g1", ["alice", "bob"])
    path = str(tmp_path / "notify.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(path)
        sock.settimeout(0.1)
        d = Daemon(cfg, NOTIFY_SOCKET=path, WATCHDOG_USEC="2000000").start()
        supervisor = WatchdogSupervisor(d, sock, watchdog=2.0)
        supervisor.start()
        try:
            wait_for(lambda: supervisor.ready == 1, what="READY", log=d.log)
            assert d.proc is not None
            first = d.proc.pid
            d.proc.send_signal(signal.SIGSTOP)
            send(stack, mail("alice@example.test", "CMD meanwhile\n"))
            wait_for(lambda: supervisor.watchdog_kills == 1, what="the watchdog kill", log=d.log)
            wait_for(lambda: supervisor.ready == 2, what="READY from the new process", log=d.log)
            assert d.proc.pid != first
            data = tmp_path / "data"

            def words() -> list[str]:
                return [e["word"] for e in game_state(data, "g1")[0] if e["type"] == "cmd"]

            wait_for(lambda: words() == ["meanwhile"], what="the mail applied", log=d.log)
            time.sleep(3)  # the new process keeps feeding the watchdog: no second kill
            assert supervisor.watchdog_kills == 1 and words() == ["meanwhile"]
            supervisor.done.set()
            supervisor.join(5)
            assert d.stop() == 0
        finally:
            supervisor.done.set()
            d.kill()
