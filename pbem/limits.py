"""Rate limits (RELIABILITY §2.5, requirement 8). Pure: the time is an argument.

State is in memory: after a restart the windows start empty, which can only let a few more
replies through; the global cap still bounds a runaway loop.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta


@dataclass
class Window:
    """At most ``limit`` events per ``span`` (a sliding window of timestamps)."""

    limit: int
    span: timedelta
    times: deque[datetime] = field(default_factory=deque)

    def _trim(self, now: datetime) -> None:
        while self.times and self.times[0] <= now - self.span:
            self.times.popleft()

    def allowed(self, now: datetime) -> bool:
        self._trim(now)
        return len(self.times) < self.limit

    def hit(self, now: datetime) -> None:
        self._trim(now)
        self.times.append(now)


@dataclass
class SenderLimits:
    """Per address: ≤ ``errors_per_hour`` error replies, ≤ ``autos_per_day`` automatic replies.

    Receipts of accepted commands are always sent (a forged command must be noticed), but they
    count toward the daily number so errors stop first.
    """

    errors_per_hour: int = 1
    autos_per_day: int = 10
    _err: dict[str, Window] = field(default_factory=dict)
    _auto: dict[str, Window] = field(default_factory=dict)

    def _w(self, table: dict[str, Window], addr: str, factory: Callable[[], Window]) -> Window:
        w = table.get(addr)
        if w is None:
            w = table[addr] = factory()
        return w

    def allow(self, addr: str, now: datetime, *, error: bool) -> bool:
        """Record and allow a reply to ``addr``, or refuse it (nothing recorded)."""
        addr = addr.lower()
        auto = self._w(self._auto, addr, lambda: Window(self.autos_per_day, timedelta(days=1)))
        if error:
            err = self._w(self._err, addr, lambda: Window(self.errors_per_hour, timedelta(hours=1)))
            if not err.allowed(now) or not auto.allowed(now):
                return False
            err.hit(now)
        auto.hit(now)
        return True


@dataclass
class GlobalCap:
    """A global outbound cap: past it, sending pauses and an alarm is raised once."""

    per_hour: int = 200
    window: Window = field(init=False)
    tripped: bool = False

    def __post_init__(self) -> None:
        self.window = Window(self.per_hour, timedelta(hours=1))

    def try_send(self, now: datetime) -> bool:
        if self.window.allowed(now):
            self.window.hit(now)
            self.tripped = False
            return True
        return False
