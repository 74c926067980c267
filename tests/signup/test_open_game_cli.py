"""`pbem open-game` and `pbem new-game` from the shell: a game opened for sign-ups is written
with its announcement queued, bad input is one clear line and exit status 2, and `new-game
--player` takes a name with a space (LUP-D28 as amended by issue 13)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.adapters.store import GameStore
from pbem.cli.main import main
from tests.cli.test_new_game_input import config


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main([*args[:1], "-c", str(config(tmp_path)), *args[1:]])
    out, err = capsys.readouterr()
    return rc, out, err


def test_open_game_writes_the_lobby_and_queues_the_announcement(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rc, out, err = _run(
        tmp_path,
        capsys,
        "open-game",
        "--id",
        "v2",
        "--seats",
        "8-12",
        "--deadline",
        "3d",
        "--list",
        "v2@lists.example.org",
    )
    assert rc == 0, err
    assert "opened for sign-ups (lupus-in-tabula, 8-12 seats)" in out
    assert "counts the rules accept: 8, 9, 10, 11, 12" in out
    # the shipped odds table's figures for each proposed deck, with their sample size
    assert "  at 8: simulated werewolves " in out and "random-bot games)" in out
    store = GameStore(tmp_path / "data" / "games" / "v2", readonly=True)
    assert store.setup["signup"]["seats"] == [8, 12]
    assert store.setup["admins"] == ["admin@example.org"]  # [moderator] admins by default
    assert "players" not in store.setup and store.setup["deal_salt"]
    (row,) = store.outbox()
    assert row["kind"] == "public" and row["rcpts"] == ["v2@lists.example.org"]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--game", "loup-garou", "--seats", "10"], "LG-002"),
        (["--seats", "8-x"], "--seats"),
        (["--seats", "8", "--no-start-when-full"], "deadline or to start when full"),
        (["--seats", "8", "--deadline", "2001-01-01T00:00"], "has passed"),
        (["--seats", "8", "--deadline", "soon"], "--deadline"),
    ],
)
def test_open_game_refuses_bad_input_in_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    error: str,
) -> None:
    rc, _out, err = _run(tmp_path, capsys, "open-game", "--id", "v3", *args)
    assert rc == 2 and error in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "data" / "games" / "v3").exists()


def test_new_game_takes_a_player_name_with_a_space_lup_d28(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    players = ["--player=Jean Pierre <jp@example.org>"]
    players += [f"--player=P{i} <p{i}@example.org>" for i in range(7)]
    rc, _out, err = _run(tmp_path, capsys, "new-game", "--id", "g1", *players)
    assert rc == 0, err
    store = GameStore(tmp_path / "data" / "games" / "g1", readonly=True)
    assert store.setup["players"][0]["name"] == "Jean Pierre"
