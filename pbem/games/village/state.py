"""The state every werewolf-family game shares: seats (who holds which card, alive or dead),
pending actions, votes, and the events every game folds alike."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from pbem.core.events import (
    ActionCleared,
    ActionSet,
    Event,
    GameCreated,
    GameEnded,
    PlayerDied,
    RoleChanged,
    VoteSet,
)
from pbem.core.frozen import replace
from pbem.core.ids import PlayerId
from pbem.core.options import parse_options
from pbem.core.outcome import Outcome
from pbem.games.village.events import TallyPosted


@dataclass(frozen=True)
class Seat:
    """One player: current card, the card dealt, his team where the game tracks it apart from
    the card (Loup-Garou, LG-011), life, and the cause of death."""

    name: PlayerId
    role: str
    dealt: str
    team: str = ""
    alive: bool = True
    cause: str | None = None


Actions = Mapping[tuple[PlayerId, str], tuple[int, ActionSet]]
"""Pending actions of a phase: (actor, verb) -> (arrival sequence, the action)."""


def record_action(
    actions: Mapping[tuple[PlayerId, str], tuple[int, ActionSet]], seq: int, event: ActionSet
) -> dict[tuple[PlayerId, str], tuple[int, ActionSet]]:
    """Pending actions after ``event``: it replaces the actor's action of that verb; a
    ``pass`` replaces all of his actions, and any action replaces his ``pass``."""
    out = dict(actions)
    if event.verb == "pass":
        out = {k: v for k, v in out.items() if k[0] != event.actor}
    else:
        out.pop((event.actor, "pass"), None)
    out[(event.actor, event.verb)] = (seq, event)
    return out


@dataclass(frozen=True)
class Village:
    """The state every werewolf-family game shares: the base of each game's frozen dataclass,
    which adds its own fields and gives ``options`` its game's options type and default."""

    options: Any = None
    lang: str = "fr"
    order: tuple[PlayerId, ...] = ()
    seats: Mapping[PlayerId, Seat] = field(default_factory=dict)
    phase: str = "setup"
    number: int = 0
    deadlines: Mapping[str, datetime] = field(default_factory=dict)
    actions: Actions = field(default_factory=dict)
    seq: int = 0
    votes: Mapping[PlayerId, PlayerId] = field(default_factory=dict)
    last_tally: datetime | None = None
    outcome: Outcome | None = None

    def seat(self, name: PlayerId) -> Seat:
        return self.seats[name]

    def living(self) -> list[PlayerId]:
        return [p for p in self.order if self.seats[p].alive]

    def holders(self, role: str, *, alive: bool = True) -> list[PlayerId]:
        """The players holding the card ``role``, in table order (the living ones only when
        ``alive``)."""
        return [
            p
            for p in self.order
            if self.seats[p].role == role and (self.seats[p].alive or not alive)
        ]

    def action(self, actor: PlayerId, verb: str) -> ActionSet | None:
        found = self.actions.get((actor, verb))
        return found[1] if found else None


V = TypeVar("V", bound=Village)


def fold_shared(state: V, event: Event) -> V | None:
    """Fold the common events every werewolf-family game treats alike; None for the others.

    The game's creation (its options parsed into the type of the state's ``options``), a
    withdrawn action, a vote (a withdrawal when ``target`` is None; a changed vote moves to
    the end of the arrival order), a running tally posted, a death, a card change, the end of
    the game.
    """
    match event:
        case GameCreated():
            options = parse_options(type(state.options), event.options)
            return replace(state, options=options, lang=event.lang, order=event.players)
        case TallyPosted():
            return replace(state, last_tally=event.at)
        case ActionCleared():
            key = (event.actor, event.verb)
            return replace(state, actions={k: v for k, v in state.actions.items() if k != key})
        case VoteSet():
            votes = {k: v for k, v in state.votes.items() if k != event.voter}
            if event.target is not None:
                votes[event.voter] = event.target
            return replace(state, votes=votes, seq=state.seq + 1)
        case PlayerDied():
            seat = replace(state.seats[event.player], alive=False, cause=event.cause)
            return replace(state, seats={**state.seats, event.player: seat})
        case RoleChanged():
            seat = replace(state.seats[event.player], role=event.role)
            return replace(state, seats={**state.seats, event.player: seat})
        case GameEnded():
            outcome = Outcome(event.termination, event.side, event.winners)
            return replace(state, phase="over", deadlines={}, outcome=outcome)
    return None
