"""Commit cost of one command at 100 and at 10,000 events in a game (issue 3 item 10).

Target: ratio (10,000 / 100) at most 1.5. One "command" = one atomic commit of one event, one
outbox row (a ~1 KB reply) and one ledger key, as the daemon does per inbound mail. For context,
the same with one plain tinydb file per game (JSONStorage-style, the whole log in one file).
Run: PYTHONPATH=. python bench/commit.py
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from pbem.adapters.store import AtomicDB, GameStore

ROW = {
    "message_id": "<x@example.test>",
    "raw": "x" * 1000,
    "rcpts": ["a@example.test"],
    "status": "pending",
}
EVENT = {"type": "VoteCast", "voter": "Alice", "target": "Bob", "round": 1, "day": 3}


def grow(gs: GameStore, n: int) -> None:
    for i in range(n - len(gs.events())):
        gs.commit(events=[EVENT], ledger_key=f"grow{i}")


def per_commit(gs: GameStore, reps: int) -> float:
    times = []
    for i in range(reps):
        t = time.perf_counter()
        gs.commit(events=[EVENT], outbox=[dict(ROW, message_id=f"<{i}@b>")], ledger_key=f"k{i}")
        times.append(time.perf_counter() - t)
        gs.outbox_done(f"<{i}@b>")  # the sender empties the outbox meanwhile
    return statistics.median(times)


def naive(path: Path, n: int, reps: int) -> float:
    db = AtomicDB(path)
    with db.transaction():
        for i in range(n):
            db.table("events").insert(EVENT)
            db.table("ledger").insert({"key": f"g{i}"})
    times = []
    for i in range(reps):
        t = time.perf_counter()
        with db.transaction():
            db.table("events").insert(EVENT)
            db.table("ledger").insert({"key": f"k{i}"})
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    argparse.ArgumentParser(
        prog="bench/commit.py",
        description="Time a commit of the segmented store at 100 and 10,000 events (target: ratio <= 1.5), against a single-file tinydb for contrast.",
    ).parse_args()
    reps = 200
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        small = GameStore.create(root, "small", {"game": "x"}, [EVENT] * 100, [])
        big = GameStore.create(root, "big", {"game": "x"}, [], [])
        grow(big, 10_000)
        a = per_commit(small, reps)
        b = per_commit(big, reps)
        na = naive(root / "naive100.json", 100, 50)
        nb = naive(root / "naive10k.json", 10_000, 50)
    print(
        f"segmented store: {a * 1000:.2f} ms/commit at 100 events, "
        f"{b * 1000:.2f} ms at 10,000 events: ratio {b / a:.2f} (target <= 1.5)"
    )
    print(
        f"single-file tinydb for contrast: {na * 1000:.2f} ms at 100, {nb * 1000:.2f} ms at "
        f"10,000: ratio {nb / na:.2f}"
    )


if __name__ == "__main__":
    main()
