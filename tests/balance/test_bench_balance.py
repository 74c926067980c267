"""bench/balance.py runs and prints its figures (tiny runs: nothing is timed or asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_balance_prints_its_figures() -> None:
    out = subprocess.run(
        [sys.executable, "bench/balance.py", "--games", "4", "--per-core", "2", "--jobs", "2",
         "--game", "lupus-in-tabula"],
        cwd=ROOT, capture_output=True, text=True, check=True, timeout=240,
    ).stdout  # fmt: skip
    assert "lupus-in-tabula, 16 players :" in out and "games/s per core" in out
    assert "4 games in" in out
