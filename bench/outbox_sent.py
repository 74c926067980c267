"""Cost of marking an outbox row sent, in a game head as a by-mail game holds one (issue 11).

The head holds 200 events (a game day or two), and a commit's worth of replies waits in the
outbox (12 mails of about 3 KB); each is sent, then marked sent. Printed: the CPU time and the
wall time per mark (the wall time includes the fsyncs, which depend on the disk), and, for
context, per commit of one event with one reply. Run: PYTHONPATH=. python bench/outbox_sent.py
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from pbem.adapters.store import GameStore

EVENT = {"type": "VoteCast", "voter": "Alice", "target": "Bob", "round": 1, "day": 3}
RAW = "Subject: Re: Jour 3\r\n\r\n" + "Votre vote contre Bob est enregistré.\r\n" * 80


def measure(gs: GameStore, rounds: int, rows: int) -> tuple[float, float, float]:
    """Median CPU and wall seconds per mark, and median wall seconds per commit."""
    cpu, wall, commits = [], [], []
    n = 0
    for r in range(rounds):
        batch = [
            {"message_id": f"<{n + i}@b>", "raw": RAW, "rcpts": ["a@example.org"]}
            for i in range(rows)
        ]
        n += rows
        t = time.perf_counter()
        gs.commit(events=[EVENT], outbox=batch, ledger_key=f"k{r}")
        commits.append(time.perf_counter() - t)
        for row in batch:
            c, t = time.process_time(), time.perf_counter()
            gs.outbox_done(str(row["message_id"]))
            cpu.append(time.process_time() - c)
            wall.append(time.perf_counter() - t)
    return statistics.median(cpu), statistics.median(wall), statistics.median(commits)


def main() -> None:
    argparse.ArgumentParser(
        prog="bench/outbox_sent.py",
        description="Time marking outbox rows sent (CPU and wall, median of 240) and one commit of a 200-event game's head.",
    ).parse_args()
    with tempfile.TemporaryDirectory() as d:
        gs = GameStore.create(Path(d), "g", {"game": "x"}, [EVENT] * 200, [])
        cpu, wall, commit = measure(gs, rounds=20, rows=12)
        size = (gs.dir / "head.json").stat().st_size
    print(
        f"mark sent: {cpu * 1000:.3f} ms CPU, {wall * 1000:.3f} ms wall (median of 240); "
        f"commit: {commit * 1000:.2f} ms wall; head {size / 1024:.0f} KB"
    )


if __name__ == "__main__":
    main()
