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

from tests.support.cli_in_process import pbem_in_process
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
from tests.support.mailstack import ADMIN, DOMAIN, LIST, MODERATOR, PLAYERS, Dovecot, MailStack

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


# ---- the unit's own environment, played as systemd gives it (issue 21 item 4) ---------------

EXAMPLE = ROOT / "config" / "pbem.example.toml"


def unit_service_settings(unit: Path = UNIT) -> dict[str, list[str]]:
    """The ``[Service]`` settings of ``unit``, each name with every value it is given."""
    out: dict[str, list[str]] = {}
    section = ""
    for raw in unit.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line
        elif section == "[Service]":
            key, _, value = line.partition("=")
            out.setdefault(key, []).append(value)
    return out


def seconds(span: str) -> float:
    """A systemd time span (``15min``, ``5s``, ``1h 30min``) in seconds."""
    units = {"us": 1e-6, "ms": 1e-3, "s": 1, "sec": 1, "min": 60, "m": 60, "h": 3600, "d": 86400}
    total = 0.0
    for number, unit in re.findall(r"([0-9.]+)\s*([a-z]*)", span):
        total += float(number) * units[unit or "s"]
    return total


def example_for_stack(stack: MailStack, smtp_port: int, state: Path) -> str:
    """config/pbem.example.toml as shipped, its servers, addresses and data directory pointed
    at the test's mail stack; every other key (auth, limits, games' options) as shipped."""
    text = EXAMPLE.read_text()
    for old, new in (
        ('"moderator@example.org"', f'"{MODERATOR}"'),
        ('"moderator+bounce@example.org"', '"moderator+bounce@example.test"'),
        ('["gm@example.org"]', f'["{ADMIN}"]'),
        ('"village@lists.example.org"', f'"{LIST}"'),
        ('"village.lists.example.org"', '"game.lists.example.test"'),
        ('host = "imap.example.org"', 'host = "127.0.0.1"'),
        ("port = 993", f"port = {stack.dovecot.imap_port}"),
        ('tls = "tls"', 'tls = "none"'),
        ('host = "smtp.example.org"', 'host = "127.0.0.1"'),
        ("port = 587", f"port = {smtp_port}"),
        ('tls = "starttls"', 'tls = "none"'),
        ('data_dir = "/var/lib/pbem"', f'data_dir = "{state}"'),
    ):
        assert old in text, f"config/pbem.example.toml changed: {old} is gone"
        text = text.replace(old, new)
    return text


