"""The night resolution loop: intents in priority order, each checked against veto hooks.

A night is a list of :class:`Intent` (a kill, a bite, a probe...) with priorities taken from the
game's night-order table. Each intent is offered to the game's veto hooks in order (the
Bodyguard's protection, the Werehamster's immunity, the elder's life, a crucifix...); the first
hook that vetoes it stops it and may emit events of its own (a protection used up). Otherwise
the game's ``effect`` turns it into events. Events are folded as they come, so a later intent
sees the earlier ones' effects. The trace records which hook fired for every intent, so a game
master can always see why somebody survived.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pbem.core.events import Event, Resolved
from pbem.core.frozen import quick_init
from pbem.core.ids import PlayerId

S = TypeVar("S")


@quick_init  # a few made at every night close of every game (issue 23): pbem.core.frozen
@dataclass(frozen=True)
class Intent:
    """Something that happens at resolution unless a hook vetoes it."""

    kind: str
    target: PlayerId
    cause: str
    priority: int = 0
    actors: tuple[PlayerId, ...] = ()
    data: dict[str, Any] = field(default_factory=dict, compare=False)


@quick_init
@dataclass(frozen=True)
class Veto:
    """A hook's decision to stop an intent, with the events it causes (e.g. a charge used)."""

    hook: str
    events: tuple[Event, ...] = ()


VetoHook = Callable[[S, Intent], Veto | None]
Effect = Callable[[S, Intent], Sequence[Event]]
Evolve = Callable[[S, Event], S]


@dataclass
class Resolution(Generic[S]):
    """The loop's result: the state after every effect, the events, and the trace."""

    state: S
    events: list[Event]
    vetoed: dict[Intent, str]


def resolve(
    state: S,
    step: str,
    intents: Sequence[Intent],
    hooks: Sequence[VetoHook[S]],
    effect: Effect[S],
    evolve: Evolve[S],
) -> Resolution[S]:
    """Run ``intents`` by ascending priority (stable), offering each to ``hooks`` first."""
    events: list[Event] = []
    vetoed: dict[Intent, str] = {}
    trace: list[dict[str, Any]] = []

    def emit(new: Sequence[Event]) -> None:
        nonlocal state
        for event in new:
            state = evolve(state, event)
            events.append(event)

    for intent in sorted(intents, key=lambda i: i.priority):
        veto = next((v for hook in hooks if (v := hook(state, intent)) is not None), None)
        entry: dict[str, Any] = {
            "kind": intent.kind,
            "target": intent.target,
            "cause": intent.cause,
            "actors": list(intent.actors),
            "vetoed_by": veto.hook if veto else None,
        }
        trace.append(entry)
        if veto is not None:
            vetoed[intent] = veto.hook
            emit(veto.events)
        else:
            emit(effect(state, intent))
    emit([Resolved(step, tuple(trace))])
    return Resolution(state, events, vetoed)
