"""The scheduler's jobs are found by a typed key, not by a prefix of their id (issue 11)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from pbem.adapters.scheduler import DeadlineScheduler
from pbem.daemon.jobs import DeadlineJob, ReminderJob

WHEN = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


async def _nothing() -> None:
    return None


def test_disarming_a_game_removes_its_jobs_but_those_kept_and_no_other_games() -> None:
    sched = DeadlineScheduler()
    kept = DeadlineJob("g1", "phase-2")
    for job in (
        DeadlineJob("g1", "phase-1"),
        ReminderJob("g1", "phase-1", 1.0),
        kept,
        DeadlineJob("g10", "phase-1"),
        DeadlineJob("g1:x", "phase-1"),
    ):
        sched.arm(job, WHEN, _nothing)
    sched.disarm_game("g1", keep={kept})
    # the ids the operator sees stay as they were: <game>:<key>[:remind:<hours>]
    assert set(sched.jobs()) == {"g1:phase-2", "g10:phase-1", "g1:x:phase-1"}


def _counting(sched: DeadlineScheduler) -> list[str]:
    added: list[str] = []
    real = sched.sched.add_job

    def add_job(*args: Any, **kwargs: Any) -> Any:
        added.append(kwargs["id"])
        return real(*args, **kwargs)

    sched.sched.add_job = add_job  # type: ignore[method-assign]
    return added


def test_a_job_armed_again_for_the_same_time_and_plan_is_left_alone() -> None:
    """Issue 23 (ingest): the service rearms a game after every mail; a job still armed for
    the same time with the same plan is not replaced (an APScheduler replace costs ~0.17 ms).
    Another time, another plan, no plan, or a job disarmed since: armed again."""
    sched = DeadlineScheduler()
    added = _counting(sched)
    job, later = DeadlineJob("g1", "phase-1"), WHEN + timedelta(hours=1)
    sched.arm(job, WHEN, _nothing, "fall")
    sched.arm(job, WHEN, _nothing, "fall")
    assert added == ["g1:phase-1"]
    sched.arm(job, later, _nothing, "fall")
    sched.arm(job, later, _nothing, "other")
    sched.arm(job, later, _nothing)
    sched.arm(job, later, _nothing)
    assert len(added) == 5
    sched.arm(job, later, _nothing, "fall")
    sched.disarm_game("g1", keep=())
    sched.arm(job, later, _nothing, "fall")
    assert len(added) == 7 and sched.jobs() == {"g1:phase-1": later}


def test_a_job_that_ran_is_armed_again_by_the_same_plan() -> None:
    """A job that ran is no longer armed: the same time and plan arm it again, and it runs."""
    runs: list[int] = []

    async def scenario() -> None:
        sched = DeadlineScheduler()
        sched.start()
        ran = asyncio.Event()

        async def fire() -> None:
            runs.append(1)
            ran.set()

        job, past = DeadlineJob("g1", "phase-1"), datetime.now(UTC) - timedelta(seconds=1)
        try:
            for _ in range(2):
                ran.clear()
                sched.arm(job, past, fire, "fall")
                await asyncio.wait_for(ran.wait(), timeout=20)  # a guard, not a measure
        finally:
            sched.shutdown()

    asyncio.run(scenario())
    assert runs == [1, 1]
