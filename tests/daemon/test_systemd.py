"""The hardened unit: `systemd-analyze verify` clean, security exposure ≤ 2.0 (requirement 12),
and the sd_notify datagrams (READY only after an IMAP round-trip, then WATCHDOG)."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
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
