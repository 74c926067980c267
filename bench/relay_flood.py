"""A relayed list under one poster's flood, and a head holding posts with photos (issue 10
item 16). In-process (tests/support/inproc_daemon.py: the real coordinator, store and sender task on a
virtual clock, the fake engine), so the same script measures any version of the daemon.

1. Flood: alice posts 600 times to the relayed list in the first ten minutes of a phase
   (``[daemon] outbound_cap_per_hour`` = 200); the phase's result is queued at its deadline,
   an hour in. The sender drains as mail arrives, on the virtual clock; printed: how long the
   result waited in the outbox, and how many of the posts went out.
2. Held posts: 20 night posts with a 1 MB photo each are held until morning; printed: the
   game head's size, and the median time of one ordinary commit (a private command: one atomic
   rewrite of the head, fsync included) with the posts held, against a game without (in
   turns, on the same disk).

Run: PYTHONPATH=. python bench/relay_flood.py
"""

from __future__ import annotations

import argparse
import asyncio
import email
import logging
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # tests.support, run from a shell

from pbem.adapters.smtp import SendResult
from pbem.cli.newgame import create_game
from tests.support.daemon_process import mail
from tests.support.inproc_daemon import PLAYERS, World
from tests.support.mailstack import LIST


class Clocked:
    """Accepts everything; records (virtual time, Subject) of each mail sent."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.sent: list[tuple[datetime, str]] = []

    async def send(self, mail_from: str, rcpts: Sequence[str], raw: bytes) -> SendResult:
        self.sent.append((self.world.now, str(email.message_from_bytes(raw)["Subject"])))
        return SendResult(sent=list(rcpts))


def relay_world(tmp: Path, games: Sequence[str] = ("g1",)) -> World:
    world = World(tmp, list_mode="relay", outbound_cap_per_hour=200, autos_per_day=10**6)
    for gid in games:
        setup = {
            "game": "fake",
            "game_id": gid,
            "players": [{"name": p, "email": f"{p}@example.test"} for p in PLAYERS],
            "list": LIST if gid == "g1" else f"{gid}@lists.example.test",
        }
        create_game(world.cfg, setup, world.engine, world.now)
    return world


def flood(tmp: Path, posts: int = 600) -> tuple[timedelta, int]:
    world = relay_world(tmp)
    transport = Clocked(world)
    world.transport = transport  # type: ignore[assignment]
    svc = world.start()
    start = world.now

    def drain() -> None:
        asyncio.run(svc.sender.drain_once())

    for i in range(0, posts, 10):
        world.now = start + timedelta(seconds=i)
        batch = [mail("alice@example.test", f"Post {j}\n", to=LIST) for j in range(i, i + 10)]
        svc.writer.handle_batch(world.fetched(*batch))
        drain()
    due = start + timedelta(minutes=60)  # the fake phase's deadline
    while world.now < due:
        world.now = min(due, world.now + timedelta(minutes=1))
        drain()
    assert svc.deadlines.resolve("g1", "phase-1", due)
    while not any("result" in s for _t, s in transport.sent):
        drain()
        world.now += timedelta(minutes=1)
        if world.now > due + timedelta(hours=12):
            raise AssertionError("the result never went out")
    sent_at = next(t for t, s in transport.sent if "result" in s)
    relayed = sum(1 for _t, s in transport.sent if s.startswith("[g1] orders"))
    world.close()
    return sent_at - due, relayed


def commit_ms(world: World, games: Sequence[str], n: int = 30, warm: int = 5) -> list[float]:
    """Per game, the median time to handle one private command (one commit of its head);
    the games take turns, so the disk's varying fsync latency weighs on each alike."""
    svc = world.svc
    assert svc is not None
    times: dict[str, list[float]] = {g: [] for g in games}
    for i in range(warm + n):
        for gid in games:
            world.now += timedelta(seconds=1)
            m = mail("bob@example.test", f"CMD w{i}\n", to=f"moderator+{gid}@example.test")
            fetched = world.fetched(m)
            t = time.perf_counter()
            svc.writer.handle_batch(fetched)
            if i >= warm:
                times[gid].append(time.perf_counter() - t)
    return [statistics.median(times[g]) * 1000 for g in games]


def held(tmp: Path, count: int = 20, photo: int = 1_000_000) -> tuple[int, float, float]:
    """g1 holds ``count`` night posts with a photo each, g2 none."""
    world = relay_world(tmp, ("g1", "g2"))
    svc = world.start()
    assert svc.deadlines.resolve("g1", "phase-1", world.now)  # night: posts are held
    for i in range(count):
        m = mail("alice@example.test", f"Photo {i}\n", to=LIST)
        m.add_attachment(bytes([i]) * photo, "image", "jpeg", filename=f"IMG_{i:04d}.jpg")
        svc.writer.handle_batch(world.fetched(m))
    size = (world.cfg.data_dir / "games" / "g1" / "head.json").stat().st_size
    loaded, base = commit_ms(world, ("g1", "g2"))
    world.close()
    return size, base, loaded


def main() -> None:
    logging.getLogger("pbem").setLevel(logging.ERROR)  # the refused posts' warnings
    parser = argparse.ArgumentParser(
        prog="bench/relay_flood.py",
        description=(
            "One poster floods the relayed list for 10 minutes under the 200-an-hour cap: how "
            "long the phase result waits in the outbox, and what held night posts cost a commit."
        ),
    )
    parser.add_argument("posts", nargs="?", type=int, default=600, help="posts (default 600)")
    posts = parser.parse_args().posts
    with tempfile.TemporaryDirectory(prefix="pbembench") as d:
        delay, relayed = flood(Path(d) / "flood", posts)
        size, base, loaded = held(Path(d) / "held")
    print(
        f"flood: {posts} relayed posts from one poster in 10 min, cap 200/h: the phase result "
        f"waited {delay.total_seconds() / 60:.0f} min in the outbox; "
        f"{relayed} of the posts had gone out by then"
    )
    print(
        f"held: 20 night posts with a 1 MB photo: head {size / 1e6:.2f} MB; one commit "
        f"{loaded:.1f} ms with them held, {base:.1f} ms in a game without ({loaded / base:.1f}x)"
    )


if __name__ == "__main__":
    main()
