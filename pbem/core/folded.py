"""The last fold a game's rules did while deciding, kept so that a caller who folds the same
events into the same state again gets the state already built (issue 23).

A rule that resolves in steps folds each event as it adds it (Dracula's night, through its
``Batch``), then hands the events over; the caller folds them once more into its own state.
:class:`Trace` records such a fold: the state it started from, the events in order and the
state after them. :func:`recall` answers only when the caller's state *is* that start (the
same object: states are frozen, and the trace holds it, so its id cannot be reused) and the
caller's events are the very event objects traced, in the same order: folding is pure, so the
answer is what the fold would have built.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from pbem.core.events import Event, Notice


class Trace:
    """One fold: ``state`` is ``start`` after ``events``, in order."""

    __slots__ = ("events", "start", "state")

    def __init__(self, start: Any) -> None:
        self.start = start
        self.events: list[Event] = []
        self.state = start
        _LAST[0] = self

    def add(self, event: Event, after: Any) -> None:
        """``event`` was folded: ``after`` is the state it led to."""
        self.events.append(event)
        self.state = after


_LAST: list[Trace | None] = [None]
"""The most recent trace (one: a fold is recalled right after the decision that did it)."""


def recall(events: Sequence[Event], state: Any) -> Any | None:
    """The state after folding ``events`` into ``state``, if the last trace did exactly that
    fold; None otherwise."""
    trace = _LAST[0]
    if trace is None or trace.start is not state or len(trace.events) != len(events):
        return None
    for traced, event in zip(trace.events, events, strict=True):
        if traced is not event:
            return None
    return trace.state


S = TypeVar("S")


class Batch(Generic[S]):
    """The events of one decision (a close, a setup), each folded once as it is added, with
    the state after them (``state``).

    The rules read the state as it stands between events (a death before the victory check);
    the fold is traced (:class:`Trace`), so that the table and the rules-only fast path take
    the state built here instead of folding the same events a second time (issue 23). A
    message (:class:`~pbem.core.events.Notice`, a third of a close's events) changes no game's
    state, so it is not folded."""

    def __init__(
        self,
        state: S,
        evolve: Callable[[S, Event], S],
        fold: Callable[[S, Sequence[Event]], S] | None = None,
    ) -> None:
        self.state = state
        self.events: list[Event] = []
        self._evolve = evolve
        self._fold = fold
        """The game's fold of several events at once, if it has one: one new state for them
        (Dracula's :func:`~pbem.games.dracula.state.evolve_all`), where :meth:`add` is given
        several."""
        self._trace = Trace(state)

    def add(self, *events: Event) -> S:
        """``events`` in order, after those already added; the state after them (one new
        state for them all where the game folds several at once: nobody reads those
        between)."""
        state, evolve = self.state, self._evolve
        if len(events) > 1 and self._fold is not None:
            state = self._fold(state, events)
        else:
            for event in events:
                if type(event) is not Notice:
                    state = evolve(state, event)
        self.events += events
        self._trace.events += events
        self.state = self._trace.state = state
        return state

    def note(self, notice: Notice) -> None:
        """:meth:`add` for a message, which changes no state."""
        self.events.append(notice)
        self._trace.events.append(notice)

    def add_folded(self, events: Sequence[Event], state: S) -> None:
        """``events`` the caller folded already: ``state`` is the batch's state after them
        (a resolution that folds as it goes, :func:`pbem.core.resolve.resolve`)."""
        self.events += events
        self._trace.events += events
        self.state = self._trace.state = state
