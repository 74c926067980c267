"""Run the real daemon (``pbem serve``) as a child process against a test mail stack."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

import aiosmtplib

from tests.support import daemon_fork
from tests.support.cli_in_process import pbem_in_process
from tests.support.mailstack import ADMIN, LIST, MODERATOR, Dovecot, MailStack

ROOT = Path(__file__).resolve().parents[2]

#: How long :func:`wait_for` and :meth:`Daemon.wait_exit` wait by default: a hang detector, not
#: a guess of how long the event takes (a daemon test's events come within a second or two on
#: an idle machine, but a machine busy with other jobs starves the daemon many times over).
CEILING = 120.0


def write_config(
    stack: MailStack,
    tmp: Path,
    *,
    engine: str = "tests.support.fake_table:Table",
    extra_daemon: str = "",
    extra_imap: str = "",
    auth: str = "",
    moderator: str = MODERATOR,
    name: str = "pbem",
    list_mode: str = "external",
    extra_smtp: str = "",
) -> Path:
    (tmp / f"{name}-imap.pass").write_text(Dovecot.password(moderator) + "\n")
    data = tmp / f"data{'' if name == 'pbem' else '-' + name}"
    data.mkdir(exist_ok=True)  # as the unit's StateDirectory= does: new-game creates none
    cfg = tmp / f"{name}.toml"
    cfg.write_text(
        f"""
[moderator]
address = "{moderator}"
admins = ["{ADMIN}"]
language = "en"
timezone = "UTC"

[list]
address = "{LIST}"
list_id = "game.lists.example.test"
mode = "{list_mode}"

[imap]
host = "127.0.0.1"
port = {stack.dovecot.imap_port}
tls = "none"
user = "{moderator}"
password_file = "{name}-imap.pass"
timeout = 10
poll_interval = 1
{extra_imap}

[smtp]
host = "127.0.0.1"
port = {stack.smtp.port}
tls = "none"
timeout = 5
{extra_smtp}

