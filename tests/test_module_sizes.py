"""Each concern is one small module (issue 11): no module of the daemon, the command line or
the offline tools is over 800 lines."""

from __future__ import annotations

from pathlib import Path

import pbem

PACKAGES = ("daemon", "cli", "tools")
PIPELINE = ("table", "signup", "desk", "games", "core")
MOST = 800


def test_no_module_of_the_daemon_cli_or_tools_is_over_800_lines() -> None:
    root = Path(pbem.__file__).parent
    sizes = {
        str(path.relative_to(root)): len(path.read_text(encoding="utf-8").splitlines())
        for package in PACKAGES
        for path in sorted((root / package).rglob("*.py"))
    }
    assert {name: n for name, n in sizes.items() if n > MOST} == {}


def test_no_module_of_the_game_pipeline_is_over_800_lines() -> None:
    # issue 11: the table (one game's pipeline, once a 1,072-line module), the sign-ups that
    # drive it before a start, the desk, the rules and the pure core, each module one concern
    root = Path(pbem.__file__).parent
    paths = [
        *sorted(root.glob("*.py")),
        *(p for package in PIPELINE for p in sorted((root / package).rglob("*.py"))),
    ]
    sizes = {
        str(path.relative_to(root)): len(path.read_text(encoding="utf-8").splitlines())
        for path in paths
    }
    assert {name: n for name, n in sizes.items() if n > MOST} == {}
