"""The lovers' grief in Chasse aux sorcières (CAS-335): whoever's partner dies dies at once, at
the dawn, after a lynch, after Prue's revenge and when a seat is removed; shared by all four."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pbem.core.events import Event, PlayerDied
from pbem.games.chasse.state import ChasseState


def grief_deaths(state: ChasseState) -> list[Event]:
    """CAS-335: a Lover whose partner is dead dies of grief at once."""
    if len(state.lovers) != 2:
        return []
    a, b = state.lovers
    if state.alive(a) and not state.alive(b):
        return [PlayerDied(a, "grief")]
    if state.alive(b) and not state.alive(a):
        return [PlayerDied(b, "grief")]
    return []


def grief_params(grief: Sequence[Event], state: ChasseState) -> list[dict[str, Any]]:
    """The lovers who died of grief, as the dawn notice lists them."""
    return [
        {
            "name": e.player,
            "role": state.seat(e.player).role,
            "partner": state.partner(e.player),
        }
        for e in grief
        if isinstance(e, PlayerDied)
    ]
