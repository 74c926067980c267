"""docs/season.md, the season runbook (issue 21 item 7): linked from the README, and every
``pbem`` command of its ``sh`` blocks is one the command line accepts, read from the page, so a
renamed option or verb breaks this test rather than the operator's season. The timer it gives
for the published index passes ``systemd-analyze verify``."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pbem.cli.main import build_parser
from pbem.table.setup import TableSetup
from tests.install.conftest import ROOT
from tests.install.test_install_guide import guide_commands

SEASON = ROOT / "docs" / "season.md"


def test_the_readme_links_the_season_runbook() -> None:
    assert "(docs/season.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
    text = SEASON.read_text(encoding="utf-8")
    for topic in (
        "sign-ups",
        "Start",
        "Replace",
        "pause",
        "End",
        "Archive and publish",
        "Retention",
        "created while the daemon is down",
    ):
        assert topic.lower() in text.lower(), topic


def test_every_pbem_command_of_the_runbook_parses() -> None:
    lines = [c for c in guide_commands(SEASON.read_text(encoding="utf-8")) if c.startswith("pbem ")]
    assert len(lines) >= 10
    parser = build_parser()
    for line in lines:
        try:
            parser.parse_args(shlex.split(line)[1:])
        except SystemExit:
            pytest.fail(f"docs/season.md: `{line}` is refused by pbem's command line")


def test_the_runbooks_setup_file_is_one_new_game_accepts() -> None:
    # the runbook named `--setup village8.json` without saying what goes in it
    blocks = re.findall(r"^```json\n(.*?)^```", SEASON.read_text(encoding="utf-8"), re.M | re.S)
    assert blocks, "docs/season.md shows no setup file"
    setup = TableSetup.from_mapping(json.loads(blocks[0]))
    assert len(setup.players) == 8


def test_the_index_timer_verifies(tmp_path: Path) -> None:
    exe = shutil.which("systemd-analyze")
    assert exe, "systemd-analyze is missing: run scripts/install-mailstack.sh (make test does)"
    text = SEASON.read_text(encoding="utf-8")
    units = re.findall(r"`/etc/systemd/system/(pbem-index\.\w+)`.*?```ini\n(.*?)```", text, re.S)
    assert [name for name, _ in units] == ["pbem-index.service", "pbem-index.timer"]
    for name, body in units:
        # verify checks that ExecStart exists: this interpreter stands for /opt/pbem's pbem
        body = body.replace("/opt/pbem/bin/pbem", f"{sys.executable} -m pbem.cli.main")
        (tmp_path / name).write_text("[Unit]\nDescription=pbem index\n\n" + body)
    r = subprocess.run(
        [exe, "verify", str(tmp_path / "pbem-index.timer"), str(tmp_path / "pbem-index.service")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
