"""The command line walked as a game master reads docs/season.md and as a sysadmin pipes it:
what the runbook sends works, and every mistake is one line on standard error with a non-zero
status, never a traceback nor a message on standard output."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest

from tests.cli.test_operator_mistakes import PLAYERS, config, one_line, run

ROOT = Path(__file__).resolve().parents[2]


def _store_a_finished_game(data: Path) -> None:
    """A whole Lupus bot game, stored as the daemon stores it, under the id ``done``."""
    from pbem.adapters.store import GameStore
    from tests.archive.bot_games import whole_game

    done = whole_game("lupus-in-tabula", "fr")
    setup = {
        "game": done.setup.game,
        "game_id": "done",
        "seed": done.setup.seed,
        "deal_salt": done.setup.deal_salt,
        "players": [{"name": p.name, "email": p.email} for p in done.setup.players],
    }
    events = [done.rules.codec.encode(e) for e in done.events]
    GameStore.create(data, "done", setup, events, [])


def _open_village7(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    cfg = config(tmp_path)
    code, _out, err = run(capsys, "open-game", "-c", str(cfg), "--id", "village7", "--seats", "8")
    assert code == 0, err
    return cfg


def test_the_runbook_s_commands_before_the_start_are_queued(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/season.md's `pbem admin village7 START` (and CANCEL) were refused by the command
    line as unknown: it knew the desk's commands only, not the lobby's."""
    cfg = _open_village7(tmp_path, capsys)
    season = (ROOT / "docs" / "season.md").read_text(encoding="utf-8")
    section = season.split("## Open sign-ups", 1)[1].split("\n## ", 1)[0]
    sent = re.findall(r"`pbem admin village7 ([^`]+)`", section)
    assert {"EXTEND 24h", "START", "CANCEL"} <= set(sent), sent
    for words in [*sent, "DEMARRER", "ANNULER PARTIE"]:
        code, out, err = run(capsys, "admin", "-c", str(cfg), "village7", words)
        assert code == 0 and f"queued for village7: {words}" in out, (words, err)


def test_a_desk_command_before_the_start_names_the_lobby_s_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = _open_village7(tmp_path, capsys)
    for words in ("PAUSE", "ANNULER"):  # ANNULER alone is a player's; ANNULER PARTIE cancels
        code, out, err = run(capsys, "admin", "-c", str(cfg), "village7", words)
        assert code == 2 and out == "" and one_line(err, "is taking sign-ups"), err
        assert "START, CANCEL" in err, err
    assert not list((tmp_path / "data").glob("admin/*.json"))


def test_archive_and_export_of_a_game_taking_sign_ups_say_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """They said « no game 'village7' » of a game `pbem status` lists."""
    cfg = _open_village7(tmp_path, capsys)
    for verb in ("archive", "export"):
        code, out, err = run(capsys, verb, "village7", "-c", str(cfg))
        assert code == 2 and out == "" and one_line(err, "still taking sign-ups"), err
        code, out, err = run(capsys, verb, "nope", "-c", str(cfg))
        assert code == 2 and out == "" and one_line(err, f"no game 'nope' in {tmp_path}"), err


def test_export_into_a_folder_or_a_missing_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`pbem export GAME -o DIR` (as `pbem archive -o DIR`) and a mistyped folder were
    tracebacks; a running game's refusal went to standard output."""

    cfg = config(tmp_path)
    assert run(capsys, "new-game", "-c", str(cfg), "--id", "g1", *PLAYERS)[0] == 0
    code, out, err = run(capsys, "export", "g1", "-c", str(cfg), "-o", str(tmp_path))
    assert code == 2 and out == "" and one_line(err, "is not over"), (out, err)
    _store_a_finished_game(tmp_path / "data")
    code, out, err = run(capsys, "export", "done", "-c", str(cfg), "-o", str(tmp_path))
    assert code == 0 and out.strip() == str(tmp_path / "done.record.json"), err
    missing = tmp_path / "nowhere" / "done.json"
    code, out, err = run(capsys, "export", "done", "-c", str(cfg), "-o", str(missing))
    assert code == 2 and out == "" and one_line(err, f"cannot write {missing}"), err


