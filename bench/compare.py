"""Side-by-side benches: HEAD against a reference commit, in one run (issue 23).

Each side runs its own ``bench/`` scripts against its own code: the reference commit is
extracted (``git archive``) into a temporary directory and run with ``PYTHONPATH`` set to it,
in the same interpreter (the same venv and libraries). The two sides alternate, round after
round, so that a busy machine slows both alike; the table gives each figure's median over the
rounds, and the ratio HEAD / REF. A figure one side's bench does not print is shown as "—".
``simulate`` runs under ``bench/cpu_clock.py`` on both sides: its figures are CPU time, which
the other work of a shared machine disturbs far less than the wall clock.

    python bench/compare.py [--ref COMMIT] [--rounds N] [--games N] [--players N]
        [--idle-games N] [--messages N] [--only simulate,games,ingest] [--verbose]

Figures are measured, not asserted (the targets are in README's performance section).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
DEFAULT_REF = "a507d5c"


@dataclass(frozen=True)
class Figure:
    """One number a bench prints: its label in the table, the pattern that finds it in the
    output, its unit, and whether more is better (for the ratio's reading)."""

    label: str
    pattern: str
    unit: str
    higher_is_better: bool = True

    def read(self, output: str) -> float | None:
        found = re.search(self.pattern, output)
        return float(found.group(1).replace(",", "")) if found else None


@dataclass(frozen=True)
class Bench:
    """A bench script (relative to a tree) and how to call it with the sizes asked."""

    name: str
    script: str
    args: Callable[[argparse.Namespace], list[str]]
    figures: tuple[Figure, ...]
    cpu_clock: bool = False
    """Run under bench/cpu_clock.py: its timings are the process's CPU time, not the wall's."""


NUMBER = r"(-?[0-9][0-9,]*(?:\.[0-9]+)?)"  # a share may come out negative on a busy machine

BENCHES = (
    Bench(
        "simulate",
        "bench/simulate.py",
        lambda a: ["--games", str(a.games), "--players", str(a.players)],
        (
            Figure("whole pipeline, games/s", rf"pipeline only\s*:\s*{NUMBER} games/s", "games/s"),
            Figure("per command, µs", rf"per command\s*:\s*{NUMBER} µs", "µs", False),
            Figure(
                "without rendering, games/s",
                rf"without rendering:\s*{NUMBER} games/s",
                "games/s",
            ),
            Figure("rendering's share, %", rf"rendering is {NUMBER}%", "%", False),
        ),
        cpu_clock=True,  # one process, pure CPU: the other engineers' load counts not
    ),
    Bench(
        "games",
        "bench/games.py",
        lambda a: [str(a.idle_games)],
        (
            Figure("games created, s", rf"created \d+ games in {NUMBER} s", "s", False),
            Figure("games loaded and armed, s", rf"loaded and armed in {NUMBER} s", "s", False),
            Figure("idle cycle median, ms", rf"cycle median {NUMBER} ms", "ms", False),
            Figure("idle cycle max, ms", rf"ms, max {NUMBER} ms", "ms", False),
            Figure("peak RSS, MB", rf"peak RSS {NUMBER} MB", "MB", False),
        ),
    ),
    Bench(
        "ingest",
        "bench/ingest.py",
        lambda a: [str(a.messages)],
        (
            Figure("ingest ratio, fake table", rf"ratio {NUMBER} \(target", ""),
            Figure("ingest ratio, Lupus rules", rf"Lupus rules: .*ratio {NUMBER}", ""),
        ),
    ),
)


def extract(ref: str, into: Path) -> Path:
    """The tree of ``ref`` (its code, its tests' support, its bench/) in ``into``."""
    archive = into / "ref.tar"
    subprocess.run(
        ["git", "-C", str(HERE), "archive", "--format=tar", "-o", str(archive), ref], check=True
    )
    tree = into / "ref"
    tree.mkdir()
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    archive.unlink()
    return tree


def run_side(tree: Path, bench: Bench, args: argparse.Namespace) -> str:
    """One bench of one side: its output (stdout and stderr), empty if its script is absent."""
    script = tree / bench.script
    if not script.exists():
        return ""
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
    clock = [str(HERE / "bench" / "cpu_clock.py")] if bench.cpu_clock else []
    done = subprocess.run(
        [sys.executable, *clock, str(script), *bench.args(args)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.stderr.write(f"{tree.name}: {bench.script} failed\n{done.stdout}{done.stderr}\n")
    return done.stdout + done.stderr


def median(values: Sequence[float | None]) -> float | None:
    found = [v for v in values if v is not None]
    return statistics.median(found) if found else None


def shown(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:,.2f}" if abs(value) < 10 else f"{value:,.1f}"


def table(rows: list[tuple[str, float | None, float | None]], ref: str) -> str:
    """bench, REF, HEAD, HEAD / REF."""
    head = ("bench", f"REF {ref}", "HEAD", "HEAD/REF")
    lines = [head]
    for label, before, after in rows:
        ratio = "—" if before in (None, 0) or after is None else f"{after / before:.2f}×"
        lines.append((label, shown(before), shown(after), ratio))
    widths = [max(len(line[i]) for line in lines) for i in range(4)]
    out = []
    for n, line in enumerate(lines):
        cells = [line[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(line[1:], widths[1:], strict=True)
        ]
        out.append("| " + " | ".join(cells) + " |")
        if n == 0:
            out.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ref", default=DEFAULT_REF, help="the reference commit")
    parser.add_argument("--rounds", type=int, default=3, help="alternating runs of each side")
    parser.add_argument("--games", type=int, default=40, help="bench/simulate.py's games")
    parser.add_argument("--players", type=int, default=16, help="bench/simulate.py's table")
    parser.add_argument("--idle-games", type=int, default=1000, help="bench/games.py's games")
    parser.add_argument("--messages", type=int, default=500, help="bench/ingest.py's mails")
    parser.add_argument("--only", default="simulate,games,ingest", help="benches to run")
    parser.add_argument("--verbose", action="store_true", help="print each run's output")
    args = parser.parse_args(argv)
    wanted = set(args.only.split(","))
    rev = subprocess.run(
        ["git", "-C", str(HERE), "rev-parse", "--short", args.ref],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    rows: list[tuple[str, float | None, float | None]] = []
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="pbembench-ref") as tmp:
        ref_tree = extract(rev, Path(tmp))
        for bench in BENCHES:
            if bench.name not in wanted:
                continue
            outputs: dict[str, list[str]] = {"ref": [], "head": []}
            for n in range(args.rounds):
                # alternate which side goes first, so neither always runs on a warmer machine
                order = [("ref", ref_tree), ("head", HERE)]
                for side, tree in order if n % 2 == 0 else order[::-1]:
                    out = run_side(tree, bench, args)
                    outputs[side].append(out)
                    if args.verbose:
                        print(f"--- {bench.name} {side} round {n + 1}\n{out}", flush=True)
            for figure in bench.figures:
                rows.append(
                    (
                        f"{bench.name}: {figure.label}",
                        median([figure.read(o) for o in outputs["ref"]]),
                        median([figure.read(o) for o in outputs["head"]]),
                    )
                )
    print(
        f"REF {rev} vs HEAD, {args.rounds} alternating rounds (median); simulate --games "
        f"{args.games}, games {args.idle_games}, ingest {args.messages} mails; simulate in CPU "
        f"time; load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    )
    print(table(rows, rev))


if __name__ == "__main__":
    main()
