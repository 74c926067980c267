"""Benchmark: complete 16-player Lupus games with random legal bots, on one core.

Reports games per second through the whole pipeline (mail parsing, rules, rendering of every
mail), the cost per command, and the share of the time spent rendering (a run with a renderer
that returns constant text). Figures are measured in one run; nothing is asserted.

    python bench/simulate.py [--games N] [--players N]
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from pbem.demo import demo_setup, play
from pbem.engine import Table
from pbem.mail.render import Renderer
from pbem.simulate import EPOCH


class NullRenderer(Renderer):
    """Renders nothing: isolates the cost of the rules and parsing."""

    def text(self, template: str, lang: str, params: Any) -> str:
        return "subject\nbody"


def run(games: int, players: int, renderer: Renderer) -> tuple[float, int, float]:
    commands = 0
    receive_time = 0.0
    original = Table.receive

    def timed(self: Table, *args: Any, **kwargs: Any) -> Any:
        nonlocal commands, receive_time
        start = time.perf_counter()
        result = original(self, *args, **kwargs)
        receive_time += time.perf_counter() - start
        commands += 1
        return result

    Table.receive = timed  # type: ignore[method-assign]
    try:
        start = time.perf_counter()
        for seed in range(games):
            table, step = Table.new(
                demo_setup("lupus-in-tabula", players, seed, "en"), EPOCH, renderer
            )
            table.apply(step)
            play(table, random.Random(seed))
            assert table.finished
        elapsed = time.perf_counter() - start
    finally:
        Table.receive = original  # type: ignore[method-assign]
    return elapsed, commands, receive_time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", type=int, default=16)
    args = parser.parse_args()
    renderer = Renderer()
    run(3, args.players, renderer)  # warm-up: template compilation
    full, commands, receive = run(args.games, args.players, renderer)
    bare, _, bare_receive = run(args.games, args.players, NullRenderer())
    print(f"{args.games} complete {args.players}-player games, random legal bots, one core")
    print(
        f"  full pipeline : {args.games / full:8.1f} games/s  ({commands} commands, {1e6 * receive / commands:7.1f} µs per command)"
    )
    print(
        f"  no rendering  : {args.games / bare:8.1f} games/s  ({1e6 * bare_receive / commands:7.1f} µs per command)"
    )
    print(f"  rendering share of the time: {1 - bare / full:.0%}")


if __name__ == "__main__":
    main()
