"""The service and its operators are different uids (issue 12, docs/install-debian.md): the
installed ``pbem serve`` runs as the service user (primary group ``pbem-admin``, its password
only in a credentials directory as systemd's ``LoadCredential=`` gives it), against a state
directory it owns (2770, as ``StateDirectory=`` makes it); every operator command runs as root
and as a member of the group, both with a umask of 077, and without the passwords.

This machine has no systemd as PID 1, so the uids are switched with ``setpriv`` (numeric ids,
nothing added to /etc/passwd)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.install.conftest import ROOT, Installed
from tests.support.daemon_process import mail, send, wait_for
from tests.support.mailstack import ADMIN, LIST, MODERATOR, Dovecot, MailStack

SERVICE, OPERATOR, GROUP = 61001, 61002, 61000  # pbem, an admin, pbem-admin
AS = {
    "root": ["setpriv", "--reuid=0", "--regid=0", "--clear-groups"],
    "operator": ["setpriv", f"--reuid={OPERATOR}", f"--regid={OPERATOR}", f"--groups={GROUP}"],
    "service": ["setpriv", f"--reuid={SERVICE}", f"--regid={GROUP}", "--clear-groups"],
}


def _as(who: str, umask: str, *cmd: str) -> list[str]:
    return [*AS[who], "--", "sh", "-c", f'umask {umask}; exec "$@"', "sh", *cmd]


class Site:
    """An install in miniature: /etc/pbem, the credentials, the state directory, the engine."""

    def __init__(self, inst: Installed, stack: MailStack) -> None:
        self.inst = inst
        self.dir = inst.root / f"site-{uuid.uuid4().hex[:8]}"
        self.dir.mkdir(mode=0o755)
        self.state = self.dir / "state"
        self.state.mkdir()
        os.chown(self.state, SERVICE, GROUP)
        self.state.chmod(0o2770)
        self.creds = self.dir / "credentials"
        self.creds.mkdir()
        (self.creds / "imap-password").write_text(Dovecot.password(MODERATOR))
        for p in (self.creds / "imap-password", self.creds):
            os.chown(p, SERVICE, GROUP)
        (self.creds / "imap-password").chmod(0o400)
        self.creds.chmod(0o500)
        engines = self.dir / "engines"
        engines.mkdir(mode=0o755)
        shutil.copy(ROOT / "tests" / "support" / "fake_table.py", engines / "fake_table.py")
        (engines / "fake_table.py").chmod(0o644)
        self.armed = self.dir / "armed"  # the fake engine's poisons fire while it exists
        self.armed.write_text("on")
        self.cfg = self.dir / "pbem.toml"
        self.cfg.write_text(
            f"""
[moderator]
address = "{MODERATOR}"
admins = ["{ADMIN}"]
language = "en"

[list]
address = "{LIST}"
list_id = "game.lists.example.test"

[imap]
host = "127.0.0.1"
port = {stack.dovecot.imap_port}
tls = "none"
user = "{MODERATOR}"
poll_interval = 1
idle_renew = 1  # new games are picked up at each IMAP cycle

[smtp]
host = "127.0.0.1"
port = {stack.smtp.port}
tls = "none"

