"""What the inbound steps read of the daemon: the parts a mail goes through, named here rather
than the :class:`pbem.daemon.service.Service` that composes them (which is one), so that the
intake imports nothing above it (no import circle with the service)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pbem.adapters.store import DaemonStore
    from pbem.daemon.bounces import Bounces
    from pbem.daemon.config import Config
    from pbem.daemon.confirm import Confirmations
    from pbem.daemon.deadlines import Deadlines
    from pbem.daemon.digests import Digests
    from pbem.daemon.listgate import PosterLimits
    from pbem.daemon.outbox import OutboxSender
    from pbem.daemon.ports import FaultHook, Game
    from pbem.daemon.relay import Relay
    from pbem.daemon.replies import Replies
    from pbem.daemon.routing import Router
    from pbem.mail.dkim import Resolver


class IntakeParts(Protocol):
    """The daemon's parts an inbound step (:data:`pbem.daemon.intake.steps.CHAIN`) and the
    guard read."""

    @property
    def cfg(self) -> Config: ...
    @property
    def games(self) -> dict[str, Game]: ...
    @property
    def daemon(self) -> DaemonStore: ...
    @property
    def daemon_keys(self) -> set[str]:
        """The daemon-wide ledger keys (mail that named no game)."""

    @property
    def our_addresses(self) -> set[str]: ...
    @property
    def relay(self) -> bool:
        """The daemon distributes the list itself."""

    @property
    def relay_list(self) -> Relay: ...
    @property
    def replies(self) -> Replies: ...
    @property
    def bounces(self) -> Bounces: ...
    @property
    def router(self) -> Router: ...
    @property
    def confirmations(self) -> Confirmations: ...
    @property
    def confirm_requests(self) -> PosterLimits: ...
    @property
    def deadlines(self) -> Deadlines: ...
    @property
    def digests(self) -> Digests: ...
    @property
    def sender(self) -> OutboxSender: ...
    @property
    def resolver(self) -> Resolver: ...
    @property
    def fault(self) -> FaultHook: ...
    @property
    def stats(self) -> Counter[str]: ...
