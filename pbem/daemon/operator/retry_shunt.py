"""``pbem shunt retry KEY``: a shunted mail applied again."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pbem.daemon.operator.spool import Retry
from pbem.daemon.shuntcopy import read_copy

if TYPE_CHECKING:
    from pbem.daemon.operator.parts import OperatorParts

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RetryShunt(Retry):
    """Apply the shunted mail whose key is ``target`` again; should it fail again, it is
    shunted anew."""

    spool = "shunt/retry"

    def apply(self, svc: OperatorParts) -> None:
        """Apply the shunted mail again; it goes back to the shunt if it fails again."""
        key = self.target
        row = svc.daemon.shunt_row(key)
        raw = read_copy(svc.root, key) if row is not None and not svc.knows(key) else None
        if row is not None and raw is not None:
            try:
                svc.intake.apply_mail(key, None, raw, svc.clock())
                svc.daemon.remove_shunt(key)
                log.info("shunted mail %s retried: applied", key[:12])
            except Exception as exc:
                svc.intake.shunt(key, None, raw, exc, {**row, "failures": 0})
        svc.sender.wake()
