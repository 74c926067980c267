"""Side-by-side benches: HEAD against a reference commit, in one run (issue 23).

Each side runs its own ``bench/`` scripts against its own code: the reference commit is
extracted (``git archive``) into a temporary directory and run with ``PYTHONPATH`` set to it,
in the same interpreter (the same venv and libraries). The two sides alternate, round after
round, so that a busy machine slows both alike; the table gives each figure's median over the
rounds, and the ratio HEAD / REF. A figure one side's bench does not print is shown as "—".

``simulate`` is measured in lockstep: one long-lived worker per side (``bench/pair_worker.py``,
running that side's own ``bench/simulate.py``), the two taking turns, ``--slice`` games a turn
(4; about 0.1 s), each timing its own games in CPU time. This VM's speed drifts by a fifth from
one minute to the next, so whole runs a minute apart do not compare; turns a fraction of a
second apart do. One game a turn (``--slice 1``) times every game just after the other side's
has evicted its CPU caches: that cost HEAD 3 to 5 % against a507d5c on 2026-12-07 (60 pairs
each, alternated: 1.471× and 1.505× with one game a turn, 1.538× and 1.548× with four), where
whole runs (1.62×) and instruction counts (1.65×) see warm caches, as a daemon's busy minute does. The
ratio is REF's total time over HEAD's (what games per second means: the ratio column is HEAD's
figure over REF's), with a 95 % interval from resampling the pairs. ``--whole-runs`` measures
``simulate`` as the other benches are, whole runs under ``bench/cpu_clock.py``. ``balance``
(not run unless asked) compares ``bench/balance.py``'s games per second per core in lockstep.

    python bench/compare.py [--ref COMMIT] [--rounds N] [--pairs N] [--slice N] [--warmup N] [--games N]
        [--players N] [--idle-games N] [--messages N] [--only simulate,games,ingest,balance]
        [--balance-game ID] [--balance-players N] [--whole-runs] [--verbose]

Figures are measured, not asserted (the targets are in README's performance section).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
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


Row = tuple[str, float | None, float | None]
"""A line of the table: its label, REF's figure and HEAD's (None: not printed by that side)."""

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
        if hasattr(tarfile, "data_filter"):  # PEP 706, from 3.11.4: Debian 12's 3.11.2 lacks it
            tar.extractall(tree, filter="data")
        else:  # our own git archive, not a stranger's tar
            tar.extractall(tree)
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


Slice = dict[str, float]
"""One slice's answer from ``bench/pair_worker.py``: its CPU ``seconds`` and, for simulate, the
time in ``Table.receive`` alone and the commands received."""


class Worker:
    """One side's ``bench/pair_worker.py``, asked for one slice at a time over pipes."""

    def __init__(self, tree: Path, worker_args: Sequence[str]) -> None:
        self.tree = tree
        self.process = subprocess.Popen(
            [sys.executable, str(HERE / "bench" / "pair_worker.py"), *worker_args],
            cwd=tree,
            env=dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1"),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def play(self, **asked: object) -> Slice:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(asked) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            raise RuntimeError(f"{self.tree}: bench/pair_worker.py stopped (its stderr above)")
        found: Slice = json.loads(answer)
        return found

    def close(self) -> None:
        """Ends the worker: it finishes its slice, if any, and stops at the end of its input."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        self.process.wait()
        self.process.stdout.close()


@contextmanager
def workers(trees: Sequence[Path], worker_args: Sequence[str]) -> Iterator[list[Worker]]:
    started = [Worker(tree, worker_args) for tree in trees]
    try:
        yield started
    finally:
        for worker in started:
            worker.close()


REF, HEAD = 0, 1


@dataclass
class Paired:
    """A lockstep run's slices, by kind (``full``, ``bare``, ``rules``), in pairs (REF's,
    HEAD's) of the same seeds played a moment apart."""

    pairs: dict[str, list[tuple[Slice, Slice]]] = field(default_factory=dict)

    def total(self, kind: str, side: int, what: str = "seconds") -> float:
        return sum(pair[side][what] for pair in self.pairs[kind])

    def speedup(self, kind: str) -> float:
        """HEAD's speed over REF's: REF's seconds over HEAD's, each summed over the pairs.

        Sum over sum is what "games per second" means (the ratio of the two sides' figures);
        it is the mean of the pairs' ratios weighted by HEAD's time in each, so that drift
        between pairs only moves the weights. The median of the pairs' ratios is steadier A/A
        (a disturbed slice is an outlier) but another quantity, the speed-up of a typical game
        rather than of the work: without rendering, 119fb73 against a507d5c, 1.43× against
        1.39×."""
        return self.total(kind, REF) / self.total(kind, HEAD)

    def interval(self, kind: str, draws: int = 2000) -> tuple[float, float]:
        """A 95 % interval of :meth:`speedup` from resampling the pairs (percentile
        bootstrap): how much the figure owes to which slices happened to be disturbed."""
        draw = random.Random(0)
        pairs = self.pairs[kind]
        ratios = sorted(
            sum(p[REF]["seconds"] for p in sample) / sum(p[HEAD]["seconds"] for p in sample)
            for sample in (draw.choices(pairs, k=len(pairs)) for _ in range(draws))
        )
        return ratios[int(0.025 * draws)], ratios[int(0.975 * draws) - 1]

    def median_pair_speedup(self, kind: str) -> float:
        return statistics.median(p[REF]["seconds"] / p[HEAD]["seconds"] for p in self.pairs[kind])

    def note(self, kind: str, label: str) -> str:
        low, high = self.interval(kind)
        return (
            f"{label} HEAD/REF {self.speedup(kind):.3f}×, 95 % interval {low:.3f}–{high:.3f}× "
            f"(pairs resampled), median of the {len(self.pairs[kind])} pairs' ratios "
            f"{self.median_pair_speedup(kind):.3f}×"
        )


def lockstep(
    trees: tuple[Path, Path],
    worker_args: Sequence[str],
    slices: Sequence[dict[str, object]],
    args: argparse.Namespace,
) -> Paired:
    """REF's and HEAD's workers play the same seeds by turns: for each seed, each kind of
    slice asked (``slices``: a kind and what the worker is asked besides the seed), one
    side then the other. ABBA: the side going first changes every seed, so that neither
    always runs just after the other. No seed is played twice by a side (each kind has its
    own, the warm-ups' too): a replay would find what HEAD keeps per distinct text already
    kept, and REF keeps nothing.

    New workers every ``args.restart`` pairs: a process may have its own luck (its hash
    seed, its memory's layout, the same for all its games), which pairing cannot cancel but
    several processes a side average out (one 150-pair run in six with a single pair of
    workers came out 1.24× where the others gave 1.31 to 1.35×, each ±2.7 %)."""
    paired = Paired({str(s["kind"]): [] for s in slices})
    every = max(args.restart, 1)
    for generation, start in enumerate(range(0, args.pairs, every)):
        with workers(trees, worker_args) as sides:
            for n in [*range(-args.warmup, 0), *range(start, min(start + every, args.pairs))]:
                order = (REF, HEAD) if n % 2 == 0 else (HEAD, REF)
                for kind, asked in enumerate(slices):
                    seed = (n if n >= 0 else 10**6 + 100 * generation - n) + kind * 10**5
                    got = {side: sides[side].play(seed=seed, **asked) for side in order}
                    if n >= 0:
                        paired.pairs[str(asked["kind"])].append((got[REF], got[HEAD]))
                        if args.verbose:
                            print(
                                f"seed {seed} {asked['kind']}: REF {got[REF]['seconds']:.4f} s, "
                                f"HEAD {got[HEAD]['seconds']:.4f} s",
                                flush=True,
                            )
        if args.verbose:
            for name, pairs in paired.pairs.items():
                ratio = sum(p[REF]["seconds"] for p in pairs[start:]) / sum(
                    p[HEAD]["seconds"] for p in pairs[start:]
                )
                print(f"workers {generation + 1}, {name}: HEAD/REF {ratio:.3f}×", flush=True)
    return paired


def lockstep_simulate(ref_tree: Path, args: argparse.Namespace) -> tuple[list[Row], list[str]]:
    """``simulate``'s figures in lockstep: for each pair, a game with every mail rendered, then
    another with the bench's NullRenderer."""
    k = args.slice
    paired = lockstep(
        (ref_tree, HERE),
        ["simulate", "--players", str(args.players)],
        [{"kind": "full", "bare": False, "games": k}, {"kind": "bare", "bare": True, "games": k}],
        args,
    )
    n = args.pairs * k

    def per_command(side: int) -> float:
        return 1e6 * paired.total("full", side, "receive") / paired.total("full", side, "commands")

    def share(side: int) -> float:
        return 100 * (1 - paired.total("bare", side) / paired.total("full", side))

    rows: list[Row] = [
        ("simulate: whole pipeline, games/s", *(n / paired.total("full", s) for s in (REF, HEAD))),
        ("simulate: per command, µs", per_command(REF), per_command(HEAD)),
        (
            "simulate: without rendering, games/s",
            *(n / paired.total("bare", s) for s in (REF, HEAD)),
        ),
        ("simulate: rendering's share, %", share(REF), share(HEAD)),
    ]
    notes = [
        f"simulate in lockstep: {n} {args.players}-player games a side and {n} more without "
        f"rendering, {k} in a row a turn, paired by seed, CPU time",
        paired.note("full", "  whole pipeline"),
        paired.note("bare", "  without rendering"),
    ]
    return rows, notes


def balance_players(game: str) -> int:
    """Issue 23's per-core figure is for 16-player Lupus; another game is measured at its
    usual table (a 16-player Dracula is refused)."""
    from pbem.tools.demo import USUAL_PLAYERS

    return 16 if game == "lupus-in-tabula" else USUAL_PLAYERS[game]


def lockstep_balance(ref_tree: Path, args: argparse.Namespace) -> tuple[list[Row], list[str]]:
    """``bench/balance.py``'s games per second per core, in lockstep (slices of a few games:
    a rules-only game is short), if both sides have that bench."""
    players = args.balance_players or balance_players(args.balance_game)
    label = f"balance: {args.balance_game}, {players} players, games/s per core"
    if not (ref_tree / "bench" / "balance.py").exists():
        return [(label, None, None)], ["balance: REF has no bench/balance.py"]
    per_slice = 5
    paired = lockstep(
        (ref_tree, HERE),
        ["balance", "--players", str(players), "--game", args.balance_game],
        [{"kind": "rules", "games": per_slice}],
        args,
    )
    games = per_slice * args.pairs
    rows: list[Row] = [(label, *(games / paired.total("rules", s) for s in (REF, HEAD)))]
    return rows, [
        f"balance in lockstep: {args.pairs} pairs of {per_slice} games, CPU time",
        paired.note("rules", "  rules only"),
    ]


def median(values: Sequence[float | None]) -> float | None:
    found = [v for v in values if v is not None]
    return statistics.median(found) if found else None


def shown(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:,.2f}" if abs(value) < 10 else f"{value:,.1f}"


def table(rows: list[Row], ref: str) -> str:
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
    parser.add_argument("--pairs", type=int, default=150, help="seeds played in lockstep")
    parser.add_argument(
        "--slice", type=int, default=4, help="simulate's games a side plays in a row, a turn"
    )
    parser.add_argument(
        "--warmup", type=int, default=3, help="lockstep seeds not counted, for each new worker"
    )
    parser.add_argument(
        "--restart", type=int, default=25, help="new lockstep workers every N pairs"
    )
    parser.add_argument(
        "--whole-runs",
        action="store_true",
        help="simulate as whole runs alternating by rounds (medians), not in lockstep",
    )
    parser.add_argument("--games", type=int, default=40, help="bench/simulate.py's games")
    parser.add_argument("--players", type=int, default=16, help="bench/simulate.py's table")
    parser.add_argument("--idle-games", type=int, default=1000, help="bench/games.py's games")
    parser.add_argument("--messages", type=int, default=500, help="bench/ingest.py's mails")
    parser.add_argument(
        "--only",
        default="simulate,games,ingest",
        help="benches to run, of simulate,games,ingest,balance (balance: lockstep only, its "
        "per-core figure, if REF has bench/balance.py)",
    )
    parser.add_argument("--balance-game", default="lupus-in-tabula", help="balance's game")
    parser.add_argument(
        "--balance-players",
        type=int,
        help="balance's table (default: 16 for Lupus, as issue 23's figure, else the game's usual)",
    )
    parser.add_argument("--verbose", action="store_true", help="print each run's output")
    args = parser.parse_args(argv)
    wanted = set(args.only.split(","))
    rev = subprocess.run(
        ["git", "-C", str(HERE), "rev-parse", "--short", args.ref],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    rows: list[Row] = []
    notes: list[str] = []
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="pbembench-ref") as tmp:
        ref_tree = extract(rev, Path(tmp))
        for bench in BENCHES:
            if bench.name not in wanted:
                continue
            if bench.name == "simulate" and not args.whole_runs:
                more_rows, more_notes = lockstep_simulate(ref_tree, args)
                rows += more_rows
                notes += more_notes
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
        if "balance" in wanted:
            more_rows, more_notes = lockstep_balance(ref_tree, args)
            rows += more_rows
            notes += more_notes
    how = [
        f"{name}: {args.pairs} pairs in lockstep"
        if name in ("simulate", "balance") and not (name == "simulate" and args.whole_runs)
        else f"{name}: {args.rounds} alternating whole runs, medians"
        for name in ("simulate", "games", "ingest", "balance")
        if name in wanted
    ]
    print(
        f"REF {rev} vs HEAD; {'; '.join(how)}; simulate --games {args.games} (whole runs), games "
        f"{args.idle_games}, ingest {args.messages} mails; simulate and balance in CPU time; load "
        f"average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    )
    print(table(rows, rev))
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()
