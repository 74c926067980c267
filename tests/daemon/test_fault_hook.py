"""Fault injection lives in the tests (issue 11): production code reads no variable for it; the
crash tests start the daemon through tests/daemon/crash_launcher.py, which installs the hook."""

from __future__ import annotations

from pathlib import Path

import pbem


def test_production_code_reads_no_fault_injection_variable() -> None:
    root = Path(pbem.__file__).parent
    readers = [p for p in root.rglob("*.py") if "PBEM_CRASH_AT" in p.read_text(encoding="utf-8")]
    assert readers == []
