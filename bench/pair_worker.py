"""One side of ``bench/compare.py``'s lockstep mode: a long-lived process that plays one slice
of its own tree's bench each time the parent asks, and answers with that slice's CPU time.

Run from a side's tree with ``PYTHONPATH`` set to it (its ``pbem``, its ``bench/``). The parent
writes one JSON line per slice and reads one back:
- ``simulate``: ``{"seed": 7, "bare": false}`` plays seed 7 through that side's
  ``bench/simulate.py`` ``run`` (with its ``NullRenderer`` if bare) and answers
  ``{"seconds": pipeline, "receive": s, "commands": n}``; with ``"games": 4`` it plays seeds
  28 to 31 (the 7th four) in a row;
- ``balance``: ``{"seed": 7, "games": 5}`` plays seeds 35 to 39 (the 7th five) through that side's
  ``bench/balance.py`` ``per_core`` and answers ``{"seconds": s}``.
Each side's own bench code is called, so REF's is measured as REF wrote it. Both play
``range(games)``: the module's ``range`` is shadowed for the call to give the seeds asked.
``time.perf_counter`` reads the process's CPU time, as under ``bench/cpu_clock.py``.

    python bench/pair_worker.py simulate|balance [--players N] [--game ID]
"""

from __future__ import annotations

import argparse
import builtins
import importlib.util
import json
import os
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any


def side_bench(name: str) -> ModuleType:
    """This side's ``bench/NAME.py`` (the current directory is the side's tree)."""
    spec = importlib.util.spec_from_file_location(f"side_{name}", Path(f"bench/{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def seeds(bench: ModuleType, first: int, count: int) -> Any:
    """``bench``'s ``range(count)`` made ``range(first, first + count)`` until reset."""
    bench.range = lambda _count: builtins.range(first, first + count)  # type: ignore[attr-defined]
    return bench


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("bench", choices=("simulate", "balance"))
    parser.add_argument("--players", type=int, default=16)
    parser.add_argument("--game", default="lupus-in-tabula", help="balance's game")
    args = parser.parse_args()
    # this script's own directory (HEAD's bench/) must not shadow the side's modules
    if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
        sys.path.pop(0)
    time.perf_counter = time.process_time
    # the answers go to the parent on a private copy of stdout, anything the bench prints to
    # stderr
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    bench = side_bench(args.bench)
    if args.bench == "simulate":
        # one of each for the whole run, as the bench's main keeps its renderer (templates
        # compiled once)
        renderers = {False: bench.Renderer(), True: bench.NullRenderer()}
    for line in sys.stdin:
        asked = json.loads(line)
        answer: dict[str, float]
        if args.bench == "simulate":
            games = asked.get("games", 1)
            first = asked["seed"] * games  # no seed played twice: a replay may find it cached
            renderer = renderers[asked["bare"]]
            _, timer = seeds(bench, first, games).run(games, args.players, renderer)
            answer = {"seconds": timer.total, "receive": timer.receive, "commands": timer.commands}
        else:
            games = asked["games"]
            first = asked["seed"] * games  # no seed played twice: a replay may find it cached
            rate = seeds(bench, first, games).per_core(args.game, args.players, games)
            answer = {"seconds": games / rate}
        del bench.range
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
