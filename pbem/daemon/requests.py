"""The operator's requests to the running daemon, dropped by the CLI in spool directories under the
data directory (the daemon is the single writer of the store): shunt retries, deadline retries,
``pbem reachable`` and the desk's admin commands."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem.adapters.spool import RequestSpool
from pbem.adapters.store import list_games
from pbem.daemon.operator.registry import REQUESTS
from pbem.daemon.operator.spool import drain
from pbem.daemon.ports import Game
from pbem.daemon.work import Call, Work

if TYPE_CHECKING:
    from pbem.daemon.operator.parts import OperatorParts

log = logging.getLogger(__name__)


@dataclass
class OperatorRequests:
    """The operator's requests, games and held mail, looked for every second. Reads the data
    directory ``root`` and the loaded ``games``; each request is applied by the single writer
    (``submit``) to the service's parts (``parts``: :meth:`Request.apply
    <pbem.daemon.operator.spool.Request.apply>` reads them), new games loaded by
    ``load_games``, held mail retried by ``retry_held`` once ``held_due`` says so; ``sleep``
    and ``stopping`` pace the ticker."""

    root: Path
    spool: RequestSpool
    games: Mapping[str, Game]
    parts: OperatorParts
    submit: Callable[[Work], Awaitable[Any]]
    load_games: Callable[[], None]
    held_due: Callable[[], list[str]]
    retry_held: Callable[[], int]
    sleep: Callable[[float], Awaitable[None]]
    stopping: Callable[[], bool]

    def requests_pending(self) -> bool:
        """Whether a CLI request file waits in a spool (one directory listing each)."""
        return any(self.spool.pending(self.root / kind.spool) for kind in REQUESTS)

    def apply_requests(self) -> int:
        """Act on every request the CLI dropped (:mod:`pbem.daemon.operator`). Returns the
        number consumed."""
        return sum(drain(self.parts, kind) for kind in REQUESTS)

    def new_games_pending(self) -> bool:
        """Whether ``pbem new-game`` has put a game in place that is not loaded yet (one
        directory listing)."""
        return bool(list_games(self.root, known=self.games))

    async def watch(self, period: float = 1.0) -> None:
        """A cheap ticker (``serve`` runs it beside the loop): an operator's request, and a game
        an operator created, are acted on within a second, even while the IMAP loop sits in
        IDLE (up to ``idle_renew``)."""
        while not self.stopping():
            for pending, work in (
                (self.requests_pending, self.apply_requests),
                (self.new_games_pending, self.load_games),
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
            await self.sleep(period)
