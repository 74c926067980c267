"""``pbem shunt retry KEY``: a shunted mail applied again."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Self

from pbem.daemon.operator.spool import Request

if TYPE_CHECKING:
    from pbem.daemon.service import Service

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RetryShunt(Request):
    """Apply the shunted mail ``key`` again; should it fail again, it is shunted anew."""

    key: str
    spool = "shunt/retry"
    # a retried mail that kills the process again must not come back at every start-up (a
    # crash loop); the admin can ask again
    consume_first = True

    def file_name(self) -> str:
        return self.key

    def text(self) -> str:
        return datetime.now(UTC).isoformat()

    @classmethod
    def read(cls, name: str, text: str) -> Self:
        return cls(name)

    def apply(self, svc: Service) -> None:
        row = svc.daemon.shunt_row(self.key)
        eml = svc.root / "shunt" / f"{self.key}.eml"
        if row is not None and eml.exists() and not svc.knows(self.key):
            raw = eml.read_bytes()
            try:
                svc._apply_mail(self.key, None, raw, svc.clock())
                svc.daemon.remove_shunt(self.key)
                log.info("shunted mail %s retried: applied", self.key[:12])
            except Exception as exc:
                svc._shunt(self.key, None, raw, exc, {**row, "failures": 0})
        svc.sender.wake()
