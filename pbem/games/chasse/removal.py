"""Chasse aux sorcières: what a removal triggers (docs/seats.md).

- The other Lover dies of grief (CAS-234, CAS-335: "if one Lover dies", any death).
- A removed Prue takes no revenge (CAS-320, CAS-325, CAS-D17: only a Prue killed by the
  Demons or lynched retaliates).
- A removed Cole ends the Cole power (CAS-395: its holder is eliminated); a removed Léo keeps
  his card (CAS-363): nothing to do, the rules read both from the seats.
- The victory is checked at once (CAS-101..CAS-104, CAS-D08, CAS-D23).
"""

from __future__ import annotations

import random
from datetime import datetime
from typing import TYPE_CHECKING

from pbem.core.events import Event, PlayerDied
from pbem.core.ids import PlayerId
from pbem.games.aftermath import Aftermath
from pbem.games.chasse.grief import grief_deaths
from pbem.games.chasse.state import evolve_all
from pbem.games.chasse.victory import check_victory
from pbem.games.village.withdraw import withdrawn

if TYPE_CHECKING:
    from pbem.games.chasse.rules import ChasseAuxSorcieres
    from pbem.games.chasse.state import ChasseState


def aftermath(
    rules: ChasseAuxSorcieres,
    state: ChasseState,
    player: PlayerId,
    now: datetime,
    rng: random.Random,
) -> Aftermath:
    """What removing ``player`` triggers: his orders withdrawn, the other Lover's grief death
    (CAS-234, CAS-335), then the victory check (CAS-101..CAS-104)."""
    events: list[Event] = withdrawn(state, player)
    state = evolve_all(events, state)
    grief = grief_deaths(state)  # CAS-234, CAS-335
    state = evolve_all(grief, state)
    deaths = [
        {"name": e.player, "role": state.seat(e.player).role, "cause": "grief"}
        for e in grief
        if isinstance(e, PlayerDied)
    ]
    return Aftermath((*events, *grief), tuple(deaths), tuple(check_victory(state)))
