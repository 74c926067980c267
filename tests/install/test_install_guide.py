"""docs/install-debian.md run as written (issue 21 item 2), as root on Debian 12 without systemd
as PID 1: every command of the guide's code blocks is read from the markdown, and either run
(under a fake root directory standing for /, with the wheel installed by the session's fixture
standing for /opt/pbem) or named below with the reason it cannot run here and the test that
plays it. A command added to the guide or changed fails this test until it is listed.

Each runnable command runs as written except: its absolute paths are under the fake root;
``systemd-sysusers`` and ``systemctl enable`` get ``--root`` (both work on a directory);
``pbem-admin``/``pbem`` as an owner are the ids ``systemd-sysusers`` gave them there (the host
has no such user); ``editor FILE`` writes a password into FILE.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from pathlib import Path

import pytest

from tests.install.conftest import ROOT, Installed

GUIDE = ROOT / "docs" / "install-debian.md"

RUN = "run"
#: Every command of the guide: RUN, or why it does not run here and what plays it instead.
COMMANDS = {
    "python3 -m build": "the `installed` fixture builds the sdist and the wheel with it",
    "apt install python3-venv": "no package installs in the suite; the fixture's venv stands in",
    "python3 -m venv /opt/pbem": "the `installed` fixture's venv is /opt/pbem here",
    "/opt/pbem/bin/pip install pbem-0.1.0-py3-none-any.whl": "the `installed` fixture does it",
    "ln -s /opt/pbem/bin/pbem /usr/local/bin/pbem": RUN,
    "install -d /usr/local/share/man/man1": RUN,
    "ln -s /opt/pbem/share/man/man1/pbem.1 /usr/local/share/man/man1/pbem.1": RUN,
    "pbem completion bash > /etc/bash_completion.d/pbem": RUN,
    "PIPX_HOME=/opt/pipx PIPX_BIN_DIR=/usr/local/bin pipx install pbem-0.1.0.tar.gz": (
        "the alternative to the venv; pipx is not installed here"
    ),
    "pbem install-files /root/pbem-files && cd /root/pbem-files": RUN,
    "install -D -m 644 systemd/pbem.sysusers /etc/sysusers.d/pbem.conf": RUN,
    "systemd-sysusers": RUN,
    "adduser alice pbem-admin": (
        "changes the host's accounts; tests/install/test_operator_uids.py runs the operator "
        "commands as a member of the group"
    ),
    "install -d -m 750 -g pbem-admin /etc/pbem": RUN,
    "install -m 640 -g pbem-admin config/pbem.example.toml /etc/pbem/pbem.toml": RUN,
    "install -m 600 /dev/null /etc/pbem/imap.pass && editor /etc/pbem/imap.pass": RUN,
    "install -m 600 /dev/null /etc/pbem/smtp.pass && editor /etc/pbem/smtp.pass": RUN,
    "systemd-creds encrypt --name=imap-password /etc/pbem/imap.pass /etc/pbem/imap.cred": (
        "the optional encrypted credentials need the host's credential key"
    ),
    "systemd-creds encrypt --name=smtp-password /etc/pbem/smtp.pass /etc/pbem/smtp.cred": (
        "the optional encrypted credentials need the host's credential key"
    ),
    "shred -u /etc/pbem/imap.pass /etc/pbem/smtp.pass": "part of the optional encryption",
    "pbem check-config --offline -c /etc/pbem/pbem.toml": RUN,
    "systemd-run --pipe --wait -p LoadCredential=imap-password:/etc/pbem/imap.pass "
    "-p LoadCredential=smtp-password:/etc/pbem/smtp.pass "
    "/opt/pbem/bin/pbem check-config -c /etc/pbem/pbem.toml": (
        "needs systemd as PID 1; tests/daemon/test_systemd.py plays the unit's credentials"
    ),
    "install -m 640 -g pbem-admin /dev/null /etc/pbem/admin.code "
    "&& editor /etc/pbem/admin.code": RUN,
    "install -m 644 systemd/pbem.service /etc/systemd/system/pbem.service": RUN,
    "systemctl daemon-reload": "needs systemd as PID 1",
    "systemctl enable --now pbem": RUN,
    "systemctl status pbem; journalctl -u pbem -f": "needs systemd as PID 1",
    "pbem status": "tests/install/test_operator_uids.py (as root and as a pbem-admin member)",
    "pbem new-game --setup village.json --id village1": "tests/install/test_operator_uids.py",
    "pbem shunt list; pbem shunt retry KEY": "tests/install/test_operator_uids.py",
    "pbem deadline list; pbem deadline retry village1": "tests/install/test_operator_uids.py",
    "pbem reachable village1 Alice": "tests/install/test_operator_uids.py",
    "systemctl stop pbem": "needs systemd as PID 1",
    "(umask 077 && tar -C /var/lib -czf /var/backups/pbem-$(date +%F).tar.gz pbem)": RUN,
    "mv /var/lib/pbem /var/lib/pbem.before-restore": RUN,
    "tar -C /var/lib -xzf /var/backups/pbem-$(date +%F).tar.gz": RUN,
    "chown -R pbem:pbem-admin /var/lib/pbem": RUN,
    "systemctl start pbem": "needs systemd as PID 1",
}


def guide_commands(text: str) -> list[str]:
    """The commands of the guide's ``sh`` blocks, one per logical line (continuation lines
    joined), without comments."""
    out = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, flags=re.M | re.S):
        joined = re.sub(r"\\\n\s*", "", block)
        for line in joined.splitlines():
            command = re.sub(r"\s+#\s.*$", "", line).strip()
            if command and not command.startswith("#"):
                out.append(command)
    return out


def as_played(command: str) -> str:
    """``command`` as it runs under the fake root ``$R`` (see the module docstring)."""
    command = re.sub(r"(?<![\w.$/-])/(?=(?:etc|opt|usr|var|root|run)\b)", "$R/", command)
    command = command.replace("-g pbem-admin", '-g "$PBEM_ADMIN_GID"')
    command = command.replace("pbem:pbem-admin", '"$PBEM_UID:$PBEM_ADMIN_GID"')
    if command == "systemd-sysusers":
        return (
            'systemd-sysusers --root="$R"\n'
            'PBEM_ADMIN_GID=$(awk -F: \'$1=="pbem-admin" {print $3}\' "$R/etc/group")\n'
            'PBEM_UID=$(awk -F: \'$1=="pbem" {print $3}\' "$R/etc/passwd")'
        )
    if command == "systemctl enable --now pbem":
        return 'systemctl --root="$R" enable pbem  # --now: systemd as PID 1'
    return command


def test_the_install_guide_runs_as_written(installed: Installed, tmp_path: Path) -> None:
    commands = guide_commands(GUIDE.read_text(encoding="utf-8"))
    assert sorted(set(commands)) == sorted(COMMANDS), (
        "docs/install-debian.md changed: list each command in COMMANDS (run it, or say why "
        "not and what plays it)"
    )
    if os.geteuid() != 0:
        pytest.skip("the guide's commands run as root (CI does)")
    root = tmp_path / "root"
    # a stock Debian 12: no /etc/sysusers.d (issue 21 item 2), no /etc/pbem
    # (and /usr/local/share/man, /etc/bash_completion.d: base-files, bash-completion)
    for d in (
        "etc/systemd/system",
        "etc/bash_completion.d",
        "usr/local/bin",
        "usr/local/share/man",
        "var/lib",
        "var/backups",
        "root",
        "opt",
    ):
        (root / d).mkdir(parents=True)
    (root / "opt" / "pbem").symlink_to(installed.venv)
    script = [
        "set -ex",
        'editor() { printf "a-password-of-the-test\\n" > "$1"; }',
        'export PATH="$R/usr/local/bin:$PATH"',  # the guide's `ln -s` makes `pbem` found
    ]
    for command in commands:
        if COMMANDS[command] == RUN:
            script.append(as_played(command))
            if command.startswith("systemctl enable"):
                # the StateDirectory= systemd makes at the first start, for the backup below
                script.append('install -d -m 2770 -g "$PBEM_ADMIN_GID" "$R/var/lib/pbem"')
    r = subprocess.run(
        ["bash", "-c", "\n".join(script)],
        cwd=tmp_path,
        env=installed.env(R=str(root)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, f"{r.stdout}\n{r.stderr}"
    assert "configuration is valid" in r.stdout  # check-config --offline, no password
    assert "pbem:" in (root / "etc" / "passwd").read_text()
    gid = int(
        next(
            ln
            for ln in (root / "etc" / "group").read_text().splitlines()
            if ln.startswith("pbem-admin:")
        ).split(":")[2]
    )
    etc = root / "etc" / "pbem"
    for name, mode, group in (
        ("", 0o750, gid),
        ("pbem.toml", 0o640, gid),
        ("imap.pass", 0o600, 0),
        ("smtp.pass", 0o600, 0),
        ("admin.code", 0o640, gid),
    ):
        st = (etc / name).stat()
        assert (stat.S_IMODE(st.st_mode), st.st_gid) == (mode, group), name
    wants = root / "etc/systemd/system/multi-user.target.wants/pbem.service"
    assert wants.is_symlink()
    assert (root / "etc/sysusers.d/pbem.conf").read_bytes() == (
        ROOT / "systemd" / "pbem.sysusers"
    ).read_bytes()
    (backup,) = (root / "var" / "backups").glob("pbem-*.tar.gz")
    # the backup holds every card dealt and every address: no one else's (umask 077)
    assert stat.S_IMODE(backup.stat().st_mode) & 0o077 == 0
    # restored, the state is the service's again
    state = root / "var/lib/pbem"
    uid = int(
        next(
            ln for ln in (root / "etc/passwd").read_text().splitlines() if ln.startswith("pbem:")
        ).split(":")[2]
    )
    assert (state.stat().st_uid, state.stat().st_gid) == (uid, gid)
    assert (root / "var/lib/pbem.before-restore").is_dir()
    # `man pbem` finds the page the wheel installed (man-db reads /usr/local/share/man)
    page = root / "usr/local/share/man/man1/pbem.1"
    assert page.resolve().read_bytes() == (ROOT / "docs" / "pbem.1").read_bytes()
    assert "_pbem" in (root / "etc/bash_completion.d/pbem").read_text()
