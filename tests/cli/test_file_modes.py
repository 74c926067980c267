"""Files pbem writes follow the "never others" rule whatever the umask, outside the unit too
(issue 21, item 14), and a permission error names the operators' group."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pbem.adapters.store.directories import write_new_file
from pbem.cli.common import fail
from pbem.daemon import heartbeat


@pytest.fixture
def open_umask() -> Iterator[None]:
    """A umask that gives everyone everything (an operator's shell may have 002 or worse)."""
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def others(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode) & 0o007


@pytest.mark.usefixtures("open_umask")
@pytest.mark.parametrize("shared", [False, True], ids=["private", "group-shared"])
def test_heartbeat_and_shunted_mail_are_never_for_others(tmp_path: Path, shared: bool) -> None:
    root = tmp_path / "data"
    root.mkdir(mode=0o2770 if shared else 0o700)
    os.chmod(root, 0o2770 if shared else 0o700)
    heartbeat.write(root, {"at": datetime.now(UTC).isoformat(), "pid": 1})
    write_new_file(root / "mail.eml", b"From: a@example.org\r\n\r\nsecret\r\n")
    for name in ("heartbeat.json", "mail.eml"):
        path = root / name
        assert others(path) == 0, name
        assert bool(path.stat().st_mode & stat.S_IRGRP) == shared, name
    assert heartbeat.read(root) is not None


def test_a_permission_error_names_the_group(capsys: pytest.CaptureFixture[str]) -> None:
    exc = PermissionError(13, "Permission denied", "/var/lib/pbem/daemon.json")
    assert fail("status", exc) == 2
    err = capsys.readouterr().err
    assert "Errno" not in err and "/var/lib/pbem/daemon.json" in err
    assert "pbem-admin" in err and len(err.splitlines()) == 1
