"""The benches run and print their figures (issue 23): tiny sizes, no figure checked against a
target (``make bench`` measures them, side by side with a reference commit)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bench.compare import BENCHES, main

ROOT = Path(__file__).resolve().parents[1]


def test_simulate_bench_prints_every_figure() -> None:
    bench = next(b for b in BENCHES if b.name == "simulate")
    out = subprocess.run(
        [sys.executable, "bench/simulate.py", "--games", "1", "--players", "8"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    ).stdout
    assert all(f.read(out) is not None for f in bench.figures), out


def test_games_and_ingest_benches_print_every_figure() -> None:
    for name, args in (("games", ["--games", "3"]), ("ingest", ["8"])):
        bench = next(b for b in BENCHES if b.name == name)
        out = subprocess.run(
            [sys.executable, bench.script, *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
        ).stdout
        assert all(f.read(out) is not None for f in bench.figures), (name, out)


def test_compare_prints_the_side_by_side_table(capsys: object) -> None:
    main(["--ref", "HEAD", "--only", "simulate", "--rounds", "1", "--games", "1", "--players", "8"])
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "| simulate: whole pipeline, games/s" in out
    assert "—" not in out.split("whole pipeline")[1].splitlines()[0], out
