"""The scheduler's jobs are found by a typed key, not by a prefix of their id (issue 11)."""

from __future__ import annotations

from datetime import UTC, datetime

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
