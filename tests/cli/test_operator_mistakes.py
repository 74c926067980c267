"""An operator's mistake gets one line and status 2, never a traceback (issue 21, items 10, 11,
12 and 15): the config, the data directory, the output paths, game ids mail can tell apart, a
running game's spoilers, setup files and players' names."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.cli.main import main
from pbem.daemon.config import ConfigError, load
from pbem.mail.gameid import game_id_problem, longest_game_id

NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hugo"]
PLAYERS = [a for n in NAMES for a in ("--player", f"{n} <{n}@example.org>")]


def config(tmp_path: Path, extra: str = "", data: bool = True) -> Path:
    (tmp_path / "pass").write_text("x\n")
    cfg = tmp_path / "pbem.toml"
    cfg.write_text(
        f"""
[moderator]
address = "mj@example.org"
bounce = "mj+retours@example.org"
admins = ["admin@example.org"]

[imap]
host = "127.0.0.1"
user = "mj@example.org"
password_file = "{tmp_path / "pass"}"

[smtp]
host = "127.0.0.1"

[daemon]
data_dir = "{tmp_path / "data"}"
{extra}"""
    )
    if data:
        (tmp_path / "data").mkdir(exist_ok=True)
    return cfg


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str, needle: str) -> bool:
    return len(err.strip().splitlines()) == 1 and needle in err and "Traceback" not in err


def test_a_config_not_in_utf8_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = config(tmp_path)
    cfg.write_bytes(cfg.read_bytes().replace(b"[moderator]", b"# r\xe9glages\n[moderator]"))
    code, _out, err = run(capsys, "status", "-c", str(cfg))
    assert code == 2 and "pbem.toml: not UTF-8" in err and "Traceback" not in err, err


def test_option_values_new_game_refuses_are_refused_by_the_config(tmp_path: Path) -> None:
    cfg = config(
        tmp_path, '\n[games."lupus-in-tabula"]\nnight_duration = "18 hours"\nwolves_tie = "x"\n'
    )
    with pytest.raises(ConfigError) as caught:
        load(cfg, passwords=False)
    text = str(caught.value)
    assert 'games."lupus-in-tabula".night_duration' in text and "18 hours" in text
    assert 'games."lupus-in-tabula".wolves_tie' in text


def test_check_config_offline_rejects_a_bad_option_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = config(tmp_path, '\n[games."lupus-in-tabula"]\nnight_duration = "18 hours"\n')
    code, _out, err = run(capsys, "check-config", "--offline", "-c", str(cfg))
    assert code == 2 and "night_duration" in err, err


def test_check_config_offline_rejects_options_the_rules_refuse_together_amb_007(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """AMB-007, AMB-001: Dracula's ``early_close = true`` with ``private_orders_final = false``,
    each good alone, is refused by check-config, in the very words new-game's setup uses (it
    was only caught when a game was created or opened)."""
    import random
    from datetime import UTC, datetime

    from pbem.core.errors import SetupError
    from pbem.core.game import GameSpec, PlayerSpec
    from pbem.core.ids import PlayerId
    from pbem.games.dracula import Dracula

    options = {"early_close": True, "private_orders_final": False}
    players = tuple(PlayerSpec(PlayerId(f"p{i}"), f"p{i}@example.org", "en") for i in range(13))
    with pytest.raises(SetupError) as setup:
        Dracula().setup(GameSpec(players, options, "en"), datetime.now(UTC), random.Random(1))
    cfg = config(
        tmp_path, '\n[games."dracula"]\nearly_close = true\nprivate_orders_final = false\n'
    )
    code, _out, err = run(capsys, "check-config", "--offline", "-c", str(cfg))
    assert code == 2 and f'games."dracula": {setup.value}' in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "command",
    [["stats"], ["archive", "--index"], ["shunt", "list"], ["deadline", "list"]],
    ids=" ".join,
)
def test_a_missing_data_directory_is_an_error_not_an_empty_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    cfg = config(tmp_path, data=False)
    code, out, err = run(capsys, *command, "-c", str(cfg))
    assert code == 2 and out == "" and one_line(err, "does not exist"), (out, err)


def test_new_game_creates_no_data_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = config(tmp_path, data=False)
    code, _out, err = run(capsys, "new-game", "-c", str(cfg), "--id", "g1", *PLAYERS)
    assert code == 2 and one_line(err, "does not exist"), err
    assert not (tmp_path / "data").exists()
    code, _out, err = run(capsys, "open-game", "-c", str(cfg), "--id", "g2", "--seats", "8")
    assert code == 2 and one_line(err, "does not exist"), err
    assert not (tmp_path / "data").exists()


def test_archive_and_demo_onto_a_file_or_an_unwritable_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = config(tmp_path)
    assert run(capsys, "new-game", "-c", str(cfg), "--id", "g1", *PLAYERS)[0] == 0
    a_file = tmp_path / "taken"
    a_file.write_text("x")
    code, _out, err = run(capsys, "archive", "--index", "-c", str(cfg), "-o", str(a_file))
    assert code == 2 and one_line(err, "is a file"), err
    code, _out, err = run(capsys, "archive", "--index", "-c", str(cfg), "-o", f"{a_file}/sub")
    assert code == 2 and one_line(err, "cannot write into"), err
    code, _out, err = run(capsys, "demo", "--dir", str(a_file), "--offline")
    assert code == 2 and one_line(err, "--dir"), err


def test_archive_of_a_running_game_needs_spoilers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = config(tmp_path)
    assert run(capsys, "new-game", "-c", str(cfg), "--id", "g1", *PLAYERS)[0] == 0
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "archive", "g1", "-c", str(cfg))
    assert code == 2 and out == "" and one_line(err, "still running"), err
    assert not list(tmp_path.glob("g1.*"))  # no card, no salt in the working directory
    code, out, _err = run(capsys, "archive", "--index", "-c", str(cfg))
    assert code == 0 and "g1" not in (tmp_path / "index.html").read_text()
    assert not list(tmp_path.glob("g1.*"))
    code, out, _err = run(capsys, "archive", "g1", "--spoilers", "-c", str(cfg))
    assert code == 0 and (tmp_path / "g1.deal.json").exists()


def test_game_ids_mail_can_tell_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = config(tmp_path)
    assert run(capsys, "new-game", "-c", str(cfg), "--id", "village1", *PLAYERS)[0] == 0
    for gid, why in (
        ("Village1", "without regard to case"),
        ("retours", "taken"),  # the bounce address mj+retours@ would route to it
        ("Bounces", "reserved"),
        ("x" * 137, f"at most {longest_game_id('mj@example.org')}"),
        ("a..b", "single inner dots"),
    ):
        code, _out, err = run(capsys, "new-game", "-c", str(cfg), "--id", gid, *PLAYERS)
        assert code == 2 and one_line(err, why), (gid, err)
    assert sorted(p.name for p in (tmp_path / "data" / "games").iterdir()) == ["village1"]


def test_the_id_length_limit_is_the_address_s() -> None:
    assert longest_game_id("mj@example.org") == 61
    assert game_id_problem("x" * 61, "mj@example.org") is None
    assert "62 characters long; at most 61" in str(game_id_problem("x" * 62, "mj@example.org"))


def test_a_setup_file_s_errors_name_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = config(tmp_path)
    setup = tmp_path / "partie.json"
    for content, why in ((b"{not json", "not valid JSON"), (b"\xff{}", "not UTF-8")):
        setup.write_bytes(content)
        code, _out, err = run(capsys, "new-game", "-c", str(cfg), "--setup", str(setup))
        assert code == 2 and one_line(err, f"{setup}: {why}"), err
    code, _out, err = run(capsys, "new-game", "-c", str(cfg), "--setup", str(tmp_path / "no"))
    assert code == 2 and one_line(err, f"{tmp_path / 'no'}: cannot read"), err


LONG = "Maximilien-Alexandre Delacroix"  # 30 characters: the longest a sign-up accepts


@pytest.mark.parametrize("name", [LONG + "x", "Bo\rb", "Bo\nb"])
def test_player_names_get_the_sign_up_s_checks_by_player_and_setup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    cfg = config(tmp_path)
    by_option = [*PLAYERS[:-2], "--player", f"{name} <hugo@example.org>"]
    code, _out, err = run(capsys, "new-game", "-c", str(cfg), "--id", "g1", *by_option)
    assert code == 2 and one_line(err, "player name"), err
    players = [{"name": n, "email": f"{n}@example.org"} for n in NAMES[:-1]]
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps({"players": [*players, {"name": name, "email": "h@x.org"}]}))
    code, _out, err = run(capsys, "new-game", "-c", str(cfg), "--id", "g1", "--setup", str(setup))
    assert code == 2 and one_line(err, "player name"), err
    assert not (tmp_path / "data" / "games" / "g1").exists()


def test_the_longest_sign_up_name_is_a_good_setup_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = config(tmp_path)
    by_option = [*PLAYERS[:-2], "--player", f"{LONG} <hugo@example.org>"]
    assert run(capsys, "new-game", "-c", str(cfg), "--id", "g1", *by_option)[0] == 0


@pytest.mark.parametrize(
    ("section", "key"),
    [("moderator", "address"), ("imap", "host"), ("smtp", "host")],
)
@pytest.mark.parametrize("how", ["left out", "empty"])
def test_a_required_key_left_out_or_empty_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], section: str, key: str, how: str
) -> None:
    """The sysadmin's first day: a key the daemon cannot work without was taken as "" and the
    file said valid; the logins then failed far from the cause."""
    cfg = config(tmp_path)
    lines = cfg.read_text().splitlines()
    start = lines.index(f"[{section}]")
    at = next(i for i in range(start, len(lines)) if lines[i].startswith(f"{key} ="))
    lines[at] = f'{key} = ""' if how == "empty" else ""
    cfg.write_text("\n".join(lines) + "\n")
    code, out, err = run(capsys, "check-config", "--offline", "-c", str(cfg))
    assert code == 2 and f"{section}.{key}: required" in err and "Traceback" not in err, (out, err)


def _forked(argv: list[str], nobody: bool = True) -> tuple[int, str]:
    """``main(argv)`` in a forked child, as nobody (the service user of a data directory left
    root's) unless told otherwise, with what it printed on standard error (``serve`` sets up
    the process's logging: never in the test's own process)."""
    # what the child imports is imported before its uid changes: the interpreter's own files
    # may be out of nobody's reach (a pyenv under /root)
    import asyncio  # noqa: F401

    import pbem.cli.server
    import pbem.daemon.logsetup
    import pbem.daemon.serve  # noqa: F401

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child)
        code = 70
        try:
            sys.stderr = os.fdopen(write, "w")
            if nobody:
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
            code = main(argv)
        finally:
            sys.stderr.flush()
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as f:
        err = f.read()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), err


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A directory nobody may enter (pytest's own are root's, mode 700)."""
    import shutil
    import tempfile

    path = Path(tempfile.mkdtemp(prefix="pbem-nobody-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path)


def test_serve_on_a_data_directory_it_cannot_write_is_one_line_and_78(open_dir: Path) -> None:
    """The sysadmin's first day: the state directory made by hand as root (mode 755), or
    restored from a backup without the chown, gave the service a traceback."""
    if os.geteuid() != 0:
        pytest.skip("switches to the nobody uid (CI runs as root)")
    cfg = config(open_dir)
    cfg.chmod(0o644)
    (open_dir / "pass").chmod(0o644)
    (open_dir / "data").chmod(0o755)
    code, err = _forked(["serve", "-c", str(cfg)])
    assert code == 78 and "Traceback" not in err, err
    assert f"data directory {open_dir / 'data'}: cannot write in it as uid 65534" in err, err
    assert "chown -R pbem:pbem-admin" in err, err
    (open_dir / "data").rmdir()
    code, err = _forked(["serve", "-c", str(cfg)])
    assert code == 78 and "Traceback" not in err, err
    assert f"data directory {open_dir / 'data'}: cannot create it" in err, err


def test_serve_on_a_data_directory_that_is_a_file_is_one_line_and_78(tmp_path: Path) -> None:
    cfg = config(tmp_path, data=False)
    (tmp_path / "data").write_text("a file where the state should be\n")
    code, err = _forked(["serve", "-c", str(cfg)], nobody=False)
    assert code == 78 and "Traceback" not in err, err
    assert f"data directory {tmp_path / 'data'}: not a directory" in err, err


def test_check_config_names_a_data_directory_its_caller_cannot_write(open_dir: Path) -> None:
    """An operator's commands (new-game, the requests) write there: check-config says so
    before they fail, offline too (the state directory need not exist yet: systemd makes it)."""
    if os.geteuid() != 0:
        pytest.skip("switches to the nobody uid (CI runs as root)")
    cfg = config(open_dir)
    cfg.chmod(0o644)
    (open_dir / "data").chmod(0o755)
    code, err = _forked(["check-config", "--offline", "-c", str(cfg)])
    assert code == 1 and "Traceback" not in err, err
    assert f"data directory {open_dir / 'data'}: cannot write in it as uid 65534" in err, err


def test_check_config_outside_the_unit_says_how_to_check_with_the_passwords(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The guide's config has no password_file (systemd's credentials hold them): a plain
    ``pbem check-config`` in a root shell, as the sysadmin types it, found no password and
    did not say what to type instead."""
    monkeypatch.delenv("CREDENTIALS_DIRECTORY", raising=False)
    cfg = config(tmp_path)
    cfg.write_text(cfg.read_text().replace(f'password_file = "{tmp_path / "pass"}"\n', ""))
    code, _out, err = run(capsys, "check-config", "-c", str(cfg))
    assert code == 2 and "imap: no password source" in err, err
    hint = err.strip().splitlines()[-1]
    assert "pbem check-config --offline" in hint and "systemd-run" in hint, err
    assert "docs/install-debian.md" in hint, err


def test_the_sections_with_no_password_source_are_named_on_the_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """check-config's hint above follows ``ConfigError.unsourced``, not the message's words
    (which may be reworded); a config whose password sources are all there has none."""
    from pbem.daemon.config import ConfigError, load

    monkeypatch.delenv("CREDENTIALS_DIRECTORY", raising=False)
    cfg = config(tmp_path)
    cfg.write_text(cfg.read_text().replace(f'password_file = "{tmp_path / "pass"}"\n', ""))
    with pytest.raises(ConfigError) as raised:
        load(cfg)
    assert "imap" in raised.value.unsourced
    assert ConfigError(["x: wrong"]).unsourced == ()


def test_an_empty_password_file_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``install -m 600 /dev/null imap.pass && editor imap.pass`` with the editor quit unsaved:
    the login was refused by the server, far from the cause."""
    cfg = config(tmp_path)
    (tmp_path / "pass").write_text("\n")
    code, _out, err = run(capsys, "check-config", "-c", str(cfg))
    assert code == 2 and f"imap: the password file {tmp_path / 'pass'} is empty" in err, err


def test_a_password_file_the_service_cannot_read_says_how_to_hand_it_over(open_dir: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("switches to the nobody uid (CI runs as root)")
    cfg = config(open_dir)
    cfg.chmod(0o644)
    (open_dir / "pass").chmod(0o600)  # root's, as the guide makes it
    code, err = _forked(["check-config", "-c", str(cfg)])
    assert code == 2 and "Traceback" not in err, err
    assert f"imap: cannot read password from {open_dir / 'pass'}: Permission denied" in err
    assert "LoadCredential=imap-password:" in err, err


@pytest.mark.parametrize(
    ("game", "options", "words"),
    [
        ("lupus-in-tabula", 'specials = ["seer"]\n', "needs deck_mode = custom (LUP-D01)"),
        (
            "loup-garou",
            'election_concurrent_with_night1 = true\nmayor_election_tie = "runoff"\n',
            "a runoff needs its own window",
        ),
    ],
)
def test_check_config_offline_rejects_the_other_games_option_pairs_lup_d01_lg_d05(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str, options: str, words: str
) -> None:
    """LUP-D01 (``specials`` with the standard deck), LG-D02 with LG-D05 (a runoff in an
    election held during Night 1): refused by check-config with setup's words."""
    cfg = config(tmp_path, f'\n[games."{game}"]\n{options}')
    code, _out, err = run(capsys, "check-config", "--offline", "-c", str(cfg))
    assert code == 2 and f'games."{game}": ' in err and words in err, err
