"""Lupus in Tabula: what a removal triggers (docs/seats.md).

Lupus has no death trigger but the victory check (LUP-110..LUP-113), which runs at once: a
removal may end the game. The removed seat never becomes a ghost (LUP-501: the torn apart and
the lynched do; a removed player is gone, see ``LupusState.ghosts``). A removed nominee leaves
the day's ballot (LUP-408, LUP-409: round 2 votes for a nominee; with none left, nobody is
lynched).
"""

from __future__ import annotations

import random
from datetime import datetime
from typing import TYPE_CHECKING

from pbem.core.events import Event
from pbem.core.ids import PlayerId
from pbem.games.aftermath import Aftermath
from pbem.games.lupus.ending import victory
from pbem.games.lupus.state import Nominated, evolve_all
from pbem.games.village.withdraw import withdrawn

if TYPE_CHECKING:
    from pbem.games.lupus.rules import LupusInTabula
    from pbem.games.lupus.state import LupusState


def aftermath(
    rules: LupusInTabula, state: LupusState, player: PlayerId, now: datetime, rng: random.Random
) -> Aftermath:
    """What removing ``player`` triggers: his orders withdrawn, the day's ballot without him
    (LUP-408), then the victory check (LUP-110..LUP-113)."""
    events: list[Event] = withdrawn(state, player)
    if player in state.nominees:  # LUP-408: round 2 is between the nominees still in the game
        kept = tuple(p for p in state.nominees if p != player)
        owl = state.owl_pick if state.owl_pick in kept else None
        events.append(Nominated(kept, owl, dict(state.round1_counts), ()))
    state = evolve_all(events, state)
    return Aftermath(tuple(events), ending=tuple(victory(state)))  # LUP-110..LUP-113
