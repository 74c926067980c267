"""Loup-Garou: what a removal triggers (docs/seats.md).

- A Lover dies of grief (LG-422: the other Lover's death, whatever its cause).
- The *Ancien*'s removal takes the Villagers' powers (LG-385: "quand l'ancien meurt", any
  death), at once (LG-386 by day; a removal is the game master's act and is applied when
  it happens, night or day).
- A removed Mayor cannot hand his sash on (LG-404): a living player is drawn at once, as
  when a dead Mayor does not answer (LG-D31).
- The victory is checked at once, with the lynch's checkpoint (LG-114 (b), LG-115: the
  Piper's win is checked at dawn only).
"""

from __future__ import annotations

import random
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pbem.core.events import Event, PlayerDied, public
from pbem.core.ids import PlayerId
from pbem.games.aftermath import Aftermath
from pbem.games.loupgarou.deaths import grief_deaths, reveal_params
from pbem.games.loupgarou.roles import ELDER, VILLAGERS
from pbem.games.loupgarou.state import MayorChanged, PowersLost, evolve_all
from pbem.games.loupgarou.victory import checkpoint_events
from pbem.games.village.withdraw import withdrawn

if TYPE_CHECKING:
    from pbem.games.loupgarou.rules import LoupGarou
    from pbem.games.loupgarou.state import LoupGarouState


def aftermath(
    rules: LoupGarou, state: LoupGarouState, player: PlayerId, now: datetime, rng: random.Random
) -> Aftermath:
    """What removing ``player`` triggers: a Lover's grief (LG-422), the Ancien's powers lost
    (LG-385), a new Mayor drawn (LG-404, LG-D31), then the victory check (LG-114 (b), LG-115)."""
    events: list[Event] = []
    ending: list[Event] = []

    def emit(*new: Event) -> None:
        nonlocal state
        events.extend(new)
        state = evolve_all(new, state)

    # LG-100: the removed player's identity, team and every condition at his death, as any
    # death shows them (the announcement shows them when the card is revealed)
    params: dict[str, Any] = {"reveal": reveal_params(state, player)}
    emit(*withdrawn(state, player))
    emit(*grief_deaths(state))  # LG-422
    dead = [player, *(e.player for e in events if isinstance(e, PlayerDied))]
    deaths = [reveal_params(state, p) for p in dead[1:]]
    if any(state.seat(p).role == ELDER for p in dead):  # LG-385, LG-386, LG-D19
        lost = tuple(p for p in state.team(VILLAGERS) if state.powered(p))
        if lost:
            emit(PowersLost(lost))
    end = checkpoint_events(state, "lynch")  # LG-114 (b), LG-115
    former = state.mayor
    if former in dead and state.living() and not end:  # LG-404, LG-D31
        chosen = rng.choice(state.living())
        emit(MayorChanged(chosen, None))
        params["mayor"] = chosen
        ending.append(
            public(
                "loupgarou/new_mayor",
                f"day-{state.number}",
                mayor=chosen,
                by=None,
                former=former,
            )
        )
    return Aftermath(tuple(events), tuple(deaths), (*ending, *end), params)
