"""Benchmark: complete 16-player Lupus games with random legal bots, on one core.

Reports, from one run:
- games per second through the whole pipeline (mail parsing, rules, rendering of every mail),
  counting only the time spent in the pipeline (the bots' own thinking excluded) and also
  wall-clock time with the bots;
- the cost per command (one inbound mail through ``Table.receive``, its mails' HTML parts
  made too: a mail's HTML is made when first read, pbem.table.step.LazyPage);
- the share of the pipeline time spent rendering (a second run with a renderer that returns
  constant text).
Figures are measured, not asserted.

    python bench/simulate.py [--games N] [--players N]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

from pbem.mail.render import Renderer
from pbem.table import Table
from pbem.tools.demo import demo_setup, play
from pbem.tools.simulate import EPOCH


class NullRenderer(Renderer):
    """Renders nothing: isolates the cost of the rules and parsing."""

    def text(self, template: str, lang: str, params: Any) -> str:
        return "subject\nbody"


class Timer:
    """Accumulates the time spent in the wrapped Table methods."""

    def __init__(self) -> None:
        self.total = 0.0
        self.receive = 0.0
        self.commands = 0

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                result = fn(*args, **kwargs)
                if name != "apply":
                    made(result)
                return result
            finally:
                spent = time.perf_counter() - start
                self.total += spent
                if name == "receive":
                    self.receive += spent
                    self.commands += 1

        return timed


def made(step: Any) -> None:
    """Every mail of ``step`` with its HTML part made (a mail's HTML is made when first read:
    the daemon reads it as it writes the outbox)."""
    for mail in step.outgoing:
        assert isinstance(mail.html, str)


def run(games: int, players: int, renderer: Renderer) -> tuple[float, Timer]:
    timer = Timer()
    saved = {n: getattr(Table, n) for n in ("receive", "on_deadline", "apply")}
    for name, fn in saved.items():
        setattr(Table, name, timer.wrap(name, fn))
    try:
        wall = time.perf_counter()
        for seed in range(games):
            start = time.perf_counter()
            table, step = Table.new(
                demo_setup("lupus-in-tabula", players, seed, "en"), EPOCH, renderer
            )
            made(step)
            table.apply(step)
            timer.total += time.perf_counter() - start
            play(table, random.Random(seed))
            assert table.finished
        wall = time.perf_counter() - wall
    finally:
        for name, fn in saved.items():
            setattr(Table, name, fn)
    return wall, timer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", type=int, default=16)
    args = parser.parse_args()
    renderer = Renderer()
    run(3, args.players, renderer)  # warm-up: template compilation
    wall, full = run(args.games, args.players, renderer)
    _, bare = run(args.games, args.players, NullRenderer())
    n = args.games
    print(f"{n} complete {args.players}-player Lupus games, random legal bots, one core")
    print(
        f"  pipeline only : {n / full.total:8.1f} games/s   ({full.commands / n:.0f} commands a game)"
    )
    print(f"  with the bots : {n / wall:8.1f} games/s   (wall clock)")
    print(
        f"  per command   : {1e6 * full.receive / full.commands:8.1f} µs (parse, rules, reply and notices rendered)"
    )
    print(
        f"  without rendering: {n / bare.total:8.1f} games/s; rendering is {1 - bare.total / full.total:.0%} of the pipeline"
    )


if __name__ == "__main__":
    main()
