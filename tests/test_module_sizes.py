"""Each concern is one small module (issue 11): no module of the daemon, the command line or
the offline tools is over 800 lines."""

from __future__ import annotations

from pathlib import Path

import pbem

PACKAGES = ("daemon", "cli", "tools")
MOST = 800


def test_no_module_of_the_daemon_cli_or_tools_is_over_800_lines() -> None:
    root = Path(pbem.__file__).parent
    sizes = {
        str(path.relative_to(root)): len(path.read_text(encoding="utf-8").splitlines())
        for package in PACKAGES
        for path in sorted((root / package).rglob("*.py"))
    }
    assert {name: n for name, n in sizes.items() if n > MOST} == {}
