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
- Removed while the Night 4 pairing window is open, the seat leaves its pair: the pair is
  undone and the partner is back among the unpaired, told so privately; he may name a
  partner or be named until the close, which pairs him at random otherwise, or leaves him
  alone if the count is odd (AMB-030: a pair is two living players; DRA-225, DRA-231).
  DRA-223 (a pairing cannot be undone) binds the players' own choices, not the game
  master's removal. Once the window has closed, the pairs stand as posted (NTF-09).
"""

from __future__ import annotations

import random
from datetime import datetime
from typing import TYPE_CHECKING

from pbem.core.errors import IllegalNow
from pbem.core.events import Event, VoteSet, private
from pbem.core.ids import PlayerId
from pbem.games.aftermath import Aftermath
from pbem.games.dracula.events import Unpaired

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
    """What a seat's removal undoes in Dracula (the module's docstring): its sanctuary vote
    of the day (DRA-326, AMB-011, AMB-014) and, while the Night 4 window is open, its pair
    (AMB-030, DRA-225, DRA-231)."""
    events: list[Event] = []
    if any(voter == player for voter, _, _ in state.votes):  # DRA-326, AMB-011, AMB-014
        events.append(VoteSet(f"day-{state.number}", player, None))
    if state.phase == "pairing":  # AMB-030, DRA-225, DRA-231: see the module's docstring
        events += unpair(state, player)
    return Aftermath(tuple(events))


def unpair(state: DraculaState, player: PlayerId) -> list[Event]:
    """Undo the open window's pair of the removed ``player``; tell his partner he may pair
    again before the deadline."""
    for naming, named in state.pairs.items():
        if player in (naming, named):
            partner = named if player == naming else naming
            notice = private(
                "dracula/partner_removed",
                [partner],
                f"round-{state.round}-day-4",
                partner=player,
                deadline=state.deadlines["pairing"].isoformat(),
            )
            return [Unpaired(naming, named), notice]
    return []
