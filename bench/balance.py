"""Benchmark: whole games through the rules only (pbem/balance/fastgame.py), per game.

Reports, from one run:
- games per second per core: one process, CPU time (so a busy machine changes it little);
- the wall time of ``--games`` games over ``--jobs`` worker processes (``pbem balance``'s
  own path: pbem.balance.run.play_many), against issue 23's target of 10,000 in a minute.
Figures are measured, not asserted.

    python bench/balance.py [--games 10000] [--per-core 200] [--jobs 2] [--game ID]
"""

from __future__ import annotations

import argparse
import random
import time

from pbem.balance.fastgame import RulesGame, play_rules
from pbem.balance.run import Setup, fewer_collections, play_many
from pbem.tools.demo import USUAL_PLAYERS, demo_setup


def per_core(game: str, players: int, games: int) -> float:
    play_rules(RulesGame.new(demo_setup(game, players, 10**6, "fr")), random.Random(0))  # warm
    with fewer_collections():  # as pbem balance plays them (pbem.balance.run)
        start = time.process_time()
        for seed in range(games):
            played = play_rules(
                RulesGame.new(demo_setup(game, players, seed, "fr")), random.Random(seed)
            )
            assert played.finished
        return games / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=10000, help="games of the parallel run")
    parser.add_argument("--per-core", type=int, default=200, help="games of the one-core run")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--game", action="append", help="only this game (repeat)")
    args = parser.parse_args()
    games = args.game or list(USUAL_PLAYERS)
    print(f"rules-only games, random legal bots; parallel runs on {args.jobs} processes")
    if "lupus-in-tabula" in games:
        rate = per_core("lupus-in-tabula", 16, args.per_core)
        print(f"  lupus-in-tabula, 16 players : {rate:7.1f} games/s per core (CPU time)")
    for game in games:
        n = USUAL_PLAYERS[game]
        rate = per_core(game, n, args.per_core)
        wall = time.perf_counter()
        play_many(Setup(game), args.games, jobs=args.jobs)
        wall = time.perf_counter() - wall
        print(
            f"  {game:<20} {n:>2} players: {rate:7.1f} games/s per core; "
            f"{args.games} games in {wall:6.1f} s wall ({args.games / wall:6.1f} games/s)"
        )


if __name__ == "__main__":
    main()