def test_balance_with_a_negative_jobs_count_is_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "balance", "lupus-in-tabula", "--games", "2", "--jobs", "-2")
    assert code == 2 and out == "" and one_line(err, "--jobs -2"), err


def _beat(cfg: Path, **record: object) -> None:
    """The daemon's heartbeat as `pbem serve` writes it (pbem.daemon.heartbeat)."""
    from datetime import UTC, datetime

    from pbem.daemon import heartbeat

    heartbeat.write(cfg.parent / "data", {"at": datetime.now(UTC).isoformat(), **record})


def test_a_request_to_a_daemon_not_running_says_so_and_a_wait_is_refused_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`pbem admin GAME PAUSE` with the daemon stopped said « the running daemon applies it »,
    and `--wait` waited out its whole minute before saying « is it running? »."""
    cfg = config(tmp_path)
    assert run(capsys, "new-game", "-c", str(cfg), "--id", "g1", *PLAYERS)[0] == 0
    spool = tmp_path / "data" / "admin"
    for record, state in (({}, "not running (never started"), ({"stopped": True}, "stopped")):
        if record:
            _beat(cfg, pid=1, **record)
        queued = len(list(spool.glob("*.json")))
        code, out, err = run(capsys, "admin", "-c", str(cfg), "g1", "PAUSE", "--wait")
        assert code == 2 and out == "" and one_line(err, f"the daemon is {state}"), err
        assert "leave out --wait" in err and len(list(spool.glob("*.json"))) == queued
        code, out, err = run(capsys, "seat", "replace", "-c", str(cfg), "g1", "alice", "x@y.org")
        assert code == 0 and "the daemon, once started, applies it" in out, out
        assert one_line(err, f"the daemon is {state}") and "start it (systemctl start" in err
    _beat(cfg, pid=1)
    code, out, err = run(capsys, "reachable", "-c", str(cfg), "g1", "alice")
    assert code == 0 and "the running daemon picks it up" in out and err == "", err


def test_open_game_tells_the_sign_up_deadline_in_the_game_s_time_zone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It printed « sign-ups close at 2027-06-01T18:00:00+00:00 » for a 20:00 in Paris."""
    import datetime as dt

    cfg = config(tmp_path)
    cfg.write_text(cfg.read_text().replace("[imap]", 'timezone = "Europe/Paris"\n\n[imap]'))
    argv = ["open-game", "-c", str(cfg), "--id", "v9", "--seats", "8"]
    today = dt.date.today()
    june = dt.date(today.year + (today >= dt.date(today.year, 5, 1)), 6, 1)  # summer time
    code, out, err = run(capsys, *argv, "--deadline", f"{june.isoformat()}T20:00")
    assert code == 0, err
    assert f"sign-ups close {june:%a %d %b %Y} 20:00 CEST (Europe/Paris)\n" in out, out


def test_seat_replace_before_the_start_is_refused_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It was queued, for the lobby to refuse by mail: nobody holds a seat before the start."""
    cfg = _open_village7(tmp_path, capsys)
    code, out, err = run(capsys, "seat", "replace", "-c", str(cfg), "village7", "Bob", "z@x.org")
    assert code == 2 and out == "" and one_line(err, "village7 is taking sign-ups"), err
    assert "INSCRIPTION/JOIN" in err and not list((tmp_path / "data").glob("admin/*.json"))


@pytest.mark.parametrize(
    ("argv", "named"),
    [([], "{simulate,demo,"), (["shunt"], "{list,show,retry}"), (["seat"], "{replace}")],
    ids=["pbem", "shunt", "seat"],
)
def test_a_missing_sub_verb_is_named_by_its_choices(
    capsys: pytest.CaptureFixture[str], argv: list[str], named: str
) -> None:
    """It said « required: shunt_command », the parser's own name for it."""
    from pbem.cli.main import main

    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and f"the following arguments are required: {named}" in err
    assert "_command" not in err and "required: command" not in err, err


