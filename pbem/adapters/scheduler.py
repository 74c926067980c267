"""Deadline timers: APScheduler 3.x AsyncIOScheduler with a MemoryJobStore only (requirement 11).

Never a persistent job store (RELIABILITY §0.3: missed jobs are deleted, grace times frozen,
unpicklable jobs dropped). The service rebuilds every job from game state at start-up and after
each commit; a job only enqueues a work item, and resolution is a compare-and-set in the store.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Collection, Hashable
from datetime import UTC, datetime
from typing import Protocol

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
        self.sched = AsyncIOScheduler(
            jobstores={"default": MemoryJobStore()},
            job_defaults={"misfire_grace_time": None, "coalesce": True, "max_instances": 1},
            timezone=UTC,
        )

    def start(self) -> None:
        """Start on the running loop (job callbacks then run on the writer's thread)."""
        self.sched.start()

    def shutdown(self) -> None:
        if self.sched.running:
            self.sched.shutdown(wait=False)

    def arm(self, job: JobKey, when: datetime, callback: Callable[[], Awaitable[None]]) -> None:
        job_id = str(job)
        self.keys[job_id] = job
        self.sched.add_job(
            callback,
            "date",
            run_date=when,
            id=job_id,
            replace_existing=True,
            misfire_grace_time=None,
            coalesce=True,
            max_instances=1,
        )

    def disarm_game(self, game_id: str, keep: Collection[JobKey]) -> None:
        """Remove the game's jobs but ``keep`` (and forget the keys of jobs that have run)."""
        live = set()
        for job in self.sched.get_jobs():
            key = self.keys.get(job.id)
            if key is not None and key.game_id == game_id and key not in keep:
                job.remove()
            else:
                live.add(job.id)
        self.keys = {i: k for i, k in self.keys.items() if i in live}

    def jobs(self) -> dict[str, datetime]:
        return {j.id: j.trigger.run_date for j in self.sched.get_jobs()}
