"""The benches run and print their figures (issue 23): tiny sizes, no figure checked against a
target (``make bench`` measures them, side by side with a reference commit)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

import bench.compare
from bench.compare import BENCHES, HEAD, REF, Paired, lockstep, main

ROOT = Path(__file__).resolve().parents[1]


def _bench(script: str, *args: str) -> str:
    """What ``script`` prints, run from the checkout as ``make bench`` runs it."""
    return subprocess.run(
        [sys.executable, script, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    ).stdout


def test_simulate_bench_prints_every_figure() -> None:
    bench = next(b for b in BENCHES if b.name == "simulate")
    out = _bench("bench/simulate.py", "--games", "1", "--players", "8")
    assert all(f.read(out) is not None for f in bench.figures), out


def test_games_and_ingest_benches_print_every_figure() -> None:
    for name, args in (("games", ["--games", "3"]), ("ingest", ["8"])):
        bench = next(b for b in BENCHES if b.name == name)
        out = _bench(bench.script, *args)
        assert all(f.read(out) is not None for f in bench.figures), (name, out)


def test_games_bench_reads_its_count_either_way_and_explains_itself() -> None:
    """``bench/games.py --help`` used to crash on ``int('--help')``: its arguments are
    parsed, N given positionally (as ``bench/compare.py`` does) or with ``--games``."""
    from bench.games import arguments

    assert arguments([]).games == 1000
    assert arguments(["7"]).games == 7 and arguments(["--games", "9"]).games == 9
    assert arguments(["0"]).games == 0
    helped = _bench("bench/games.py", "--help")
    assert "--games N" in helped and "how many games" in helped, helped


@pytest.mark.parametrize("script", sorted(p.name for p in (ROOT / "bench").glob("[!_]*.py")))
def test_every_bench_explains_itself_when_run_from_a_shell(script: str, tmp_path: Path) -> None:
    """``python bench/X.py --help`` from anywhere, with no PYTHONPATH: the benches that use
    the tests' mail servers find ``tests.support`` from the checkout themselves (games.py,
    ingest.py and relay_flood.py stopped at ``import tests`` run so), and none runs its bench
    for ``--help`` (commit.py and outbox_sent.py did)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "usage" in done.stdout.lower(), done.stdout


def test_compare_prints_the_side_by_side_table_of_whole_runs(capsys: object) -> None:
    main(
        [
            "--ref",
            "HEAD",
            "--only",
            "simulate",
            "--whole-runs",
            "--rounds",
            "1",
            "--games",
            "1",
            "--players",
            "8",
        ]
    )
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "| simulate: whole pipeline, games/s" in out
    assert "—" not in out.split("whole pipeline")[1].splitlines()[0], out


def test_compare_in_lockstep_prints_every_figure_and_the_pairs_interval(capsys: object) -> None:
    main(
        [
            "--ref",
            "HEAD",
            "--only",
            "simulate,balance",
            "--pairs",
            "2",
            "--warmup",
            "0",
            "--players",
            "8",
            "--slice",
            "2",
        ]
    )
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    rows = [line for line in out.splitlines() if line.startswith(("| simulate", "| balance"))]
    assert len(rows) == 5 and all("—" not in row for row in rows), out
    # two pairs of turns, two games a turn: four games a side, none played twice
    assert "2 pairs in lockstep" in out and "4 8-player games a side" in out, out
    assert "2 in a row a turn" in out, out
    assert "whole pipeline HEAD/REF" in out and "95 % interval" in out, out


def test_compare_measures_each_games_balance_at_a_table_it_accepts() -> None:
    """Issue 23's per-core figure is 16-player Lupus; Dracula refuses 16 players, so another
    game is measured at its usual table unless --balance-players says otherwise."""
    assert bench.compare.balance_players("lupus-in-tabula") == 16
    assert bench.compare.balance_players("dracula") == 13


def test_paired_speedup_is_the_sides_total_time_over_each_other_within_its_interval() -> None:
    """Sum over sum (the ratio of games per second), not the mean of the pairs' ratios."""
    paired = Paired(
        {"full": [({"seconds": 2.0}, {"seconds": 1.0}), ({"seconds": 1.0}, {"seconds": 1.0})]}
    )
    assert paired.speedup("full") == 1.5
    low, high = paired.interval("full")
    assert 1.0 <= low <= 1.5 <= high <= 2.0


def test_lockstep_takes_turns_abba_restarts_its_workers_and_never_replays_a_seed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    played: list[tuple[int, int, object, str]] = []  # worker, side, seed, kind
    started: list[Path] = []

    class FakeWorker:
        def __init__(self, tree: Path, worker_args: object) -> None:
            self.number = len(started)
            started.append(tree)

        def play(self, **asked: object) -> dict[str, float]:
            played.append((self.number, self.number % 2, asked["seed"], str(asked["kind"])))
            return {"seconds": 1.0}

        def close(self) -> None:
            pass

    monkeypatch.setattr(bench.compare, "Worker", FakeWorker)
    args = argparse.Namespace(pairs=5, warmup=1, restart=2, verbose=False)
    trees = (Path("ref"), Path("head"))
    paired = lockstep(trees, [], [{"kind": "full"}, {"kind": "bare"}], args)
    assert started == [Path("ref"), Path("head")] * 3  # pairs 0-1, 2-3, 4
    assert [len(paired.pairs[kind]) for kind in ("full", "bare")] == [5, 5]
    for side in (REF, HEAD):
        seeds = [seed for _, s, seed, _ in played if s == side]
        assert len(seeds) == len(set(seeds)) == 2 * (5 + 3), seeds  # 3 workers, 1 warm-up each
    first_of_each_turn = [side for _, side, _, _ in played[::2]]
    assert first_of_each_turn[:6] == [HEAD, HEAD, REF, REF, HEAD, HEAD]  # warm-up -1, 0, 1
