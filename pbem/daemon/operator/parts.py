"""What an operator's request reads of the daemon when it is applied: the parts named here
rather than the :class:`pbem.daemon.service.Service` that composes them (which is one), so that
the requests import nothing above them (no import circle with the service)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pbem.adapters.spool import RequestSpool
    from pbem.adapters.store import DaemonStore
    from pbem.daemon.config import Config
    from pbem.daemon.deadlines import Deadlines
    from pbem.daemon.intake.guard import Intake
    from pbem.daemon.outbox import OutboxSender
    from pbem.daemon.ports import Game
    from pbem.daemon.relay import Relay
    from pbem.daemon.replies import Replies


class OperatorParts(Protocol):
    """The daemon's parts a request (:class:`pbem.daemon.operator.spool.Request`) reads."""

    @property
    def cfg(self) -> Config: ...
    @property
    def root(self) -> Path:
        """The data directory (the spools, the shunt)."""

    @property
    def clock(self) -> Callable[[], datetime]: ...
    @property
    def games(self) -> dict[str, Game]: ...
    @property
    def daemon(self) -> DaemonStore: ...
    @property
    def requests(self) -> RequestSpool: ...
    @property
    def deadlines(self) -> Deadlines: ...
    @property
    def relay_list(self) -> Relay: ...
    @property
    def replies(self) -> Replies: ...
    @property
    def sender(self) -> OutboxSender: ...
    @property
    def intake(self) -> Intake: ...

    def knows(self, key: str) -> bool:
        """Whether ``key`` is in a ledger (a mail already committed)."""
        ...