def test_verify_against_posts_holding_no_fingerprint_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`pbem verify GAME.record.json --posts liste.mbox` with a mailbox of other mail (or the
    wrong file) printed every OK and status 0, the posts' check silently skipped."""
    from pbem.record.export import record_json
    from tests.archive.bot_games import whole_game

    record = tmp_path / "done.record.json"
    record.write_text(record_json(whole_game("lupus-in-tabula", "fr")), encoding="utf-8")
    assert run(capsys, "verify", str(record))[0] == 0
    other = tmp_path / "other.mbox"
    other.write_text("From a@b Mon Dec  7 10:00:00 2026\nSubject: hi\n\nno fingerprint\n")
    code, out, err = run(capsys, "verify", str(record), "--posts", str(other))
    assert code == 2 and out == "" and one_line(err, f"{other}: no fingerprint in it"), err
    code, out, err = run(capsys, "verify", str(record), "--posts", str(tmp_path))
    assert code == 2 and one_line(err, f"cannot read {tmp_path}: Is a directory"), err


def test_reachable_names_the_seat_s_holder_as_the_daemon_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """After `pbem seat replace g2 alice zoe@... --name Zoé`, `pbem reachable g2 Zoé` (the
    name `pbem status` shows) was refused: only the setup's names were known."""
    from pbem.adapters.store import GameStore
    from pbem.core.events import Substituted
    from pbem.table import Table

    cfg = config(tmp_path)
    assert run(capsys, "new-game", "-c", str(cfg), "--id", "g1", *PLAYERS)[0] == 0
    store = GameStore(tmp_path / "data" / "games" / "g1", readonly=True)
    setup = {**store.setup, "game_id": "g2"}
    table = Table.load(setup, store.events())
    swap = Substituted(
        table.roster.holders[0].seat, "alice", "alice@example.org", "Zoé", "zoe@example.org", "fr"
    )
    events = [*store.events(), table.rules.codec.encode(swap)]
    GameStore.create(tmp_path / "data", "g2", setup, events, [])
    for name in ("zoe", "alice"):  # the holder's name, or the seat's own (its id)
        code, out, err = run(capsys, "reachable", "-c", str(cfg), "g2", name)
        assert code == 0 and out.startswith("Zoé (seat alice) in g2 (0 hard bounce"), err
    requests = [p.read_text() for p in (tmp_path / "data" / "reachable").glob("*")]
    assert len(requests) == 2 and all('"alice"' in r for r in requests), requests
    code, out, err = run(capsys, "reachable", "-c", str(cfg), "g2", "Zed")
    assert code == 2 and out == "" and one_line(err, "no player 'Zed' in game g2"), err
    assert "(players: Zoé, bob" in err, err


def test_the_offline_demo_says_its_dir_stays_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`pbem demo --offline --dir DIR` (to keep the mailboxes, as --help says) left DIR empty
    without a word."""
    argv = ["demo", "--offline", "--seed", "1", "--dir", str(tmp_path / "kept")]
    code, out, err = run(capsys, *argv)
    assert code == 0 and out and one_line(err, "left empty: the offline demo writes no"), err


def test_a_duration_option_without_its_unit_is_refused_with_the_units(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--option night_duration=18` made an 18-second night (a bare number is seconds): the
    game was over before its first mail arrived."""
    cfg = config(tmp_path)
    for verb, rest in (("new-game", PLAYERS), ("open-game", ["--seats", "8"])):
        argv = [verb, "-c", str(cfg), "--id", "g1", *rest, "--option", "night_duration=18"]
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "" and one_line(err, "write 18h for hours"), err
    assert not (tmp_path / "data" / "games").exists()
    argv = ["new-game", "-c", str(cfg), "--id", "g1", *PLAYERS, "--option", "night_duration=18s"]
    assert run(capsys, *argv)[0] == 0


def test_check_config_warns_of_a_duration_default_without_its_unit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`night_duration = 18` in the config's [games."..."] table: every new game got an
    18-second night, and check-config said the file was valid."""
    cfg = config(
        tmp_path, '\n[games."lupus-in-tabula"]\nnight_duration = 18\nround1_duration = 7200\n'
    )
    code, out, _err = run(capsys, "check-config", "--offline", "-c", str(cfg))
    assert code == 0 and 'warning: games."lupus-in-tabula".night_duration = 18: a bare' in out
    assert "round1_duration" not in out, out


def test_open_game_refuses_a_list_that_is_no_address(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--list village` (the list's name, not its address) opened the game: every public
    post would have gone to an address no server takes."""
    cfg = config(tmp_path)
    argv = ["open-game", "-c", str(cfg), "--id", "g1", "--seats", "8", "--list", "village"]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and one_line(err, "--list 'village': not a mail address"), err
    assert not (tmp_path / "data" / "games").exists()