@pytest.mark.slow(10)
def test_the_shipped_unit_runs_the_example_config_as_systemd_would(
    stack: MailStack, tmp_path: Path
) -> None:
    """Issue 21 item 4: systemd/pbem.service played as systemd runs it, without systemd as
    PID 1: its ExecStart (the binary as this checkout's, its --config under a fake /etc), its
    StateDirectory ($STATE_DIRECTORY, mode StateDirectoryMode), every LoadCredential
    ($CREDENTIALS_DIRECTORY: the IMAP password and the SMTP one, which an authenticating
    server checks), RuntimeDirectory if any, UMask (a shell's umask before exec), Type=notify
    with NotifyAccess=main (the datagrams' sender is the main process), WatchdogSec as
    WATCHDOG_USEC, a clean environment and / as working directory. User=/Group= are played by
    the test's own user (root in CI): pbem never asks which user it is.

    The example config, pointed at the test's Dovecot and SMTP, is the operator's: a game is
    made outside the unit (`pbem new-game`, no password), the daemon answers a player's mail,
    READY=1 then WATCHDOG=1 come from it, SIGTERM ends it with STOPPING=1 and exit 0."""
    from tests.support.mailstack import SmtpServer

    unit = unit_service_settings()
    assert unit["Type"] == ["notify"] and unit["NotifyAccess"] == ["main"]
    assert unit["User"] == ["pbem"] and unit["Group"] == ["pbem-admin"]
    smtp = SmtpServer(stack.handler, auth=(MODERATOR, "smtp-secret"))  # started below
    fake_root = tmp_path / "root"

    def host_path(path: str) -> Path:
        return fake_root / path.lstrip("/")

    state = host_path("/var/lib/" + unit["StateDirectory"][0])
    state.mkdir(parents=True)
    state.chmod(int(unit["StateDirectoryMode"][0], 8))
    (exe, *argv) = unit["ExecStart"][0].split()
    assert exe.endswith("/pbem") and argv[:2] == ["serve", "--config"]
    cfg = host_path(argv[2])
    cfg.parent.mkdir(parents=True)
    cfg.write_text(example_for_stack(stack, smtp.port, state))
    secrets = {"imap-password": Dovecot.password(MODERATOR), "smtp-password": "smtp-secret"}
    creds = tmp_path / "credentials"
    creds.mkdir(mode=0o700)
    for spec in unit["LoadCredential"]:
        name, _, source = spec.partition(":")
        host_path(source).write_text(secrets.pop(name) + "\n")  # the root-only file in /etc
        shutil.copy(host_path(source), creds / name)
        (creds / name).chmod(0o400)  # systemd hands each credential read-only
    assert not secrets, f"the unit no longer loads {sorted(secrets)}"
    env = {
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin",
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(ROOT),  # the checkout stands for /opt/pbem's venv
        "STATE_DIRECTORY": str(state),
        "CREDENTIALS_DIRECTORY": str(creds),
        "WATCHDOG_USEC": str(int(seconds(unit["WatchdogSec"][0]) * 1e6)),
        "NOTIFY_SOCKET": str(tmp_path / "notify.sock"),
        "INVOCATION_ID": "0" * 32,
    }
    for runtime in unit.get("RuntimeDirectory", []):
        host_path("/run/" + runtime).mkdir(parents=True)
        env["RUNTIME_DIRECTORY"] = str(host_path("/run/" + runtime))
    umask = unit["UMask"][0]

    # the operator, outside the unit: a game made with the same config, no password needed
    players = [f"--player={p.capitalize()} <{p}@example.test>" for p in PLAYERS]
    r = pbem_in_process(cfg, "new-game", "--id", "v1", "--seed", "3", *players)
    assert r.returncode == 0, r.stderr
    assert "admin code for the game masters" in r.stdout  # admin_secret = true, as shipped

    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(env["NOTIFY_SOCKET"])
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        sock.settimeout(0.2)
        got: list[tuple[int, str]] = []

        def drain() -> list[str]:
            with contextlib.suppress(TimeoutError):
                while True:
                    data, anc, _flags, _addr = sock.recvmsg(4096, socket.CMSG_SPACE(12))
                    pid = next(
                        int.from_bytes(d[:4], sys.byteorder)
                        for level, kind, d in anc
                        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS
                    )
                    got.append((pid, data.decode()))
            return [text for _pid, text in got]

        log = tmp_path / "journal.log"
        smtp.start()
        try:
            with log.open("wb") as out:
                proc = subprocess.Popen(
                    [
                        *("sh", "-c", f'umask {umask} && exec "$@"', "sh"),
                        *(sys.executable, "-m", "pbem.cli.main", *argv[:2], str(cfg), *argv[3:]),
                    ],
                    cwd="/",
                    env=env,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            try:
                wait_for(
                    lambda: proc.poll() is not None or any("WATCHDOG=1" in t for t in drain()),
                    what="READY=1, then the watchdog fed",
                    log=log.read_text,
                )
                assert proc.poll() is None, log.read_text()  # 78: RestartPreventExitStatus
                texts = drain()
                assert texts[0].startswith("READY=1"), texts
                alice = f"alice@{DOMAIN}"
                question = mail(alice, "HELP\n", subject="[v1] help")
                send(stack, question)
                wait_for(
                    lambda: [
                        m
                        for m in stack.messages(alice)
                        if m["In-Reply-To"] == question["Message-ID"]
                    ],
                    what="the daemon's answer to alice",
                    log=log.read_text,
                )
                proc.send_signal(signal.SIGTERM)
                assert proc.wait(60) == 0, log.read_text()
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait(10)
        finally:
            smtp.stop()
        texts = drain()
        assert any("STOPPING=1" in t for t in texts), texts
        assert {pid for pid, _text in got} == {proc.pid}  # NotifyAccess=main
    journal = log.read_text()
    assert "Traceback" not in journal and "unknown key" not in journal, journal
    # UMask=0007 and StateDirectoryMode=2770: nothing pbem wrote is open to others
    others = [p for p in state.rglob("*") if p.stat().st_mode & 0o007]
    assert not others, others
