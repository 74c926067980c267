"""Requests to the daemon are checked when they are queued (issue 21, item 9): what the game as
stored already tells is refused at once, one line and status 2, with nothing queued."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli_in_process import pbem_in_process

PLAYERS = [f"--player=P{i} <p{i}@example.org>" for i in range(8)]


@pytest.fixture
def cfg(tmp_path: Path) -> Path:
    cfg = tmp_path / "pbem.toml"
    cfg.write_text(
        '[moderator]\naddress = "mj@example.org"\nadmins = ["gm@example.org"]\n'
        '[imap]\nhost = "127.0.0.1"\nuser = "mj"\n[smtp]\nhost = "127.0.0.1"\n'
        f'[daemon]\ndata_dir = "{tmp_path / "data"}"\n'
    )
    (tmp_path / "data").mkdir()
    assert pbem_in_process(cfg, "new-game", "--id", "g1", "--seed", "1", *PLAYERS).returncode == 0
    return cfg


def queued(cfg: Path) -> list[str]:
    spool = cfg.parent / "data" / "admin"
    return sorted(p.name for p in spool.iterdir()) if spool.is_dir() else []


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (("P1", "not-an-email"), "not-an-email"),  # neither an address nor a bench name
        (("P1", "frank@"), "frank@"),
        (("Nobody", "new@example.org"), "no seat 'Nobody'"),
        (("P1", "p2@example.org"), "p2@example.org"),  # holds a seat already
    ],
)
def test_a_replacement_the_game_refuses_is_refused_at_once(
    cfg: Path, args: tuple[str, str], why: str
) -> None:
    r = pbem_in_process(cfg, "seat", "replace", "g1", *args)
    assert r.returncode == 2 and r.stdout == "", r
    assert len(r.stderr.splitlines()) == 1 and why in r.stderr, r.stderr
    assert queued(cfg) == []


def test_a_replacement_the_game_accepts_is_queued(cfg: Path) -> None:
    r = pbem_in_process(cfg, "seat", "replace", "g1", "p1", "new@example.org", "--name", "Zoé")
    assert r.returncode == 0, r
    assert len(queued(cfg)) == 1
