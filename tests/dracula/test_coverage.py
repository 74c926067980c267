"""Every DRA rule of the spec is cited by a scenario test (issue 6: done when)."""

from __future__ import annotations

import re
from pathlib import Path

SPEC = next(
    (
        p / "shared" / "rules" / "dracula.md"
        for p in Path(__file__).resolve().parents
        if (p / "shared" / "rules" / "dracula.md").is_file()
    ),
    Path("shared/rules/dracula.md"),
)
HERE = Path(__file__).parent
RANGE = re.compile(r"DRA-(\d{3})\s*(?:…|\.\.\.|–)\s*(?:DRA-)?(\d{3})")


def spec_ids() -> set[int]:
    text = SPEC.read_text() if SPEC.exists() else ""
    return {int(m) for m in re.findall(r"\*\*DRA-(\d{3})\*\*", text)}


def cited_ids(universe: set[int]) -> set[int]:
    cited: set[int] = set()
    for path in HERE.glob("test_*.py"):
        if path.name == "test_coverage.py":
            continue
        text = path.read_text()
        cited |= {int(m) for m in re.findall(r"DRA-(\d{3})", text)}
        for a, b in RANGE.findall(text):
            cited |= {i for i in universe if int(a) <= i <= int(b)}
    return cited


def test_every_rule_is_cited() -> None:
    import pytest

    ids = spec_ids()
    if not ids:
        pytest.skip("the shared spec (../shared/rules/dracula.md) is not beside the repository")
    missing = sorted(ids - cited_ids(ids))
    assert not missing, "uncited: " + ", ".join(f"DRA-{i:03d}" for i in missing)
