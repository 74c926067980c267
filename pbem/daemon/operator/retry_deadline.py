"""``pbem deadline retry GAME``: a game's stalled deadlines opened again with a fresh count."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pbem.daemon.operator.spool import Retry

if TYPE_CHECKING:
    from pbem.daemon.operator.parts import OperatorParts

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RetryDeadline(Retry):
    """Open the stalled deadlines of the game ``target`` again, then rearm them."""

    spool = "deadlines/retry"

    def apply(self, svc: OperatorParts) -> None:
        """Open the game's stalled deadlines again and rearm them; an unknown game: logged and
        dropped."""
        game = svc.games.get(self.target)
        if game is None:
            log.warning("deadline retry for unknown game %s ignored", self.target)
            return
        for rid, st in game.store.deadline_states().items():
            if st.get("state") == "stalled":
                game.store.set_deadline_state(
                    {**st, "key": rid, "state": "open", "attempts": 0, "now": None}
                )
                log.info("game %s: stalled deadline %s opened again", game.id, rid)
        svc.deadlines.rearm(game)
