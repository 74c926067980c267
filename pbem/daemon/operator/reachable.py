"""``pbem reachable GAME PLAYER``: a player's hard-bounce count and unreachable flag cleared
(the operator knows the address works again), committed in the game's store."""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Self

from pbem.daemon.operator.spool import Request

if TYPE_CHECKING:
    from pbem.daemon.operator.parts import OperatorParts

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Reachable(Request):
    """Clear ``player``'s bounces in ``game``; unknown game or player: logged and dropped."""

    game: str
    player: str
    at: datetime
    spool = "reachable"
    # consumed after the commit: clearing is idempotent, so a crash in between only clears twice

    @classmethod
    def now(cls, game: str, player: str) -> Reachable:
        """The request made now (its file is named by the time: one per request)."""
        return cls(game, player, datetime.now(UTC))

    def file_name(self) -> str:
        """Named by when it was asked and by the asking process: one file per request."""
        return f"{self.at:%Y%m%dT%H%M%S%f}-{os.getpid()}.json"

    def text(self) -> str:
        """The request as JSON: the game, the player, when."""
        return json.dumps({"game": self.game, "player": self.player, "at": self.at.isoformat()})

    @classmethod
    def read(cls, name: str, text: str) -> Self:
        """The request in a file written by :meth:`text`."""
        data = json.loads(text)
        at = data.get("at")
        when = datetime.fromisoformat(at) if isinstance(at, str) else datetime.now(UTC)
        return cls(str(data["game"]), str(data["player"]), when)

    def apply(self, svc: OperatorParts) -> None:
        """Clear the player's bounce count and unreachable flag, committed in the game's store."""
        now = svc.clock()
        game = svc.games.get(self.game)
        if game is None or self.player not in game.table.player_emails:
            log.warning(
                "reachable request: no player %r in game %r: ignored", self.player, self.game
            )
            return
        rec = game.store.bounce_states().get(self.player)
        if rec is None or not (rec.get("count") or rec.get("unreachable")):
            log.info("game %s: %s marked reachable: no bounce to clear", self.game, self.player)
            return
        was = "unreachable" if rec.get("unreachable") else f"{rec.get('count')} hard bounce(s)"
        rec.update(count=0, unreachable=False, cleared_at=now.isoformat(), cleared_by="operator")
        game.store.commit(bounces=[rec])
        log.warning(
            "game %s: %s marked reachable by the operator (was %s): bounce count cleared",
            self.game,
            self.player,
            was,
        )
