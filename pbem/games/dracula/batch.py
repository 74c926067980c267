"""A list of events that keeps the state folded as events are added."""

from __future__ import annotations

from collections.abc import Iterable

from pbem.core.events import Event, Notice
from pbem.core.folded import Trace
from pbem.games.dracula.state import FOLDS, DraculaState, fold_of


class Batch:
    """Events of one decision, with the state after them (``state``).

    The fold is traced (:mod:`pbem.core.folded`): the rules-only fast path takes the state
    built here instead of folding the night's events a second time."""

    def __init__(self, state: DraculaState) -> None:
        self.state = state
        self.events: list[Event] = []
        self._trace = Trace(state)

    def add(self, *events: Event) -> DraculaState:
        state = self.state
        for event in events:
            kind = type(event)
            if kind is not Notice:  # a message changes no state (a third of them)
                state = (FOLDS.get(kind) or fold_of(kind))(state, event)  # evolve
        self.events += events
        self._trace.events += events
        self.state = self._trace.state = state
        return state

    def note(self, notice: Notice) -> None:
        """:meth:`add` for a message, which changes no state (a third of a close's events)."""
        self.events.append(notice)
        self._trace.events.append(notice)

    def extend(self, events: Iterable[Event]) -> DraculaState:
        return self.add(*events)

    def folded(self, events: list[Event], state: DraculaState) -> None:
        """``events`` already folded into :attr:`state`, giving ``state`` (a resolution's
        own fold, :func:`pbem.core.resolve.resolve`): added without folding them again."""
        self.events += events
        self._trace.events += events
        self.state = self._trace.state = state
