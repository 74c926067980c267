"""Every numbered rule of the four specifications in ``docs/rules/`` is cited by a test.

A citation is the rule's ID (``LUP-341``) in a test module other than this one; each such test is
a scenario that fails when the rule breaks. The specs ship with the repository, so this check
runs on every clone.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPECS = {
    "LUP": ROOT / "docs" / "rules" / "lupus-in-tabula.md",
    "LG": ROOT / "docs" / "rules" / "loup-garou.md",
    "CAS": ROOT / "docs" / "rules" / "chasse-aux-sorcieres.md",
    "DRA": ROOT / "docs" / "rules" / "dracula.md",
}


def spec_ids(prefix: str) -> set[str]:
    """The rule IDs a spec defines: the bold ``**PREFIX-NNN**`` markers."""
    return set(re.findall(rf"\*\*({prefix}-\d{{3}})\*\*", SPECS[prefix].read_text()))


def cited_ids(prefix: str) -> set[str]:
    """The rule IDs named anywhere in the test modules."""
    here = Path(__file__).resolve()
    cited: set[str] = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        if path.resolve() != here:
            cited |= set(re.findall(rf"\b{prefix}-\d{{3}}\b", path.read_text()))
    return cited


@pytest.mark.parametrize("prefix", sorted(SPECS))
def test_every_rule_is_cited(prefix: str) -> None:
    ids = spec_ids(prefix)
    assert len(ids) > 100, f"{SPECS[prefix].name}: too few rule IDs found, is the spec there?"
    missing = sorted(ids - cited_ids(prefix))
    assert not missing, "uncited: " + ", ".join(missing)
