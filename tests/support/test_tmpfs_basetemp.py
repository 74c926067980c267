"""The run's files on a tmpfs (tests/conftest.py): only where there is one with room, and
never against a ``--basetemp`` or the opt-out."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests import conftest


def _config(basetemp: str | None) -> Any:
    return SimpleNamespace(option=SimpleNamespace(basetemp=basetemp))


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The directories :func:`conftest.basetemp_on_tmpfs` makes here, removed after."""
    monkeypatch.delenv(conftest.ON_DISK, raising=False)
    monkeypatch.setattr(conftest, "_tmpfs_basetemp", [])
    yield conftest._tmpfs_basetemp
    for path in conftest._tmpfs_basetemp:
        os.rmdir(path)


def test_the_runs_files_go_to_a_tmpfs_with_room(made: list[str]) -> None:
    if not conftest.TMPFS.is_dir():
        pytest.skip(f"no {conftest.TMPFS} here")
    config = _config(None)
    conftest.basetemp_on_tmpfs(config)
    assert made and config.option.basetemp == made[0]
    assert Path(made[0]).parent == conftest.TMPFS


def test_a_given_basetemp_the_opt_out_or_a_small_tmpfs_keep_the_disk(
    made: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    given = _config(str(tmp_path))
    conftest.basetemp_on_tmpfs(given)
    assert given.option.basetemp == str(tmp_path)

    monkeypatch.setenv(conftest.ON_DISK, "1")
    opted_out = _config(None)
    conftest.basetemp_on_tmpfs(opted_out)
    assert opted_out.option.basetemp is None
    monkeypatch.delenv(conftest.ON_DISK)

    monkeypatch.setattr(conftest, "TMPFS_ROOM", 1 << 62)  # more than any machine has
    small = _config(None)
    conftest.basetemp_on_tmpfs(small)
    assert small.option.basetemp is None

    monkeypatch.setattr(conftest, "TMPFS", tmp_path / "absent")
    absent = _config(None)
    conftest.basetemp_on_tmpfs(absent)
    assert absent.option.basetemp is None and made == []
