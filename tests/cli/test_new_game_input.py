"""``pbem new-game`` on bad input: one clear line on stderr, exit status 2, no game created
(issue 10, items 12, 18 and 19). The checks are the engine's (pbem.table.setup_check), so
``pbem simulate`` refuses the same setups (tests/test_simulate.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pbem.cli.main import main

NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hugo"]


def config(tmp_path: Path) -> Path:
    (tmp_path / "pass").write_text("x\n")
    cfg = tmp_path / "pbem.toml"
    cfg.write_text(
        f"""
[moderator]
address = "mj@example.org"
admins = ["admin@example.org"]
language = "fr"
timezone = "Europe/Paris"

[imap]
host = "127.0.0.1"
user = "mj@example.org"
password_file = "{tmp_path / "pass"}"

[smtp]
host = "127.0.0.1"

[daemon]
data_dir = "{tmp_path / "data"}"
"""
    )
    (tmp_path / "data").mkdir(exist_ok=True)
    return cfg


def new_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str, setup: Any = None
) -> tuple[int, str, str]:
    argv = ["new-game", "-c", str(config(tmp_path)), "--id", "g1", *args]
    if setup is not None:
        (tmp_path / "setup.json").write_text(json.dumps(setup))
        argv += ["--setup", str(tmp_path / "setup.json")]
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def players(**last: str) -> list[dict[str, str]]:
    return [{"name": n, "email": f"{n}@example.org"} for n in NAMES[:7]] + [last]


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        ({"players": players(name="hugo", email="")}, (), "'' is not a mail address"),
        ({"players": players(name="hugo", email="hugo")}, (), "'hugo' is not a mail address"),
        (
            {"players": players(name="hugo", email="hugo@example.org\r\nBcc: x@example.org")},
            (),
            "is not a mail address",
        ),
        ({"players": players(name="[Kira]", email="k@example.org")}, (), "write it 'Kira'"),
        ({"players": players(name="Fin", email="fin@example.org")}, (), "ends the text"),
        (
            {"players": players(name="hugo", email="hugo@example.org")},
            ("--option", "night_duration=99999999999d"),
            "longer than 365 days",
        ),
        (
            {"players": players(name="hugo", email="hugo@example.org"), "timezone": "Nowhere/X"},
            (),
            "unknown timezone 'Nowhere/X'",
        ),
        (
            {"players": players(name="hugo", email="hugo@example.org"), "options": [1]},
            (),
            "'options' must be an object",
        ),
    ],
)
def test_new_game_refuses_bad_input_in_one_line_with_status_2(
    setup: dict[str, Any],
    args: tuple[str, ...],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = new_game(tmp_path, capsys, *args, setup=setup)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err
    assert not (tmp_path / "data" / "games" / "g1").exists()


def test_new_game_with_good_input_still_creates_the_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _err = new_game(
        tmp_path, capsys, *(a for n in NAMES for a in ("--player", f"{n} <{n}@example.org>"))
    )
    assert code == 0 and "game g1 created" in out
