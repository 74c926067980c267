"""A deadline's timer resolves the deadline instance it was armed for, never a later one of the
same key (engines reuse keys, and an extension keeps the key: RELIABILITY §5.4).

Measured before the fix: a timer armed for a deadline that was then extended (an outage, the
game master's EXTEND) still resolved the extended deadline at the old time, when it fired after
the rearm (APScheduler had already handed its job to the loop, the fetch-first fallback timer,
or the loop's list of due deadlines taken before the mail that moved it)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

from pbem.daemon.jobs import DeadlineJob, Job
from pbem.daemon.service import Service
from pbem.daemon.work import Call
from tests.support.inproc_daemon import World, world

__all__ = ["world"]


class Timers:
    """A scheduler that keeps every callback it was given, replaced or not."""

    def __init__(self) -> None:
        self.armed: list[tuple[Job, datetime, Callable[[], Awaitable[None]]]] = []

    def arm(
        self, job: Job, when: datetime, callback: Callable[[], Awaitable[None]], plan: Any = None
    ) -> None:
        self.armed.append((job, when, callback))

    def disarm_game(self, game_id: str, keep: Any) -> None:
        pass

    def deadline_timers(self) -> list[tuple[datetime, Callable[[], Awaitable[None]]]]:
        return [(when, cb) for job, when, cb in self.armed if isinstance(job, DeadlineJob)]


async def _fire(svc: Service, timer: Callable[[], Awaitable[None]]) -> None:
    """The timer fires; the writer takes what it queued (then a no-op item, waited for)."""
    await timer()
    await svc.work.submit(Call(lambda: None))


def test_a_timer_armed_before_an_extension_does_not_resolve_the_extended_deadline(
    world: World,
) -> None:
    world.new_game(phase_minutes=60)
    svc = world.start()
    timers = Timers()
    svc.deadlines.scheduler = timers
    game = svc.games["g1"]
    svc.deadlines.rearm(game)
    [(first, old_timer)] = timers.deadline_timers()
    world.advance((first - world.now).total_seconds() + 1)  # the deadline has come...
    # ...and is extended (an outage: pushed to now + grace, the same key) and rearmed
    assert svc.deadlines.extend_for_outage(world.now, timedelta(hours=30)) == 1
    svc.deadlines.rearm(game)
    extended = svc.deadlines.effective(game)["phase-1"]
    new_when, new_timer = timers.deadline_timers()[-1]
    assert extended > world.now and new_when == extended

    async def go() -> None:
        worker = asyncio.create_task(svc.worker())
        try:
            await _fire(svc, old_timer)  # the timer of the old deadline fires after all
            assert game.table.deadlines() == {"phase-1": first}, "resolved before its time"
            assert svc.deadlines.effective(game) == {"phase-1": extended}
            world.advance((extended - world.now).total_seconds())
            await _fire(svc, new_timer)  # the timer armed for the extended deadline resolves it
            assert "phase-2" in game.table.deadlines()
        finally:
            svc.request_stop()
            await worker

    asyncio.run(go())
