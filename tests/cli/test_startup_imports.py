"""Start-up cost: a ``pbem`` command imports the games it deals with, not all four, and the
operator's commands leave the daemon's libraries alone.

Every test starts a fresh Python (what is imported is a property of a whole process), runs the
command in it as the ``pbem`` entry point does, and lists ``sys.modules`` at the end.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pbem.cli.main import main
from pbem.games import GAME_IDS, GAME_MODULES, GAMES, game_class

ROOT = Path(__file__).resolve().parents[2]

GAME_PACKAGES = {module for module, _ in GAME_MODULES.values()}

DAEMON_ONLY = ("imapclient", "aiosmtplib", "apscheduler", "dkim", "dns", "pbem.daemon.serve")
"""Imported by ``pbem serve`` (and ``check-config``): an operator's command needs none of them."""

SEATS = {"lupus-in-tabula": 9, "loup-garou": 16, "dracula": 13}
"""Players of a game of each game these tests make (Loup-Garou and Dracula have a fixed count)."""

COMMAND = """
import json, sys
from pbem.cli.main import main
rc = main(sys.argv[1:])
print(json.dumps({"rc": rc, "modules": sorted(sys.modules)}))
"""

SERVE = """
import asyncio, json, sys
from pbem.adapters.maildir import MaildirMailbox
from pbem.daemon.config import load
from pbem.daemon.serve import serve

cfg = load(sys.argv[1], passwords=True)
seen = {}

def opened(svc):
    seen["games"] = sorted(svc.games)
    seen["modules"] = sorted(sys.modules)
    svc.request_stop()

rc = asyncio.run(serve(cfg, mailbox=lambda: MaildirMailbox(sys.argv[2], cfg.imap), on_service=opened))
print(json.dumps({"rc": rc, **seen}))
"""


def write_config(tmp: Path) -> Path:
    """A config whose servers are never reached (port 1): these commands do not log in."""
    (tmp / "imap.pass").write_text("x\n")
    cfg = tmp / "pbem.toml"
    cfg.write_text(
        f"""
[moderator]
address = "moderator@example.test"
admins = ["gm@example.test"]
language = "en"
timezone = "UTC"

[list]
address = "village@lists.example.test"

[imap]
host = "127.0.0.1"
port = 1
tls = "none"
user = "moderator@example.test"
password_file = "imap.pass"

[smtp]
host = "127.0.0.1"
port = 1
tls = "none"

[daemon]
data_dir = "{tmp / "data"}"
"""
    )
    (tmp / "data").mkdir(exist_ok=True)
    return cfg


def player_args(game: str) -> list[str]:
    """``--player`` options for a game of ``game``."""
    return [a for n in range(SEATS[game]) for a in ("--player", f"P{n} <p{n}@example.test>")]


def new_game(cfg: Path, game: str, game_id: str) -> None:
    """A game in the config's data directory, made in this process."""
    args = ["-c", str(cfg), "new-game", "--game", game, "--id", game_id, "--seed", "1"]
    assert main([*args, *player_args(game)]) == 0


def run(code: str, *args: str) -> dict[str, object]:
    """``code`` in a fresh Python; the JSON it prints last."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


def games_in(modules: object) -> set[str]:
    assert isinstance(modules, list)
    return GAME_PACKAGES & set(modules)


def daemon_libraries_in(modules: object) -> list[str]:
    assert isinstance(modules, list)
    return [m for m in modules if m.split(".")[0] in DAEMON_ONLY or m in DAEMON_ONLY]


def test_the_registry_names_each_game_by_its_id() -> None:
    assert [game_class(game_id).id for game_id in GAME_IDS] == list(GAME_IDS)
    assert tuple(g.id for g in GAMES) == GAME_IDS


def test_help_imports_no_game() -> None:
    result = run(
        "import json, sys\nfrom pbem.cli.main import build_parser\nbuild_parser()\n"
        "print(json.dumps({'modules': sorted(sys.modules)}))"
    )
    assert games_in(result["modules"]) == set()


def test_new_game_imports_its_game_only(tmp_path: Path) -> None:
    cfg = write_config(tmp_path)
    game = ["--game", "lupus-in-tabula", *player_args("lupus-in-tabula")]
    result = run(COMMAND, "-c", str(cfg), "new-game", *game)
    assert result["rc"] == 0
    assert games_in(result["modules"]) == {"pbem.games.lupus"}
    assert daemon_libraries_in(result["modules"]) == []


def test_status_imports_the_games_it_shows_only(tmp_path: Path) -> None:
    cfg = write_config(tmp_path)
    new_game(cfg, "loup-garou", "g1")
    result = run(COMMAND, "-c", str(cfg), "status", "--json")
    assert result["rc"] == 3  # never started: no data
    assert games_in(result["modules"]) == {"pbem.games.loupgarou"}
    assert daemon_libraries_in(result["modules"]) == []


@pytest.mark.parametrize("command", [["check-config", "--offline"], ["shunt", "list"]])
def test_commands_on_the_config_alone_import_no_game_nor_template(
    tmp_path: Path, command: list[str]
) -> None:
    cfg = write_config(tmp_path)
    result = run(COMMAND, "-c", str(cfg), *command)
    assert result["rc"] == 0
    assert games_in(result["modules"]) == set()
    assert daemon_libraries_in(result["modules"]) == []
    assert [m for m in result["modules"] if m.split(".")[0] == "jinja2"] == []


def test_the_daemon_imports_the_games_of_its_data_directory_only(tmp_path: Path) -> None:
    cfg = write_config(tmp_path)
    new_game(cfg, "dracula", "g1")
    maildir = tmp_path / "Maildir"
    for sub in ("new", "cur", "tmp"):
        (maildir / sub).mkdir(parents=True)
    result = run(SERVE, str(cfg), str(maildir))
    assert result["rc"] == 0
    assert result["games"] == ["g1"]
    assert games_in(result["modules"]) == {"pbem.games.dracula"}
