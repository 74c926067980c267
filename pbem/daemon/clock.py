# mypy: disable-error-code="misc"
# why: a part of the service takes ``self: Service`` (the whole of which it is a mixin); mypy
# wants a supertype of the mixin there and says so under "misc".
"""Clock jumps (RELIABILITY §5.4, F14): detected while running by :mod:`pbem.daemon.clockwatch`,
handled by the outage policy of :mod:`pbem.daemon.deadlines`."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import TYPE_CHECKING

from pbem.daemon.clockwatch import ClockJump
from pbem.daemon.ports import Mailbox
from pbem.daemon.work import Call

if TYPE_CHECKING:
    from pbem.daemon.service import Service

log = logging.getLogger(__name__)


class ClockMixin:
    """The service's part for the clock (a mixin of :class:`~pbem.daemon.service.Service`)."""

    # assigned here, declared on the service: the same types
    clock_jump: ClockJump | None

    def note_clock(self: Service) -> ClockJump | None:
        """Feed the watch one (monotonic, wall) pair. A jump is logged and kept pending for the
        IMAP loop, whose wait it interrupts."""
        jump = self.clockwatch.observe(self.monotonic(), self.clock())
        if jump is None:
            return None
        log.critical("clock jump: %s", jump.describe())
        self.clock_jump = jump if self.clock_jump is None else self.clock_jump.then(jump)
        if self.mailbox is not None:
            self.mailbox.interrupt.set()
        return jump

    def deadlines_held(self: Service) -> bool:
        """True while a jump is pending or handled: a scheduler-fired deadline then waits (the
        scheduler reads the wall clock: after a forward jump it fires every deadline at once,
        before the mailbox is drained)."""
        self.note_clock()
        return self.clock_hold or self.clock_jump is not None

    async def watch_clock(self: Service, period: float = 1.0) -> None:
        """A cheap ticker (``serve`` runs it beside the loop): jumps are seen within a second
        even while the IMAP loop sits in a long IDLE."""
        while not self.stopping:
            self.note_clock()
            await self._sleep(period)

    async def handle_clock_jump(self: Service, box: Mailbox) -> None:
        """The start-up outage policy, for a jump seen while running: alert the admins; a forward
        jump longer than ``outage_threshold_hours`` is an outage (passed deadlines extended, the
        players told); a shorter one drains the mailbox, then resolves passed deadlines in order.
        A backward jump only rearms: resolution is a compare-and-set keyed by the deadline
        instance, so nothing already resolved is resolved again."""
        jump = self.clock_jump
        if jump is None:
            return
        self.clock_jump = None
        self.clock_hold = True
        try:
            await self.submit(Call(lambda: self._clock_alert(jump)))
            if jump.forward:
                await self.drain_at_startup(box, down=jump.skew, clock_jump=True)
            await self.submit(Call(self.deadlines.rearm_all))
        except BaseException:
            # IMAP dropped (or a stop) half-way: the jump stays pending, and scheduler-fired
            # deadlines held, until it is handled in full after the reconnection
            later = self.clock_jump
            self.clock_jump = jump if later is None else jump.then(later)
            raise
        finally:
            self.clock_hold = False

    def _clock_alert(self: Service, jump: ClockJump) -> None:
        key = f"clockjump:{jump.before.isoformat()}:{jump.after.isoformat()}"
        if key in self.clock_alerted:
            return  # a retry after an IMAP drop
        self.clock_alerted.add(key)
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
        self.sender.wake()
