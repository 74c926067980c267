"""Dracula: what a removal triggers (docs/seats.md).

- The removed seat is out as a staked vampire is (DRA-326, AMB-048): no further part in the
  round, and it earns nothing for it (DRA-443, DRA-475, AMB-068: the dead score nothing; a
  human out of the round neither flees nor fights). Its points of earlier rounds stay.
- It stays out for the rest of the match: the next rounds deal it no side (AMB-075 brings
  the round's dead back, not the removed; ``evolve`` of ``RoundStarted``).
- Its sanctuary vote of the day is withdrawn: only a living player's vote counts (DRA-326,
  AMB-011, AMB-014), so a player removed before dusk no longer weighs on the designation nor
  on AMB-012's speed order. Dracula's votes cannot be changed (DRA-045); this is the one
  withdrawal, and it is the game master's.
- Dracula's holder cannot be removed: Dracula never dies before the final phase (DRA-015,
  DRA-325) and the round is built around him; the game master replaces him (``REMPLACER``)
  instead, and the idle policy asks him to.
- No victory check at once: the round ends when no human is left at the next morning
  (DRA-025, DRA-440, ORD-25), as after any night.
"""

from __future__ import annotations

import random
from datetime import datetime
from typing import TYPE_CHECKING

from pbem.core.errors import IllegalNow
from pbem.core.events import VoteSet
from pbem.core.ids import PlayerId
from pbem.games.aftermath import Aftermath

if TYPE_CHECKING:
    from pbem.games.dracula.rules import Dracula
    from pbem.games.dracula.state import DraculaState


def refuse(state: DraculaState, player: PlayerId) -> None:
    """DRA-015, DRA-325: Dracula leaves no round before its end."""
    if state.seat(player).dracula:
        raise IllegalNow("remove_dracula", name=player)


def aftermath(
    rules: Dracula, state: DraculaState, player: PlayerId, now: datetime, rng: random.Random
) -> Aftermath:
    if any(voter == player for voter, _, _ in state.votes):  # DRA-326, AMB-011, AMB-014
        return Aftermath((VoteSet(f"day-{state.number}", player, None),))
    return Aftermath()
