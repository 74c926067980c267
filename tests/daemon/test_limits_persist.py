"""Rate limits that survive a restart (pbem.daemon.limits, requirement 8): the per-sender windows and
the global cap are written with the outbox writes they allowed and reloaded at start-up."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

from pbem.adapters.store import GameStore
from pbem.daemon.limits import GlobalCap, SenderLimits, merge_windows
from tests.support import fake_table
from tests.support.daemon_process import Daemon, mail, send, wait_for, write_config
from tests.support.inproc_daemon import T0, World, cmd, make_cfg, world
from tests.support.mailstack import ADMIN, MODERATOR, MailStack

__all__ = ["world"]  # the fixture


def _no_game(sender: str, i: int) -> EmailMessage:
    return mail(sender, f"hello {i}\n", subject=f"hi {i}")


def test_error_reply_window_survives_a_restart(world: World) -> None:
    frank = "frank@example.test"
    svc = world.start()
    svc.writer.handle_batch(world.fetched(_no_game(frank, 1)))
    assert [r["rcpts"] for r in world.daemon_store().outbox()] == [[frank]]
    world.now += timedelta(minutes=30)
    svc = world.start()  # a restart (or a crash loop) within the hour
    svc.writer.handle_batch(world.fetched(_no_game(frank, 2)))
    assert len(world.daemon_store().outbox()) == 1, "no second error reply within the hour"
    assert svc.stats.get("processed") == 1
    world.now += timedelta(minutes=31)
    svc = world.start()
    svc.writer.handle_batch(world.fetched(_no_game(frank, 3)))
    assert len(world.daemon_store().outbox()) == 2, "the hour has passed"


def test_daily_window_is_persisted_with_the_game_rows(world: World) -> None:
    """Receipts count toward the daily number; the hits live in the game's head, in the same
    write as the receipts, and a restart reads them back."""
    world.engine = fake_table.Table
    world.cfg = make_cfg(world.cfg.data_dir.parent, autos_per_day=2)
    world.new_game()
    svc = world.start()
    svc.writer.handle_batch(world.fetched(cmd("alice", "a1")))
    svc.writer.handle_batch(world.fetched(cmd("alice", "a2")))
    head = GameStore(world.cfg.data_dir / "games" / "g1", readonly=True).limit_windows()
    assert len(head["auto:alice@example.test"]) == 2


def test_members_reply_budget_is_persisted_with_the_game_rows(world: World) -> None:
    """Replies that change nothing to a player (issue 10 item 7: a token bucket, a burst then
    a pace): its hits live in the game's head with the replies, and a restart reads them back,
    so a restart does not refill the burst."""
    world.engine = fake_table.Table
    world.cfg = make_cfg(world.cfg.data_dir.parent, reply_burst=2, replies_per_hour=1)
    world.new_game()

    def no_command(i: int) -> EmailMessage:
        return mail("alice@example.test", f"status {i}", to="moderator+g1@example.test")

    def outbox() -> int:
        return len(GameStore(world.cfg.data_dir / "games" / "g1", readonly=True).outbox())

    svc = world.start()
    n = outbox()
    svc.writer.handle_batch(world.fetched(no_command(1)))
    svc.writer.handle_batch(world.fetched(no_command(2)))
    assert outbox() == n + 2, "a second reply that changes nothing is answered"
    head = GameStore(world.cfg.data_dir / "games" / "g1", readonly=True).limit_windows()
    assert len(head["reply:alice@example.test"]) == 2
    svc = world.start()
    svc.writer.handle_batch(world.fetched(no_command(3)))
    assert outbox() == n + 2
    assert svc.stats.get("rate_limited") == 1


def test_global_cap_survives_a_restart(world: World) -> None:
    world.cfg = make_cfg(world.cfg.data_dir.parent, outbound_cap_per_hour=2, errors_per_hour=5)

    def replies_sent() -> int:
        return sum(r != [ADMIN] for r in world.transport.sent)  # alerts bypass the cap

    svc = world.start()
    svc.writer.handle_batch(world.fetched(*[_no_game(f"u{i}@example.test", i) for i in range(3)]))
    asyncio.run(svc.sender.drain_once())
    assert replies_sent() == 2, "the cap holds the third reply"
    assert len(world.daemon_store().limit_windows()["cap"]) == 2, "written with the removals"
    world.now += timedelta(minutes=10)
    svc = world.start()
    asyncio.run(svc.sender.drain_once())
    assert replies_sent() == 2, "a restart does not reset the cap"
    world.now += timedelta(minutes=51)
    svc = world.start()
    asyncio.run(svc.sender.drain_once())
    assert replies_sent() == 3


def test_windows_merge_and_prune() -> None:
    lim = SenderLimits(errors_per_hour=1, autos_per_day=3)
    for i in range(5):
        lim.allow("A@x", T0 + timedelta(minutes=i), error=False)
    ch = lim.changes()
    assert list(ch) == ["auto:a@x"] and len(ch["auto:a@x"]) == 3, "only the newest `limit` kept"
    assert lim.changes() == {}
    # two stores, each with the whole window at its own last write: counted once, not twice
    t = [(T0 + timedelta(minutes=i)).timestamp() for i in range(3)]
    merged = merge_windows([{"auto:a@x": t[:2]}, {"auto:a@x": t}, {"auto:a@x": [t[0], t[0]]}])
    assert merged == {"auto:a@x": [t[0], t[0], t[1], t[2]]}
    fresh = SenderLimits(errors_per_hour=1, autos_per_day=3)
    fresh.restore({"auto:a@x": t, "err:a@x": [t[2]]}, T0 + timedelta(minutes=30))
    assert not fresh.allow("a@x", T0 + timedelta(minutes=30), error=True)
    fresh.restore({"err:a@x": [t[2]]}, T0 + timedelta(hours=2))
    cap = GlobalCap(per_hour=1)
    cap.restore({"cap": [t[0]]}, T0 + timedelta(minutes=5))
    assert not cap.try_send(T0 + timedelta(minutes=5))
    assert cap.try_send(T0 + timedelta(minutes=61))


def test_error_reply_limit_survives_a_daemon_restart(stack: MailStack, tmp_path: Path) -> None:
    cfg = write_config(stack, tmp_path, extra_imap="idle_renew = 1")
    frank = "frank@example.test"
    d = Daemon(cfg).start()
    try:
        send(stack, mail(frank, "hello"))
        wait_for(lambda: stack.messages(frank), what="the error reply", log=d.log)
        assert d.stop() == 0
        d.start()
        send(stack, mail(frank, "hello again"))
        wait_for(
            lambda: len(stack.messages(MODERATOR, "Processed")) == 2,
            what="the second mail handled",
            log=d.log,
        )
        assert d.stop() == 0
        assert len(stack.messages(frank)) == 1, "no second error reply within the hour"
    finally:
        d.kill()


def test_a_window_exports_its_times_as_posix_seconds_through_hits_trims_and_restores() -> None:
    """Issue 23: a window keeps its times as POSIX seconds beside them (exported after each
    hit); they stay the times' own, whatever expired or was dropped past the limit."""
    import random
    from collections import deque
    from datetime import UTC, datetime

    from pbem.daemon.limits import Window

    rng = random.Random(23)
    start = datetime(2030, 1, 1, tzinfo=UTC)
    w = Window(5, timedelta(hours=1), deque([start - timedelta(minutes=30)]))
    now = start
    for _ in range(300):
        now += timedelta(seconds=rng.choice([1, 7.5, 600, 1800, 5000]))
        if rng.random() < 0.1:
            w.restore([*w.export(), now.timestamp() - 10.000001], now)
        elif w.allowed(now) or rng.random() < 0.5:
            w.hit(now)
        assert w.export() == [t.timestamp() for t in w.times]
        assert len(w.times) <= 5
