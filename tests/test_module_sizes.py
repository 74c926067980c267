"""Each concern is one small module (issue 11): no module of pbem is over 800 lines (the
table, the service, the store, the inbound parser and the games were each once far over)."""

from __future__ import annotations

from pathlib import Path

import pbem

MOST = 800


def test_no_module_of_pbem_is_over_800_lines() -> None:
    root = Path(pbem.__file__).parent
    sizes = {
        str(path.relative_to(root)): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(root.rglob("*.py"))
    }
    assert {name: n for name, n in sizes.items() if n > MOST} == {}