@pytest.mark.parametrize("deadline", ["9999-12-31", "2099-01-01T20:00"])
def test_open_game_refuses_a_sign_up_deadline_years_ahead(
    deadline: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A year's digits mistyped (9999, 2099) opened a lobby that would wait for ever, its
    sign-up post promising that date; a deadline more than a year ahead is refused."""
    cfg = config(tmp_path)
    argv = ["open-game", "-c", str(cfg), "--id", "g1", "--seats", "8", "--deadline", deadline]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and one_line(err, "more than a year ahead"), err
    assert not (tmp_path / "data" / "games").exists()
    code, _out, err = run(capsys, *argv[:-1], "300d")
    assert code == 0, err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_archive_index_shows_its_progress_on_a_terminal_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`pbem archive --index` over a season's games wrote every archive without a sign of
    life (`pbem stats` over the same games shows a bar); piped, it still prints the index
    alone."""

    _store_a_finished_game(tmp_path / "data")
    argv = ["archive", "--index", "--data-dir", str(tmp_path / "data"), "-o", str(tmp_path)]
    code, out, err = run(capsys, *argv)
    assert code == 0 and out == f"{tmp_path / 'index.html'}\n" and err == "", err
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert run(capsys, *argv)[0] == 0
    assert "0/1 [" in terminal.getvalue() and "archive/s" in terminal.getvalue()


@pytest.mark.parametrize(
    "verb", [["status"], ["check-config", "--offline"], ["stats"]], ids=" ".join
)
def test_a_missing_config_is_one_line_saying_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], verb: list[str]
) -> None:
    """A first `pbem status` before the install (or with -c forgotten) printed « invalid
    configuration: » then « /etc/pbem/pbem.toml: cannot read: No such file or directory »."""
    code, out, err = run(capsys, *verb, "-c", str(tmp_path / "pbem.toml"))
    assert code == 2 and out == "" and one_line(err, "pbem.toml: no such file: name the"), err
    assert "pbem install-files DIR" in err, err


def test_serve_without_its_config_is_one_line_and_78(tmp_path: Path) -> None:
    from tests.cli.test_operator_mistakes import _forked

    code, err = _forked(["serve", "-c", str(tmp_path / "pbem.toml")], nobody=False)
    assert code == 78 and one_line(err, "pbem.toml: no such file"), err


@pytest.mark.parametrize("value", ["-5", "0", "nan", "soon"])
def test_a_timeout_is_a_positive_number_of_seconds(
    capsys: pytest.CaptureFixture[str], value: str
) -> None:
    """`--wait --timeout -5` (or nan) was taken, waited for nothing and said no answer came."""
    from pbem.cli.main import main

    with pytest.raises(SystemExit) as stop:
        main(["admin", "g1", "PAUSE", "--wait", "--timeout", value])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "expected a number of seconds above 0" in err, err


def test_a_command_a_finished_game_refuses_is_refused_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`pbem admin GAME PAUSE` on a game over was queued; the desk's « The game is over. » went
    by mail, and only with --wait did the shell hear of it. STATUS and ROLES are still asked."""

    cfg = config(tmp_path)
    _store_a_finished_game(tmp_path / "data")
    for words in ("PAUSE", "EXTEND 24h", "END NONE"):
        code, out, err = run(capsys, "admin", "-c", str(cfg), "done", words)
        word = words.split()[0]
        assert code == 2 and out == "" and one_line(err, f"done is over: {word} needs a"), err
    code, out, _err = run(capsys, "admin", "-c", str(cfg), "done", "STATUS")
    assert code == 0 and "queued for done: STATUS" in out


def test_the_verbs_refused_after_the_end_are_the_desk_s() -> None:
    """pbem admin's list is the desk modules that call ``running(table)``."""
    from pbem.cli.requests import running_verbs

    desk = ROOT / "pbem" / "desk"
    calling = {p.stem for p in desk.glob("*.py") if "running(table)" in p.read_text()}
    assert {f"desk.{name}" for name in calling} == running_verbs()
