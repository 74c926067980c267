"""The documented configuration as the sysadmin meets it (issue 21, items 1, 3 and 6).

The shipped example config (``config/pbem.example.toml``), only its data directory moved
under the test's: under the unit's environment (``$STATE_DIRECTORY``, ``$CREDENTIALS_DIRECTORY``)
and outside it, with ``check-config --offline`` (no password anywhere), ``status``,
``new-game`` and ``open-game``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pbem.daemon.config import load
from tests.support.cli_in_process import pbem_in_process

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "config" / "pbem.example.toml"


def example_config(tmp_path: Path, *, data_dir: Path | None = None, extra: str = "") -> Path:
    """The example config, its data_dir under ``tmp_path`` (or ``data_dir``); ``extra``
    replaces text (``old=>new`` lines)."""
    text = EXAMPLE.read_text()
    wanted = data_dir or tmp_path / "state"
    assert 'data_dir = "/var/lib/pbem"' in text
    text = text.replace('data_dir = "/var/lib/pbem"', f"data_dir = {json.dumps(str(wanted))}")
    for change in filter(None, extra.splitlines()):
        old, new = change.split("=>")
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / "pbem.toml"
    path.write_text(text)
    return path


@pytest.fixture
def creds(tmp_path: Path) -> Path:
    d = tmp_path / "creds"
    d.mkdir()
    (d / "imap-password").write_text("imap-pw\n")
    (d / "smtp-password").write_text("smtp-pw\n")
    return d


def test_the_units_state_directory_wins_and_data_dir_stays_a_known_key(
    tmp_path: Path, creds: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21 item 1: under the unit ``$STATE_DIRECTORY`` is set; the example's ``[daemon]
    data_dir`` was then never read and refused as an unknown key (exit 78, the unit kept
    down). It is read, StateDirectory wins, and a disagreement is one warning line."""
    state = tmp_path / "var-lib-pbem"
    state.mkdir()
    monkeypatch.setenv("STATE_DIRECTORY", str(state))
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(creds))
    same = example_config(tmp_path, data_dir=state)
    cfg = load(same)
    assert (cfg.data_dir, cfg.notices, cfg.imap.password) == (state, (), "imap-pw")
    for verb in (("check-config", "--offline"), ("status",)):
        r = pbem_in_process(same, *verb)
        assert "unknown key" not in r.stderr and "data_dir" not in r.stdout, (verb, r)
    assert pbem_in_process(same, "check-config", "--offline").returncode == 0

    other = example_config(tmp_path)  # data_dir = <tmp>/state, not the unit's directory
    cfg = load(other)
    assert cfg.data_dir == state
    (notice,) = cfg.notices
    assert str(tmp_path / "state") in notice and str(state) in notice
    r = pbem_in_process(other, "check-config", "--offline")
    assert r.returncode == 0, r.stderr
    (line,) = [x for x in r.stdout.splitlines() if "daemon.data_dir" in x]
    assert line.startswith("warning: ") and "StateDirectory" in line


def test_check_config_offline_checks_the_file_alone_without_passwords(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21 item 3: outside the unit (no credentials, no password file) the documented
    config passes ``check-config --offline``; every value is still checked: a duration
    ``new-game`` would refuse, an option outside its choices, a type, a file named but
    missing, each on its line."""
    monkeypatch.delenv("CREDENTIALS_DIRECTORY", raising=False)
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    good = example_config(tmp_path)
    r = pbem_in_process(good, "check-config", "--offline")
    assert r.returncode == 0 and "configuration is valid" in r.stdout, r.stderr
    bad = example_config(
        tmp_path,
        extra='night_duration = "18h"=>night_duration = "18 hours"\n'
        'poll_interval = 60=>poll_interval = "often"\n'
        '# password_file = "/etc/pbem/imap.pass"=>password_file = "nowhere/imap.pass"\n'
        '# substitute_name = "newcomer"=>substitute_name = "someone"\n',
    )
    r = pbem_in_process(bad, "check-config", "--offline")
    assert r.returncode == 2
    problems = r.stderr.splitlines()[1:]
    assert len(problems) == 4, r.stderr
    for needle in (
        "night_duration: option 'night_duration': not a duration: '18 hours'",
        "imap.poll_interval: expected float, got 'often'",
        "imap.password_file: " + str(tmp_path / "nowhere" / "imap.pass") + ": no such file",
        "substitute_name",
    ):
        assert any(needle in p for p in problems), (needle, r.stderr)
    # the commands that need no password never look for the file either
    assert "password_file" not in pbem_in_process(bad, "status").stderr


def _admin_codes(out: str) -> list[str]:
    return re.findall(r"admin code for the game masters \(gm@example\.org\): (\w+)", out)


def test_new_game_and_open_game_give_the_game_masters_their_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21 item 6: ``[auth] admin_secret = true`` (the default) and no daemon-wide code:
    every desk command by mail was refused and nothing said how to get a code. ``new-game``
    and ``open-game`` now make and print one unasked; ``check-config`` warns while a game has
    none (or none exists at all), and is silent with a daemon-wide code."""
    monkeypatch.delenv("CREDENTIALS_DIRECTORY", raising=False)
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    cfg = example_config(tmp_path)
    r = pbem_in_process(cfg, "check-config", "--offline")
    assert "warning: auth.admin_secret is on" in r.stdout and "no game has one yet" in r.stdout
    (tmp_path / "state").mkdir()  # as the unit's StateDirectory= makes it (new-game makes none)
    players = [f"--player=P{i} <p{i}@example.org>" for i in range(8)]
    r = pbem_in_process(cfg, "new-game", "--id", "coded", *players)
    assert r.returncode == 0, r.stderr
    (code,) = _admin_codes(r.stdout)
    assert f"SECRET {code}" in r.stdout
    assert "warning" not in pbem_in_process(cfg, "check-config", "--offline").stdout
    r = pbem_in_process(cfg, "new-game", "--id", "bare", "--no-admin-secret", *players)
    assert r.returncode == 0 and not _admin_codes(r.stdout), r.stdout
    r = pbem_in_process(cfg, "check-config", "--offline")
    assert "games without one: bare" in r.stdout, r.stdout
    r = pbem_in_process(cfg, "open-game", "--id", "signup", "--seats", "8-10")
    assert r.returncode == 0 and len(_admin_codes(r.stdout)) == 1, (r.stdout, r.stderr)

    (tmp_path / "admin.code").write_text("a-daemon-wide-code\n")
    daemon_wide = example_config(
        tmp_path,
        extra='# admin_secret_file = "/etc/pbem/admin.code"=>admin_secret_file = "admin.code"\n',
    )
    r = pbem_in_process(daemon_wide, "new-game", "--id", "wide", *players)
    assert r.returncode == 0 and not _admin_codes(r.stdout), r.stdout
    r = pbem_in_process(daemon_wide, "check-config", "--offline")
    assert r.returncode == 0 and "warning" not in r.stdout, (r.stdout, r.stderr)
