"""The in-process ``pbem`` of the tests answers as the process does, and leaves the test
process as it found it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support import cli_in_process
from tests.support.cli_in_process import pbem_in_process
from tests.support.daemon_process import pbem


def _config(tmp_path: Path) -> Path:
    cfg = tmp_path / "pbem.toml"
    cfg.write_text(
        '[moderator]\naddress = "moderator@example.test"\n'
        '[imap]\nhost = "127.0.0.1"\nuser = "m"\n'
        '[smtp]\nhost = "127.0.0.1"\n'
        f'[daemon]\ndata_dir = "{tmp_path / "data"}"\n'
    )
    return cfg


def test_the_same_status_output_and_errors_as_the_process(tmp_path: Path) -> None:
    cfg = _config(tmp_path)
    for args in (("status",), ("status", "--bogus"), ("admin", "g1")):
        child, here = pbem(cfg, *args), pbem_in_process(cfg, *args)
        assert (here.returncode, here.stdout, here.stderr) == (
            child.returncode,
            child.stdout,
            child.stderr,
        ), args
    assert here.returncode == 2 and "the following arguments are required" in here.stderr
    (tmp_path / "data").mkdir()
    r = pbem_in_process(cfg, "status")
    assert r.returncode == 3 and "daemon: never started" in r.stdout, r


def test_serve_and_relative_paths_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="runs as a process"):
        pbem_in_process(_config(tmp_path), "serve")
    with pytest.raises(ValueError, match="relative path"):
        pbem_in_process(Path("pbem.toml"), "status")


def test_a_command_that_changes_the_process_is_undone_and_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def meddling(argv: list[str]) -> int:
        os.umask(0o077)
        os.environ["PBEM_MEDDLED"] = "1"
        return 0

    monkeypatch.setattr(cli_in_process, "main", meddling)
    umask = os.umask(0o022)
    os.umask(umask)
    with pytest.raises(AssertionError, match=r"changed the test process \(umask, environ\)"):
        pbem_in_process(_config(tmp_path), "status")
    assert "PBEM_MEDDLED" not in os.environ
    assert os.umask(umask) == umask
