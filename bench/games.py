"""1,000 concurrent games: resident memory of the daemon's state and its idle poll cycle
(issue 3 item 10; targets: under 300 MB, under 100 ms per idle cycle).

Creates N Lupus in Tabula games (8 players each, the real engine) in a data directory, then, in a
fresh process, opens them as ``pbem serve`` does (load every game, arm every deadline in the
APScheduler MemoryJobStore) and times idle cycles against a private Dovecot with an empty INBOX:
new-game scan + shunt-retry spool check + UID SEARCH + NOOP (the IDLE wait itself excluded).
Run: PYTHONPATH=. python bench/games.py [N | --games N] (``--help``: every option)
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # tests.support, run from a shell

from pbem.adapters.store import GameStore
from pbem.table import Table

PLAYERS = ("Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi")


def create(root: Path, n: int) -> None:
    now = datetime.now(UTC)
    for i in range(n):
        gid = f"game{i:04d}"
        setup = {
            "game": "lupus-in-tabula",
            "game_id": gid,
            "seed": i,
            "lang": "fr",
            "players": [{"name": p, "email": f"{p.lower()}{i}@example.test"} for p in PLAYERS],
            "moderator": "moderator@example.test",
            "list": "game@lists.example.test",
        }
        _table, step = Table.new(setup, now)
        GameStore.create(root, gid, setup, step.events, [])


async def measure(cfg_path: Path) -> None:
    from pbem.adapters.imap import ImapMailbox
    from pbem.adapters.scheduler import DeadlineScheduler
    from pbem.daemon.config import load
    from pbem.daemon.operator.retry_shunt import RetryShunt
    from pbem.daemon.operator.spool import drain
    from pbem.daemon.service import Service, no_cyclic_gc

    cfg = load(cfg_path)
    sched = DeadlineScheduler()
    t = time.perf_counter()
    svc = Service(cfg=cfg, engine=Table, transport=None, scheduler=sched)  # type: ignore[arg-type]
    svc.open()
    with no_cyclic_gc():
        for g in svc.games.values():
            svc.deadlines.rearm(g)
    sched.start()
    svc.settle_heap()
    load_s = time.perf_counter() - t
    box = ImapMailbox(cfg.imap)
    await asyncio.to_thread(box.connect)
    cycles = []
    for _ in range(50):
        t = time.perf_counter()
        svc.scan_games_and_rearm()
        drain(svc, RetryShunt)
        await asyncio.to_thread(box.pending_uids)
        await asyncio.to_thread(box._c().noop)
        cycles.append(time.perf_counter() - t)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{len(svc.games)} games: loaded and armed in {load_s:.1f} s; "
        f"{len(sched.jobs())} deadline jobs; peak RSS {rss:.0f} MB (target < 300); "
        f"idle poll cycle median {statistics.median(cycles) * 1000:.1f} ms, "
        f"max {max(cycles) * 1000:.1f} ms (target < 100)"
    )
    box.close()
    sched.shutdown()
    svc.close()


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    """``[N | --games N]`` (1,000 by default), or ``--measure CONFIG`` (the second process)."""
    parser = argparse.ArgumentParser(
        prog="bench/games.py",
        description=(
            "Create N 8-player Lupus games (Table.new then GameStore.create) and print the "
            "wall and CPU time, then load them all in a fresh process as `pbem serve` does "
            "and print the load time, peak RSS and the idle poll cycle's median and max."
        ),
    )
    parser.add_argument(
        "count", nargs="?", type=int, metavar="N", help="how many games (default 1000)"
    )
    parser.add_argument("--games", type=int, metavar="N", help="the same as the positional N")
    parser.add_argument(
        "--measure",
        type=Path,
        metavar="CONFIG",
        help="only load the games of this daemon config and time idle cycles (the second "
        "process the bench starts itself)",
    )
    args = parser.parse_args(argv)
    if args.count is not None and args.games is not None and args.count != args.games:
        parser.error("give N once: positionally or with --games")
    if args.games is None:
        args.games = 1000 if args.count is None else args.count
    return args


def main() -> None:
    args = arguments()
    if args.measure is not None:
        asyncio.run(measure(args.measure))
        return
    n = args.games
    from tests.support.daemon_process import env, write_config
    from tests.support.mailstack import MODERATOR, MailStack

    stack = MailStack([MODERATOR]).start()
    try:
        with tempfile.TemporaryDirectory(prefix="pbembench") as d:
            tmp = Path(d)
            cfg = write_config(stack, tmp, engine="pbem.table:Table")
            t, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
            create(tmp / "data", n)
            wall, after = time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF)
            user = after.ru_utime - before.ru_utime
            system = after.ru_stime - before.ru_stime
            # the CPU time too, user and system apart: on a shared machine the wall clock
            # counts the others' disk and CPU load, and the system time the kernel's state
            # (the same mkdir and open cost ten times more some minutes: issue 23)
            print(
                f"created {n} games in {wall:.1f} s "
                f"(CPU {user + system:.1f} s: user {user:.2f} s, system {system:.2f} s)"
            )
            r = subprocess.run([sys.executable, __file__, "--measure", str(cfg)], env=env())
            if r.returncode != 0:
                print(
                    "dovecot:",
                    stack.dovecot.proc and stack.dovecot.proc.poll(),
                    stack.dovecot.log()[-2000:],
                )
    finally:
        stack.close()


if __name__ == "__main__":
    main()
