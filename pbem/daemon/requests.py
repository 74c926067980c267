# mypy: disable-error-code="misc"
# why: a part of the service takes ``self: Service`` (the whole of which it is a mixin); mypy
# wants a supertype of the mixin there and says so under "misc".
"""The operator's requests to the running daemon, dropped by the CLI in spool directories under the
data directory (the daemon is the single writer of the store): shunt retries, deadline retries,
``pbem reachable`` and the desk's admin commands."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from pbem.adapters.store import list_games
from pbem.daemon.operator.registry import REQUESTS
from pbem.daemon.operator.spool import drain
from pbem.daemon.work import Call

if TYPE_CHECKING:
    from pbem.daemon.service import Service

log = logging.getLogger(__name__)


class OperatorRequestsMixin:
    """The service's part for the operator requests (a mixin of :class:`~pbem.daemon.service.Service`)."""

    def requests_pending(self: Service) -> bool:
        """Whether a CLI request file waits in a spool (one directory listing each)."""
        return any(self.requests.pending(self.root / kind.spool) for kind in REQUESTS)

    def operator_requests(self: Service) -> int:
        """Act on every request the CLI dropped (:mod:`pbem.daemon.operator`). Returns the
        number consumed."""
        return sum(drain(self, kind) for kind in REQUESTS)

    def new_games_pending(self: Service) -> bool:
        """Whether ``pbem new-game`` has put a game in place that is not loaded yet (one
        directory listing)."""
        return any(d.name not in self.games for d in list_games(self.root))

    async def watch_requests(self: Service, period: float = 1.0) -> None:
        """A cheap ticker (``serve`` runs it beside the loop): an operator's request, and a game
        an operator created, are acted on within a second, even while the IMAP loop sits in
        IDLE (up to ``idle_renew``)."""
        while not self.stopping:
            for pending, work in (
                (self.requests_pending, self.operator_requests),
                (self.new_games_pending, self.scan_games_and_rearm),
                # held mail, once the daemon has been up long enough (pbem.daemon.inflight)
                (self.crashloop.held_due, self.intake.retry_held),
            ):
                if not pending():
                    continue
                try:
                    await self.submit(Call(work))
                except asyncio.CancelledError:
                    return  # stopping
                except Exception:  # a request file we cannot consume: say so, keep ticking
                    log.exception("an operator request, a new game or a held mail failed")
            await self._sleep(period)
