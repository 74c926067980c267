"""Deadline timers: APScheduler 3.x AsyncIOScheduler with a MemoryJobStore only (requirement 11).

Never a persistent job store (RELIABILITY §0.3: missed jobs are deleted, grace times frozen,
unpicklable jobs dropped). The service rebuilds every job from game state at start-up and after
each commit; a job only enqueues a work item, and resolution is a compare-and-set in the store.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from apscheduler.jobstores.memory import MemoryJobStore
from apscheduler.schedulers.asyncio import AsyncIOScheduler

logging.getLogger("apscheduler").setLevel(logging.WARNING)  # one line per job is noise


class DeadlineScheduler:
    """Date jobs keyed ``<game>:<deadline key>``; a job passed while down runs at once."""

    def __init__(self) -> None:
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

    def arm(self, job_id: str, when: datetime, callback: Callable[[], Awaitable[None]]) -> None:
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

    def disarm_prefix(self, prefix: str, keep: set[str]) -> None:
        for job in self.sched.get_jobs():
            if job.id.startswith(prefix) and job.id not in keep:
                job.remove()

    def jobs(self) -> dict[str, datetime]:
        return {j.id: j.trigger.run_date for j in self.sched.get_jobs()}
