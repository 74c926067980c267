"""The scheduler's jobs are found by a typed key, not by a prefix of their id (issue 11)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

from pbem.adapters.scheduler import DeadlineScheduler
from pbem.daemon.deadlines import Deadlines
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


class _Rearmed:
    """A game's deadlines rearmed through a real scheduler, with or without the memo."""

    def __init__(self, memo: bool) -> None:
        self.sched = DeadlineScheduler()
        if not memo:
            self.sched.holds = None  # type: ignore[assignment,method-assign]
        self.arms: list[str] = []
        real = self.sched.arm

        def arm(job: Any, *args: Any) -> None:
            self.arms.append(str(job))
            real(job, *args)

        self.sched.arm = arm  # type: ignore[method-assign]
        self.now = WHEN - timedelta(hours=10)
        self.pending = {"day-1": WHEN}
        self.states: dict[str, Any] = {}
        store = SimpleNamespace(deadline_states=lambda: self.states)
        self.game = SimpleNamespace(
            id="g1", store=store, table=SimpleNamespace(deadlines=lambda: dict(self.pending))
        )
        self.deadlines = Deadlines(
            cfg=SimpleNamespace(reminders_hours=(2.0, 6.0)),  # type: ignore[arg-type]
            games={"g1": self.game},  # type: ignore[dict-item]
            clock=lambda: self.now,
            scheduler=self.sched,
            submit=lambda work: None,
            replies=None,  # type: ignore[arg-type]
            relay=None,  # type: ignore[arg-type]
            fault=lambda point: None,
            wake=lambda: None,
        )

    def rearm(self) -> tuple[dict[str, set[str]], dict[str, Any]]:
        self.deadlines.rearm(self.game)  # type: ignore[arg-type]
        return dict(self.sched.by_game), dict(self.sched.armed)


def test_a_rearm_that_would_change_nothing_arms_nothing_and_any_change_rearms() -> None:
    """Issue 23 (ingest): a rearm after each mail whose deadlines stay calls the scheduler
    no more; whatever would change what is armed (a deadline moved or stalled, a reminder's
    time reached, the clock set back, a job that ran, a retry armed) rearms as before."""
    memo, plain = _Rearmed(memo=True), _Rearmed(memo=False)

    def both(change: Any = None) -> list[str]:
        for r in (memo, plain):
            if change is not None:
                change(r)
            r.arms.clear()
        assert memo.rearm() == plain.rearm()
        return memo.arms

    assert both() == ["g1:day-1", "g1:day-1:remind:2.0", "g1:day-1:remind:6.0"]
    assert both() == [], "nothing changed: the scheduler is not called"
    assert both(lambda r: setattr(r, "now", WHEN - timedelta(hours=7))) == []
    assert both(lambda r: setattr(r, "now", WHEN - timedelta(hours=6))) != []  # 6 h reached
    assert "g1:day-1:remind:6.0" not in memo.sched.armed
    assert both(lambda r: setattr(r, "now", WHEN - timedelta(hours=8))) != []  # set back
    assert "g1:day-1:remind:6.0" in memo.sched.armed
    assert both() == []
    assert both(lambda r: r.pending.update({"day-1": WHEN + timedelta(hours=1)})) != []
    assert both(lambda r: r.sched.armed.pop("g1:day-1")) != [], "a job that ran"
    assert both(lambda r: r.sched.arm(DeadlineJob("g1", "day-1"), WHEN, _nothing)) != []
    stalled = {f"day-1@{(WHEN + timedelta(hours=1)).isoformat()}": {"state": "stalled"}}
    both(lambda r: setattr(r, "states", stalled))
    assert memo.sched.armed == {} and "g1" not in memo.sched.by_game, "disarmed"

    assert both() == []