[daemon]
data_dir = "{self.state}"
engine = "fake_table:Table"
retry_base_seconds = 1
heartbeat_seconds = 1
deadline_retry_seconds = 0.2
"""
        )
        os.chown(self.cfg, 0, GROUP)
        self.cfg.chmod(0o640)
        self.env = inst.env(PYTHONPATH=str(engines), HOME=str(self.dir))
        self.log = self.dir / "serve.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def pbem(self, who: str, *args: str) -> subprocess.CompletedProcess[str]:
        """An operator command, with a umask that would lock everyone else out."""
        return subprocess.run(
            _as(who, "077", str(self.inst.pbem), *args),
            cwd=self.dir,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
        )

    def ok(self, who: str, *args: str) -> str:
        r = self.pbem(who, *args)
        assert r.returncode == 0, f"{who}: pbem {' '.join(args)}\n{r.stderr}\n{self.log_text()}"
        return r.stdout

    def status(self, who: str) -> dict[str, Any]:
        r = self.pbem(who, "status", "-c", str(self.cfg), "--json")
        # the exit status is the daemon's health (issue 21): 3 before it ever ran
        assert r.returncode in (0, 1, 2, 3) and r.stderr == "", f"{who}: {r.stderr}"
        data: dict[str, Any] = json.loads(r.stdout)
        return data

    def serve(self) -> None:
        env = {
            **self.env,
            "CREDENTIALS_DIRECTORY": str(self.creds),
            "FAKE_ENGINE_DEADLINE": str(self.armed),
            "FAKE_ENGINE_BOOM": str(self.armed),
        }
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                _as("service", "007", str(self.inst.pbem), "serve", "-c", str(self.cfg)),
                cwd=self.dir,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def logged(self, line: str) -> None:
        """Wait until the daemon has logged ``line``. An operator command costs ~0.5 s of CPU
        (a Python start with pbem's imports): a check made with one waits for the daemon's log
        first, so that it runs once, not every 0.1 s until the daemon gets there."""
        wait_for(lambda: line in self.log_text(), what=repr(line), log=self.log_text)

    def requests(self, spool: str) -> list[str]:
        d = self.state / spool
        return (
            sorted(p.name for p in d.iterdir() if not p.name.startswith(".")) if d.is_dir() else []
        )

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)


def _owner(path: Path) -> tuple[int, int, int]:
    st = path.stat()
    return st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)


def _game(site: Site, who: str, game_id: str) -> None:
    site.ok(
        who,
        "new-game",
        "-c",
        str(site.cfg),
        "--game",
        "fake",
        "--id",
        game_id,
        "--player",
        "alice <alice@example.test>",
        "--player",
        "bob <bob@example.test>",
        "--option",
        "phase_minutes=0.01",
        "--option",
        f"deadline_poison={'boom' if game_id == 'g1' else ''}",
    )


@pytest.mark.slow(35)
def test_operator_commands_as_root_and_as_the_admin_group(
    installed: Installed, stack: MailStack
) -> None:
    site = Site(installed, stack)
    try:
        # a request spool made by hand as root (755), which the service cannot write: its
        # request must be reported once and left alone, not retried every second forever
        handmade = site.state / "deadlines" / "retry"
        handmade.mkdir(parents=True)
        (handmade / "g1").write_text("by hand")
        assert site.status("operator")["games"] == []  # no password needed, none readable

        # a game created by an admin: shared with the group, whatever the admin's umask
        _game(site, "operator", "g1")
        g1 = site.state / "games" / "g1"
        assert _owner(g1) == (OPERATOR, GROUP, 0o2770)
        assert _owner(g1 / "head.json") == (OPERATOR, GROUP, 0o660)

        site.serve()
        # the daemon runs g1: its poisoned deadline fails three times and stalls the game
        site.logged("deadline phase-1 failed 3 times: stalled")
        stalled = wait_for(
            lambda: [g for g in site.status("operator")["games"] if g["stalled"]],
            what="g1's deadline stalled",
            log=site.log_text,
        )
        assert stalled[0]["id"] == "g1"
        assert "g1" in site.ok("operator", "deadline", "list", "-c", str(site.cfg))
        assert site.log_text().count("cannot be removed by the service") == 1
        assert "opened again" not in site.log_text()
        assert _owner(g1 / "head.json")[:2] == (SERVICE, GROUP)  # replaced by the daemon
        assert site.status("root")["last_seen"]  # the daemon's own file, read by the operators

        # the admin asks again once root has fixed the spool's ownership
        for p in (handmade.parent, handmade, handmade / "g1"):
            os.chown(p, SERVICE, GROUP)
        handmade.chmod(0o2770)
        site.armed.unlink()  # "the bug is fixed"
        site.ok("operator", "deadline", "retry", "-c", str(site.cfg), "g1")
        wait_for(lambda: "opened again" in site.log_text(), what="the retry", log=site.log_text)
        assert site.requests("deadlines/retry") == []

        # a shunted mail, retried by root: root's request is the service's to remove
        site.armed.write_text("on")
        send(stack, mail("alice@example.test", "BOOM\n", subject="[g1] boom"))
        # quarantined after its third failure: retried only when asked
        site.logged("failed (3/3)")
        listing = wait_for(
            lambda: (
                "quarantined" in (out := site.ok("root", "shunt", "-c", str(site.cfg), "list"))
                and out
            ),
            what="the mail quarantined",
            log=site.log_text,
        )
        key = listing.split()[0]
        assert "BOOM" in site.ok("operator", "shunt", "-c", str(site.cfg), "show", key)
        site.armed.unlink()
        site.ok("root", "shunt", "-c", str(site.cfg), "retry", key)
        wait_for(
            lambda: "retried: applied" in site.log_text(), what="shunt retry", log=site.log_text
        )
        assert site.requests("shunt/retry") == []
        assert _owner(site.state / "shunt" / "retry") == (SERVICE, GROUP, 0o2770)

        # reachable, from both sides
        site.ok("operator", "reachable", "-c", str(site.cfg), "g1", "alice")
        site.ok("root", "reachable", "-c", str(site.cfg), "g1", "bob")
        wait_for(
            lambda: site.log_text().count("marked reachable") == 2,
            what="both reachable requests",
            log=site.log_text,
        )
        assert site.requests("reachable") == []

        # a game created by root belongs to the service, which runs it
        _game(site, "root", "g2")
        g2 = site.state / "games" / "g2"
        assert _owner(g2) == (SERVICE, GROUP, 0o2770)
        site.logged("game g2: deadline phase-1 resolved")
        wait_for(
            lambda: any(
                g["id"] == "g2" and g["events"] > 2 for g in site.status("operator")["games"]
            ),
            what="g2's phases resolved by the daemon",
            log=site.log_text,
        )
        assert site.log_text().count("cannot be removed by the service") == 1
        assert site.proc is not None
        site.proc.send_signal(signal.SIGTERM)
        assert site.proc.wait(30) == 0, site.log_text()
        assert "PermissionError" not in site.log_text(), site.log_text()
    finally:
        site.close()
