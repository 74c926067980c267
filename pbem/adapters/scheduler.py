"""Deadline timers: APScheduler 3.x AsyncIOScheduler with a MemoryJobStore only (requirement 11).

Never a persistent job store (RELIABILITY §0.3: missed jobs are deleted, grace times frozen,
unpicklable jobs dropped). The service rebuilds every job from game state at start-up and after
each commit; a job only enqueues a work item, and resolution is a compare-and-set in the store.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Collection, Hashable
from datetime import UTC, datetime
from typing import Protocol

from apscheduler.jobstores.base import JobLookupError
from apscheduler.jobstores.memory import MemoryJobStore
from apscheduler.schedulers.asyncio import AsyncIOScheduler

logging.getLogger("apscheduler").setLevel(logging.WARNING)  # one line per job is noise


class JobKey(Hashable, Protocol):
    """A job's typed key (:mod:`pbem.daemon.jobs`): its game, and its text as the job id."""

    @property
    def game_id(self) -> str: ...


class DeadlineScheduler:
    """Date jobs by a typed key (its text is the job id); a job passed while down runs at once."""

    def __init__(self) -> None:
        self.keys: dict[str, JobKey] = {}
        self.armed: dict[str, tuple[datetime, Hashable]] = {}
        """Each job armed with a ``plan`` and not run yet: its time and plan (:meth:`arm`)."""
        self.by_game: dict[str, set[str]] = {}
        """The ids of each game's armed jobs: a game's rearm touches its own jobs, not every
        job of every game (30,000 jobs at 10,000 games, at start-up and after each commit)."""
        self.sched = AsyncIOScheduler(
            jobstores={"default": MemoryJobStore()},
            job_defaults={"misfire_grace_time": None, "coalesce": True, "max_instances": 1},
            timezone=UTC,
        )

    def start(self) -> None:
        """Start on the running loop (job callbacks then run on the writer's thread)."""
        self.sched.start()

    def shutdown(self) -> None:
        """Stop the scheduler if it runs, without waiting for a job in progress."""
        if self.sched.running:
            self.sched.shutdown(wait=False)

    def arm(
        self,
        job: JobKey,
        when: datetime,
        callback: Callable[[], Awaitable[None]],
        plan: Hashable | None = None,
    ) -> None:
        """Run ``callback`` at ``when`` as ``job`` (replacing what ``job`` was armed with).

        ``plan``: what the callback does, as a value; a job still armed (not run) for the same
        time with an equal plan is left as it is: the service rearms a game after every mail,
        and replacing an APScheduler job costs about 0.17 ms (issue 23: ingest)."""
        job_id = str(job)
        mark = (when, plan)
        if plan is not None and self.armed.get(job_id) == mark and job_id in self.keys:
            return
        self.keys[job_id] = job
        self.by_game.setdefault(job.game_id, set()).add(job_id)
        if plan is None:
            self.armed.pop(job_id, None)
        else:
            self.armed[job_id] = mark
        self.sched.add_job(
            _run,
            "date",
            args=(self.armed, job_id, mark, callback),  # lighter than a closure: 3 jobs a game
            run_date=when,
            id=job_id,
            replace_existing=True,
            misfire_grace_time=None,
            coalesce=True,
            max_instances=1,
        )

    def disarm_game(self, game_id: str, keep: Collection[JobKey]) -> None:
        """Remove the game's jobs but ``keep`` (and forget the keys of those removed or run)."""
        ids = self.by_game.get(game_id, set())
        for job_id in list(ids):
            if self.keys.get(job_id) in keep:
                continue
            # no look-up first: before start() APScheduler keeps its jobs in a list it scans
            with contextlib.suppress(JobLookupError):  # a date job that ran is gone already
                self.sched.remove_job(job_id)
            ids.discard(job_id)
            self.keys.pop(job_id, None)
            self.armed.pop(job_id, None)
        if not ids:
            self.by_game.pop(game_id, None)

    def jobs(self) -> dict[str, datetime]:
        """Each armed job's id and when it fires."""
        return {j.id: j.trigger.run_date for j in self.sched.get_jobs()}


# a coroutine function: AsyncIOScheduler runs it on the loop (a plain function would run in a
# thread pool, off the single writer's thread)
async def _run(
    armed: dict[str, tuple[datetime, Hashable]],
    job_id: str,
    mark: tuple[datetime, Hashable],
    callback: Callable[[], Awaitable[None]],
) -> None:
    """A job's run: no longer armed (the next :meth:`DeadlineScheduler.arm` adds it again),
    then its callback."""
    if armed.get(job_id) == mark:
        del armed[job_id]
    await callback()
