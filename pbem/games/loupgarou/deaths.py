"""What a death brings in Loup-Garou: the card revealed (LG-100) and the lovers' grief (LG-422),
at the dawn, after a lynch, at the end and when a seat is removed."""

from __future__ import annotations

from typing import Any

from pbem.core.events import Event, PlayerDied
from pbem.core.ids import PlayerId
from pbem.games.loupgarou.state import LoupGarouState, evolve


def grief_deaths(state: LoupGarouState) -> list[Event]:
    """LG-422: a Lover dies of grief when the other has died, until nothing changes."""
    events: list[Event] = []
    s = state
    changed = True
    while changed:
        changed = False
        for lover in s.lovers:
            other = s.lover_of(lover)
            if other is not None and not s.seat(other).alive and s.seat(lover).alive:
                death = PlayerDied(lover, "grief")
                events.append(death)
                s = evolve(s, death)
                changed = True
    return events


def reveal_params(s: LoupGarouState, player: PlayerId) -> dict[str, Any]:
    """LG-100: identity, team and conditions at the moment of death."""
    seat = s.seat(player)
    return {
        "name": player,
        "cause": seat.cause,
        "role": seat.role,
        "team": seat.team,
        "conditions": s.conditions(player),
        "lover": s.lover_of(player) if seat.cause == "grief" else None,
    }
