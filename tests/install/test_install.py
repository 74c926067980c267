"""The real install (issue 12): the wheel built from the sdist, installed into a fresh venv
outside the checkout, plays ``pbem simulate``, ``pbem demo --offline`` and a ``pbem serve`` that
answers a mail over real IMAP and SMTP, from a directory that is not the checkout, with no
environment variable pointing back at it."""

from __future__ import annotations

import json
import shutil
import subprocess
import tarfile
import zipfile
from email.utils import make_msgid
from pathlib import Path

from tests.install.conftest import ROOT, Installed
from tests.support.daemon_process import mail, send, wait_for
from tests.support.mailstack import MODERATOR, PLAYERS, Dovecot, MailStack


def _pbem(inst: Installed, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(inst.pbem), *args],
        cwd=cwd,
        env=inst.env(),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_wheel_holds_every_template_and_the_licence(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    templates = {
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "pbem" / "templates").rglob("*")
        if p.is_file()
    }
    assert len(templates) > 500
    assert templates - names == set()
    assert "pbem-0.1.0.dist-info/licenses/LICENSE" in names
    assert "pbem/balance/odds.json" in names  # the sign-up post's simulated odds (pbem balance)
    metadata = zipfile.ZipFile(installed.wheel).read("pbem-0.1.0.dist-info/METADATA").decode()
    assert "License-Expression: MIT" in metadata
    # setuptools' warnings about a table `project.license` (about 45 lines) are gone
    assert "deprecat" not in installed.build_log.lower(), installed.build_log
    print(f"install timings: {installed.seconds}")


def test_the_sdist_holds_what_a_packager_needs(installed: Installed) -> None:
    with tarfile.open(installed.sdist) as tar:
        names = {n.partition("/")[2] for n in tar.getnames()}
    for needed in (
        "LICENSE",
        "README.md",
        "config/pbem.example.toml",
        "systemd/pbem.service",
        "systemd/pbem.sysusers",
        "docs/daemon.md",
        "docs/install-debian.md",
        "pbem/templates/fr/lupus/opening.txt",
        "tests/transcripts/lupus-night1.jsonl",
    ):
        assert needed in names, needed
    assert not [n for n in names if n.endswith(".pyc")]


def test_installed_pbem_simulates_and_demos_outside_the_checkout(
    installed: Installed, tmp_path: Path
) -> None:
    transcript = tmp_path / "night.jsonl"
    shutil.copy(ROOT / "tests" / "transcripts" / "lupus-night1.jsonl", transcript)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    r = _pbem(installed, elsewhere, "simulate", str(transcript))
    assert r.returncode == 0, r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    mails, state = [line["mail"] for line in lines[:-1]], lines[-1]["state"]
    assert mails and all(m["subject"] and m["body"] for m in mails)  # rendered templates
    assert state["game"] == "lupus-in-tabula"
    r = _pbem(installed, elsewhere, "demo", "--offline")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert len(r.stdout.splitlines()) > 20
    r = _pbem(installed, elsewhere, "--version")
    assert r.stdout.strip() == "pbem 0.1.0"


def test_installed_pbem_serve_answers_a_mail(
    installed: Installed, stack: MailStack, tmp_path: Path
) -> None:
    etc = tmp_path / "etc"
    etc.mkdir()
    (etc / "imap.pass").write_text(Dovecot.password(MODERATOR) + "\n")
    cfg = etc / "pbem.toml"
    cfg.write_text(
        f"""
[moderator]
address = "{MODERATOR}"
language = "en"

[imap]
host = "127.0.0.1"
port = {stack.dovecot.imap_port}
tls = "none"
user = "{MODERATOR}"
password_file = "imap.pass"
poll_interval = 1

[smtp]
host = "127.0.0.1"
port = {stack.smtp.port}
tls = "none"

[daemon]
data_dir = "{tmp_path / "state"}"
"""
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "state").mkdir()  # new-game creates no data directory (issue 21, item 10)
    players = [f"--player={p.capitalize()} <{p}@example.test>" for p in PLAYERS]
    r = _pbem(
        installed, elsewhere, "new-game", "-c", str(cfg), "--id", "v1", "--seed", "3", *players
    )
    assert r.returncode == 0, r.stderr
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(installed.pbem), "serve", "-c", str(cfg)],
            cwd=elsewhere,
            env=installed.env(),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        alice = "alice@example.test"
        question = mail(alice, "HELP\n", subject="[v1] help")
        question.replace_header("Message-ID", make_msgid(domain="example.test"))
        send(stack, question)
        reply = wait_for(
            lambda: [
                m for m in stack.messages(alice) if m["In-Reply-To"] == question["Message-ID"]
            ],
            timeout=60,
            what="the daemon's reply to alice's HELP",
            log=log.read_text,
        )
        assert reply[0]["From"].addresses[0].addr_spec == MODERATOR
        proc.terminate()
        assert proc.wait(30) == 0, log.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert "Traceback" not in log.read_text()


def test_the_wheel_alone_writes_the_config_the_unit_and_the_sysusers_file(
    installed: Installed, tmp_path: Path
) -> None:
    """Issue 21 item 5: with only the wheel installed (no checkout), ``pbem install-files DIR``
    writes the files docs/install-debian.md installs, as shipped, laid out as in the source
    tree; a second run leaves them alone."""
    shipped = ("config/pbem.example.toml", "systemd/pbem.service", "systemd/pbem.sysusers")
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    for rel in shipped:
        assert f"pbem-0.1.0.data/data/share/pbem/{Path(rel).name}" in names, rel
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    r = _pbem(installed, elsewhere, "install-files", "files")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [f"files/{rel}" for rel in shipped]
    for rel in shipped:
        assert (elsewhere / "files" / rel).read_bytes() == (ROOT / rel).read_bytes(), rel
    r = _pbem(installed, elsewhere, "install-files", "files")
    assert r.returncode == 2 and "already there (--force)" in r.stderr