[daemon]
data_dir = "{data}"
engine = "{engine}"
retry_base_seconds = 1
heartbeat_seconds = 1
{extra_daemon}
{auth}
"""
    )
    return cfg


def env(**extra: str) -> dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT)
    e.pop("NOTIFY_SOCKET", None)
    e.pop("WATCHDOG_USEC", None)
    e.update(extra)
    return e


def pbem(cfg: Path, *args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    """``pbem ARGS -c CFG`` as the operator runs it, in a child process: for a test of the
    command itself (its exit status, its messages, what it sees of a running daemon); a test
    that needs only its effect calls :func:`tests.support.cli_in_process.pbem_in_process`.
    Forked from the fork server as the daemon is (its imports are a fresh interpreter's concern:
    tests/cli/test_startup_imports.py); with keyword arguments for ``subprocess.run``, a Popen."""
    argv = [*args, "-c", str(cfg)]
    if not kw:  # forked, as the daemon (tests/support/daemon_fork.py): the process, not its imports
        with tempfile.TemporaryDirectory() as tmp:
            out, err = Path(tmp, "out"), Path(tmp, "err")
            proc = daemon_fork.start(
                "pbem.cli.daemon", argv, cwd=ROOT, env=env(), base=env(), log=out, stderr=err
            )
            if proc is not None:
                try:
                    rc = proc.wait(60)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
                    raise
                return subprocess.CompletedProcess(
                    [sys.executable, "-m", "pbem.cli.daemon", *argv],
                    rc,
                    out.read_text(),
                    err.read_text(),
                )
    return subprocess.run(
        [sys.executable, "-m", "pbem.cli.daemon", *argv],
        cwd=ROOT,
        env=env(),
        capture_output=True,
        text=True,
        timeout=60,
        **kw,
    )


class Daemon:
    """``pbem serve`` in a child process; logs to ``<tmp>/daemon-N.log``."""

    def __init__(self, cfg: Path, **envvars: str) -> None:
        self.cfg = cfg
        self.envvars = envvars
        self.proc: subprocess.Popen[bytes] | daemon_fork.Forked | None = None
        self.runs = 0

    def start(self, crash_at: str | None = None, **envvars: str) -> Daemon:
        """Start ``pbem serve``; ``crash_at``: ``point[:n]``, killed (SIGKILL) at the n-th hit
        of that fault point (:mod:`tests.daemon.crash_launcher`)."""
        self.runs += 1
        log = self.cfg.parent / f"{self.cfg.stem}-daemon-{self.runs}.log"
        entry = (
            ["pbem.cli.daemon"] if crash_at is None else ["tests.daemon.crash_launcher", crash_at]
        )
        environ = env(**{**self.envvars, **envvars})
        module, *args = [*entry, "serve", "-c", str(self.cfg)]
        # forked from a Python that has imported the daemon already (tests/support/daemon_fork.py):
        # the same process a fresh `python -m` makes, without its ~0.45 s of imports
        self.proc = daemon_fork.start(module, args, cwd=ROOT, env=environ, base=env(), log=log)
        if self.proc is None:
            with open(log, "wb") as out:
                self.proc = subprocess.Popen(
                    [sys.executable, "-m", module, *args],
                    cwd=ROOT,
                    env=environ,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
        return self

    def run_log(self) -> str:
        """The log of the current run only (the last :meth:`start`)."""
        path = self.cfg.parent / f"{self.cfg.stem}-daemon-{self.runs}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def wait_ready(self, timeout: float = CEILING) -> None:
        """Wait until the current run has logged ``ready`` (past its start-up drain, its
        SIGTERM handler installed); the bound is a hang detector, not the expected time."""
        wait_for(lambda: "ready" in self.run_log(), timeout, "the daemon ready", self.log)

    def log(self) -> str:
        return "\n".join(
            p.read_text(errors="replace")[-3000:]
            for p in sorted(self.cfg.parent.glob(f"{self.cfg.stem}-daemon-*.log"))
        )

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def catches_sigterm(self) -> bool:
        """Whether the process has installed its SIGTERM handler yet (``SigCgt`` in
        ``/proc/PID/status``): before that, a SIGTERM kills it where it stands (importing,
        on a busy machine) instead of stopping it cleanly."""
        assert self.proc is not None
        try:
            status = Path(f"/proc/{self.proc.pid}/status").read_text()
        except OSError:
            return False
        caught = next(ln for ln in status.splitlines() if ln.startswith("SigCgt:"))
        return bool(int(caught.split()[1], 16) & (1 << (signal.SIGTERM - 1)))

    def stop(self) -> int:
        """SIGTERM, once the process catches it; its exit status (killed if it hangs)."""
        if self.proc is None:
            return 0
        if self.proc.poll() is None:
            proc = self.proc
            wait_for(
                lambda: proc.poll() is not None or self.catches_sigterm(),
                what="the daemon's SIGTERM handler",
                log=self.log,
            )
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(CEILING)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        return self.proc.returncode

    def restart_until(
        self, done: Callable[[], object], timeout: float = 120, most: int = 10
    ) -> int:
        """Restart it each time it dies, as systemd ``Restart=always`` would, until ``done()``
        holds while it runs (the event that shows it past the crash loop: a mail quarantined,
        a deadline stalled); returns the number of deaths, each of which must be a SIGKILL.
        Every exit is collected before the next start, so a death before the call counts too.
        A death after ``done()`` is seen by the caller: the process is then left dead."""
        assert self.proc is not None
        deaths = 0
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            rc = self.proc.poll()
            if rc is not None:
                assert rc == -9, self.log()
                deaths += 1
                assert deaths <= most, f"still dying after {most} restarts\n{self.log()}"
                self.start()
            elif done():
                return deaths
            else:
                time.sleep(0.05)
        raise AssertionError(f"not past the crash loop in {timeout} s\n{self.log()}")

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def wait_exit(self, timeout: float = CEILING) -> int | None:
        assert self.proc is not None
        with contextlib.suppress(subprocess.TimeoutExpired):
            return self.proc.wait(timeout)
        return None


def wait_for(
    pred: Callable[[], Any],
    timeout: float = CEILING,
    what: str = "",
    log: Callable[[], str] | None = None,
) -> Any:
    """Poll ``pred`` until it returns something true, and return it; fail after ``timeout``."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}\n{log() if log else ''}")


