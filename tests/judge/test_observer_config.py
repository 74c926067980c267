"""``[list] graveyard`` in the configuration (issue 25, item 5): check-config --offline takes
it with the relayed list and names the problem with an external one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.daemon.test_unit_config import example_config
from tests.support.cli_in_process import pbem_in_process


@pytest.fixture(autouse=True)
def _outside_the_unit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CREDENTIALS_DIRECTORY", raising=False)
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)


def test_a_graveyard_with_the_relayed_list_is_valid(tmp_path: Path) -> None:
    cfg = example_config(
        tmp_path,
        extra='mode = "external"=>mode = "relay"\ngraveyard = false=>graveyard = true\n'
        '# observers = "approve"=>observers = "open"\n',
    )
    r = pbem_in_process(cfg, "check-config", "--offline")
    assert r.returncode == 0 and "configuration is valid" in r.stdout, r.stderr


def test_a_graveyard_needs_the_relayed_list(tmp_path: Path) -> None:
    cfg = example_config(
        tmp_path,
        extra='graveyard = false=>graveyard = true\n# observers = "approve"=>observers = "maybe"\n',
    )
    r = pbem_in_process(cfg, "check-config", "--offline")
    assert r.returncode == 2
    assert 'list.graveyard: needs mode = "relay"' in r.stderr
    assert "observers" in r.stderr  # an option outside its choices


def test_the_desk_and_the_observers_import_first_in_a_fresh_interpreter() -> None:
    """``pbem admin`` imports the desk before the table: its OBSERVERS command must not load
    pbem.judge (which loads the table, which loads the desk) while the desk is half made."""
    import subprocess
    import sys

    for module in ("pbem.desk", "pbem.judge.observer"):
        r = subprocess.run(
            [sys.executable, "-c", f"import {module}"], capture_output=True, text=True
        )
        assert r.returncode == 0, r.stderr
