"""Clock jumps (RELIABILITY §5.4, F14): detected while running by :mod:`pbem.daemon.clockwatch`,
handled by the IMAP loop with the outage policy of :mod:`pbem.daemon.deadlines`."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from pbem.adapters.store import DaemonStore
from pbem.daemon.clockwatch import ClockJump, ClockWatch
from pbem.daemon.config import Config
from pbem.daemon.replies import Replies

log = logging.getLogger(__name__)


@dataclass
class ClockJumps:
    """Clock jumps seen. Reads the configuration and both clocks (through ``clockwatch``);
    hands a jump to the IMAP loop (``interrupt``), which handles it
    (:meth:`pbem.daemon.imap_loop.ImapLoop.handle_clock_jump`) and alerts the admins with
    :meth:`alert` (through ``replies``, in the daemon's store); ``sleep`` and ``stopping`` pace
    the ticker, ``wake`` tells the sender new rows wait."""

    cfg: Config
    clockwatch: ClockWatch
    clock: Callable[[], datetime]
    monotonic: Callable[[], float]
    daemon: DaemonStore
    replies: Replies
    interrupt: Callable[[], None]
    sleep: Callable[[float], Awaitable[None]]
    stopping: Callable[[], bool]
    wake: Callable[[], None]
    pending: ClockJump | None = None  # detected, not handled yet
    hold: bool = False  # a jump is being handled: scheduler-fired deadlines wait
    alerted: set[str] = field(default_factory=set)

    def note(self) -> ClockJump | None:
        """Feed the watch one (monotonic, wall) pair. A jump is logged and kept pending for the
        IMAP loop, whose wait it interrupts."""
        jump = self.clockwatch.observe(self.monotonic(), self.clock())
        if jump is None:
            return None
        log.critical("clock jump: %s", jump.describe())
        self.pending = jump if self.pending is None else self.pending.then(jump)
        self.interrupt()
        return jump

    def deadlines_held(self) -> bool:
        """True while a jump is pending or handled: a scheduler-fired deadline then waits (the
        scheduler reads the wall clock: after a forward jump it fires every deadline at once,
        before the mailbox is drained)."""
        self.note()
        return self.hold or self.pending is not None

    async def watch(self, period: float = 1.0) -> None:
        """A cheap ticker (``serve`` runs it beside the loop): jumps are seen within a second
        even while the IMAP loop sits in a long IDLE."""
        while not self.stopping():
            self.note()
            await self.sleep(period)

    def alert(self, jump: ClockJump) -> None:
        """Alert the game masters once to a clock jump, saying what the daemon does about it (drain,
        outage or, backward, only rearm)."""
        key = f"clockjump:{jump.before.isoformat()}:{jump.after.isoformat()}"
        if key in self.alerted:
            return  # a retry after an IMAP drop
        self.alerted.add(key)
        if not jump.forward:
            policy = "backward"
        elif jump.skew > timedelta(hours=self.cfg.outage_threshold_hours):
            policy = "outage"
        else:
            policy = "drain"
        self.daemon.commit(
            outbox=self.replies.admin_alert(
                key,
                self.clock(),
                "daemon/alert_clock_jump",
                {
                    "forward": jump.forward,
                    "skew": abs(jump.skew.total_seconds()),
                    "before": jump.before.isoformat(),
                    "after": jump.after.isoformat(),
                    "elapsed": jump.elapsed.total_seconds(),
                    "policy": policy,
                    "threshold": self.cfg.outage_threshold_hours,
                    "grace": self.cfg.outage_grace_hours,
                },
            )
        )
        self.wake()
