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
import time
from pathlib import Path

from tests.daemon.harness import ROOT, Daemon, wait_for, write_config
from tests.daemon.mailstack import MailStack

UNIT = ROOT / "systemd" / "pbem.service"


def _analyze() -> str:
    exe = shutil.which("systemd-analyze")
    assert exe, "systemd-analyze is missing: run scripts/install-mailstack.sh (make test does)"
    return exe


def _unit_copy(tmp_path: Path) -> Path:
    # verify checks that ExecStart exists: point it at this interpreter, the rest unchanged
    text = re.sub(
        r"^ExecStart=\S+", f"ExecStart={sys.executable} -m pbem.cli", UNIT.read_text(), flags=re.M
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
        "DynamicUser=yes",
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