def mail(
    sender: str, body: str, *, to: str = MODERATOR, subject: str = "orders", **headers: str
) -> EmailMessage:
    m = EmailMessage()
    m["From"] = sender
    m["To"] = to
    m["Subject"] = subject
    m["Message-ID"] = make_msgid(domain="example.test")
    for k, v in headers.items():
        m[k.replace("_", "-")] = v
    m.set_content(body)
    return m


def send(stack: MailStack, *msgs: EmailMessage) -> None:
    async def go() -> None:
        async with aiosmtplib.SMTP(hostname="127.0.0.1", port=stack.smtp.port, timeout=10) as s:
            for m in msgs:
                await s.send_message(m)

    asyncio.run(go())


def game_state(data: Path, game_id: str) -> tuple[list[dict[str, Any]], Mapping[str, Any]]:
    """Events and meta of a game, read-only (the daemon may be running)."""
    from pbem.adapters.store import GameStore

    gs = GameStore(data / "games" / game_id, readonly=True)
    return gs.events(), gs.meta


class StoredTable:
    """A game's table as the running daemon stored it, read-only: ``table()`` is the latest.

    The bot loops look at it five times a second, and replaying a game's events costs
    milliseconds per event: the events are replayed again only when their log has grown (it
    is append-only: a rollback is an event too)."""

    def __init__(self, data: Path, game_id: str) -> None:
        self.path = data / "games" / game_id
        self._table: Any = None
        self._seen = -1

    def __call__(self) -> Any:
        from pbem.adapters.store import GameStore
        from pbem.table import Table

        gs = GameStore(self.path, readonly=True)
        events = gs.events()
        if len(events) != self._seen:
            self._table, self._seen = Table.load(gs.setup, events), len(events)
        return self._table


def outbox_empty(data: Path) -> bool:
    """True once every mail the daemon has queued is out. A mail to send is queued in the very
    commit that applied its cause, and its row removed once the relay took it (the test relay
    delivers before it answers): after a mail is processed, an empty outbox means that any
    answer it was going to get is in its recipient's box."""
    from pbem.adapters.store import DaemonStore, GameStore

    if DaemonStore(data, readonly=True).outbox():
        return False
    games = sorted(g for g in (data / "games").glob("*") if g.is_dir())
    return not any(GameStore(g, readonly=True).outbox() for g in games)


def new_fake_game(cfg: Path, game_id: str, players: list[str], **options: Any) -> None:
    setup = {
        "game": "fake",
        "game_id": game_id,
        "players": [{"name": p, "email": f"{p}@example.test"} for p in players],
        "options": options,
    }
    path = cfg.parent / f"setup-{game_id}.json"
    path.write_text(json.dumps(setup))
    # the game is what the test needs, not the process (tests/cli and the status tests run it)
    r = pbem_in_process(cfg, "new-game", "--setup", str(path), "--id", game_id)
    assert r.returncode == 0, r.stderr


def close_phase(cfg: Path, game_id: str) -> None:
    """Close the game's phase now, as its deadline would (``pbem admin GAME CLOSE``, the
    desk's CLORE; the fake engine's too): a test whose phase must not end before its mail is
    read gives it a long deadline and ends it by this event instead of a short one."""
    r = pbem_in_process(cfg, "admin", game_id, "CLOSE")
    assert r.returncode == 0, r.stderr
