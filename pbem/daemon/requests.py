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
from pbem.daemon.spools import ADMIN_SPOOL, REQUEST_SPOOLS, SHUNT_RETRY_SPOOL
from pbem.daemon.work import Call
from pbem.desk.requests import admin_requests

if TYPE_CHECKING:
    from pbem.daemon.service import Service

log = logging.getLogger(__name__)


class OperatorRequestsMixin:
    """The service's part for the operator requests (a mixin of :class:`~pbem.daemon.service.Service`)."""

    def retry_requests(self: Service) -> int:
        requests = self.requests.pending(self.root / SHUNT_RETRY_SPOOL)
        for req in requests:
            key = req.name
            eml = self.root / "shunt" / f"{key}.eml"
            row = self.daemon.shunt_row(key)
            # consumed BEFORE the retry: a retried mail that kills the process again must not
            # come back at every start-up (a crash loop); the admin can ask again
            if not self.requests.consume(req):
                continue
            if row is not None and eml.exists() and not self.knows(key):
                raw = eml.read_bytes()
                try:
                    self._apply_mail(key, None, raw, self.clock())
                    self.daemon.remove_shunt(key)
                    log.info("shunted mail %s retried: applied", key[:12])
                except Exception as exc:
                    self._shunt(key, None, raw, exc, {**row, "failures": 0})
        self.sender.wake()
        return len(requests)

    def requests_pending(self: Service) -> bool:
        """Whether a CLI request file waits in a spool (three directory listings)."""
        return any(self.requests.pending(self.root / rel) for rel in REQUEST_SPOOLS)

    def operator_requests(self: Service) -> int:
        """Act on every request the CLI dropped: ``pbem shunt retry``, ``pbem deadline retry``,
        ``pbem reachable``. Returns the number consumed."""
        return (
            self.retry_requests()
            + self.retry_stalled()
            + self.reachable_requests()
            + admin_requests(self, self.root / ADMIN_SPOOL)
        )

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
                (self.held_due, self.retry_held),
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
