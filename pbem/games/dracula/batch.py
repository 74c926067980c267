"""A list of events that keeps the state folded as events are added."""

from __future__ import annotations

from collections.abc import Iterable

from pbem.core.events import Event
from pbem.core.folded import Trace
from pbem.games.dracula.state import DraculaState, evolve


class Batch:
    """Events of one decision, with the state after them (``state``).

    The fold is traced (:mod:`pbem.core.folded`): the rules-only fast path takes the state
    built here instead of folding the night's events a second time."""

    def __init__(self, state: DraculaState) -> None:
        self.state = state
        self.events: list[Event] = []
        self._trace = Trace(state)

    def add(self, *events: Event) -> DraculaState:
        trace = self._trace
        for event in events:
            self.state = evolve(self.state, event)
            self.events.append(event)
            trace.add(event, self.state)
        return self.state

    def extend(self, events: Iterable[Event]) -> DraculaState:
        return self.add(*events)
