"""A removed seat's standing orders are withdrawn (the werewolf-family games).

A dead player's vote or night action should never count; the rules mostly skip the dead
already, but a vote cast before the removal would still sit in the tally and a Lupus ghost
(LUP-502) still votes. Withdrawing them is the events a player's own ``ANNULER`` would give.
"""

from __future__ import annotations

from typing import Any

from pbem.core.events import ActionCleared, Event, VoteSet
from pbem.core.ids import PlayerId


def withdrawn(state: Any, player: PlayerId) -> list[Event]:
    """``player``'s standing actions and vote of the current phase, withdrawn."""
    events: list[Event] = [
        ActionCleared(player, verb) for actor, verb in state.actions if actor == player
    ]
    if player in state.votes:
        events.append(VoteSet(state.phase, player, None))
    return events
