"""Who may read and write what pbem creates in its state directory (docs/install-debian.md):
the directory's group decides, never the caller's umask; root gives what it makes to the
directory's owner; a request the daemon cannot remove is reported once, not retried forever.
The same with real uids and the installed daemon: tests/install/test_operator_uids.py."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.adapters.spool import RequestSpool, write_request
from pbem.adapters.store import GameStore, atomic_write, make_dirs

SERVICE, GROUP = 61001, 61000


@pytest.fixture
def strict_umask() -> Iterator[None]:
    old = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(old)


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_files_in_a_group_writable_directory_are_group_shared_whatever_the_umask(
    tmp_path: Path, strict_umask: None
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o2770)
    atomic_write(shared / "daemon.json", {"a": 1})
    make_dirs(shared / "games" / "g1")
    assert _mode(shared / "daemon.json") == 0o660
    assert _mode(shared / "games") == _mode(shared / "games" / "g1") == 0o2770
    GameStore.create(shared, "g2", {"game": "x"}, [], [])
    assert _mode(shared / "games" / "g2") == 0o2770
    assert _mode(shared / "games" / "g2" / "head.json") == 0o660


def test_files_in_a_private_directory_stay_private(tmp_path: Path) -> None:
    private = tmp_path / "private"
    private.mkdir(mode=0o755)  # readable by others: what pbem writes in it is not
    atomic_write(private / "daemon.json", {"a": 1})
    write_request(private / "reachable", "r1", "{}")
    assert _mode(private / "daemon.json") == 0o600
    assert _mode(private / "reachable") == 0o700
    assert _mode(private / "reachable" / "r1") == 0o600


def test_what_root_creates_belongs_to_the_state_directory_owner(
    tmp_path: Path, strict_umask: None
) -> None:
    assert os.geteuid() == 0, "run as root (CI does): this test gives files away"
    state = tmp_path / "state"
    state.mkdir()
    os.chown(state, SERVICE, GROUP)
    state.chmod(0o2770)
    req = write_request(state / "shunt" / "retry", "abc", "now")
    GameStore.create(state, "g1", {"game": "x"}, [], [])
    for p in (state / "shunt", state / "shunt" / "retry", state / "games" / "g1"):
        assert (p.stat().st_uid, p.stat().st_gid, _mode(p)) == (SERVICE, GROUP, 0o2770)
    for p in (req, state / "games" / "g1" / "head.json"):
        assert (p.stat().st_uid, p.stat().st_gid, _mode(p)) == (SERVICE, GROUP, 0o660)
    assert [p.name for p in req.parent.iterdir()] == ["abc"]  # no temp file left


def test_a_request_that_cannot_be_removed_is_reported_once_until_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    spool = tmp_path / "deadlines" / "retry"
    req = write_request(spool, "g1", "old")
    real_unlink = Path.unlink

    def refuse(self: Path, missing_ok: bool = False) -> None:
        raise PermissionError(13, "Permission denied")

    requests = RequestSpool()
    monkeypatch.setattr(Path, "unlink", refuse)
    with caplog.at_level(logging.ERROR):
        assert requests.pending(spool) == [req]
        assert requests.consume(req) is False
        for _tick in range(3):  # the daemon's ticker, once a second
            assert requests.pending(spool) == []
    assert len([r for r in caplog.records if "cannot be removed" in r.message]) == 1
    monkeypatch.setattr(Path, "unlink", real_unlink)
    write_request(spool, "g1", "asked again")  # a new file: seen again, and consumed
    assert requests.pending(spool) == [req]
    assert requests.consume(req) is True and requests.pending(spool) == []


def test_root_never_writes_through_a_link_planted_in_a_spool(tmp_path: Path) -> None:
    """The spools are writable by the service user: one who plants a symbolic link where root's
    request will be written must not get root to overwrite, or give away, the link's target."""
    assert os.geteuid() == 0, "run as root (CI does): this test gives files away"
    state = tmp_path / "state"
    state.mkdir()
    os.chown(state, SERVICE, GROUP)
    state.chmod(0o2770)
    spool = state / "reachable"
    make_dirs(spool)
    victim = tmp_path / "victim"
    victim.write_text("root's own")
    (spool / f".r1.{os.getpid()}").symlink_to(victim)
    req = write_request(spool, "r1", "{}")
    assert victim.read_text() == "root's own" and victim.stat().st_uid == 0
    assert req.read_text() == "{}" and req.stat().st_uid == SERVICE


@pytest.mark.parametrize("state_mode", [0o2770, 0o770])
def test_root_gives_a_game_to_the_service_even_under_a_directory_an_admin_made(
    tmp_path: Path, state_mode: int
) -> None:
    """An admin made ``games/`` (the first ``new-game``); root's next game still goes to the
    state directory's owner, whether or not that directory carries the setgid bit."""
    assert os.geteuid() == 0, "run as root (CI does): this test gives files away"
    admin = 61002
    state = tmp_path / "state"
    state.mkdir()
    os.chown(state, SERVICE, GROUP)
    state.chmod(state_mode)
    (state / "games").mkdir()
    os.chown(state / "games", admin, GROUP)
    (state / "games").chmod(0o2770)
    GameStore.create(state, "g2", {"game": "x"}, [], [])
    g2 = state / "games" / "g2"
    assert (g2.stat().st_uid, g2.stat().st_gid, _mode(g2)) == (SERVICE, GROUP, 0o2770)
    head = g2 / "head.json"
    assert (head.stat().st_uid, head.stat().st_gid, _mode(head)) == (SERVICE, GROUP, 0o660)
