"""A list of events that keeps the state folded as events are added."""

from __future__ import annotations

from collections.abc import Iterable

from pbem.core.events import Event
from pbem.games.dracula.state import DraculaState, evolve


class Batch:
    """Events of one decision, with the state after them (``state``)."""

    def __init__(self, state: DraculaState) -> None:
        self.state = state
        self.events: list[Event] = []

    def add(self, *events: Event) -> DraculaState:
        for event in events:
            self.state = evolve(self.state, event)
            self.events.append(event)
        return self.state

    def extend(self, events: Iterable[Event]) -> DraculaState:
        return self.add(*events)
