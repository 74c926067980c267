"""``pbem deadline retry GAME``: a game's stalled deadlines opened again with a fresh count."""

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
class RetryDeadline(Request):
    """Open the game's stalled deadlines again, then rearm them."""

    game: str
    spool = "deadlines/retry"
    consume_first = True  # a retry that kills the process again is counted anew

    def file_name(self) -> str:
        return self.game

    def text(self) -> str:
        return datetime.now(UTC).isoformat()

    @classmethod
    def read(cls, name: str, text: str) -> Self:
        return cls(name)

    def apply(self, svc: Service) -> None:
        game = svc.games.get(self.game)
        if game is None:
            log.warning("deadline retry for unknown game %s ignored", self.game)
            return
        for rid, st in game.store.deadline_states().items():
            if st.get("state") == "stalled":
                game.store.set_deadline_state(
                    {**st, "key": rid, "state": "open", "attempts": 0, "now": None}
                )
                log.info("game %s: stalled deadline %s opened again", game.id, rid)
        svc.rearm(game)
