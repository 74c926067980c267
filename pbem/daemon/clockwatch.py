"""Clock-jump detection (RELIABILITY §5.4, F14): the njudge "time-warp" check, pure.

APScheduler 3 computes its wake-ups from the wall clock, and deadlines are wall-clock instants, so
a step of the wall clock while the daemon runs (an NTP step, a VM resumed, a laptop suspended, a
``faketime`` offset) would make every deadline "passed" at once, with no outage policy applied.
The monotonic clock never steps; comparing the two clocks' deltas between two observations shows
a step: ``skew = Δwall − Δmonotonic``. On Linux ``CLOCK_MONOTONIC`` also stops during a suspend, so
a suspended and resumed daemon shows a forward skew as long as the sleep: that is an outage too.

Small skews are normal (NTP slews the wall clock by at most 500 ppm), hence the tolerances: a
forward skew beyond ``forward`` (5 min) or a backward skew beyond ``backward`` (1 s) is a jump.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True)
class ClockJump:
    """A detected step of the wall clock between two observations."""

    before: datetime  # wall time at the previous observation
    after: datetime  # wall time now
    elapsed: timedelta  # what really elapsed (monotonic)

    @property
    def skew(self) -> timedelta:
        """How far the wall clock stepped: positive forward, negative backward."""
        return (self.after - self.before) - self.elapsed

    @property
    def forward(self) -> bool:
        """Whether the wall clock stepped forward."""
        return self.skew > timedelta(0)

    def then(self, later: ClockJump) -> ClockJump:
        """This jump followed by a later one, as one (seen before the first was handled): the
        skews add up; the normal time between the two counts as elapsed."""
        skew = self.skew + later.skew
        return ClockJump(self.before, later.after, (later.after - self.before) - skew)

    def describe(self) -> str:
        """The jump in words, for the log and the operator's alert."""
        way = "forward" if self.forward else "backward"
        return (
            f"the wall clock jumped {way} by {abs(self.skew)} "
            f"({self.before.isoformat()} -> {self.after.isoformat()} while "
            f"{self.elapsed} elapsed on the monotonic clock)"
        )


@dataclass
class ClockWatch:
    """Fed ``(monotonic seconds, wall datetime)`` pairs; reports a jump between two of them."""

    forward: timedelta = timedelta(minutes=5)
    backward: timedelta = timedelta(seconds=1)
    last: tuple[float, datetime] | None = None

    def observe(self, mono: float, wall: datetime) -> ClockJump | None:
        """Note this pair; the jump since the previous one if it steps past the thresholds, else
        None."""
        prev, self.last = self.last, (mono, wall)
        if prev is None:
            return None
        jump = ClockJump(before=prev[1], after=wall, elapsed=timedelta(seconds=mono - prev[0]))
        if jump.skew > self.forward or -jump.skew > self.backward:
            return jump
        return None
