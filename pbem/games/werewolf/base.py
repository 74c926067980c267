"""Pieces shared by the werewolf-family games: dealing (with leftover cards), seats, pending
actions, vote ranking and weighting, card swaps and once-per-game powers that move with the card."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Protocol, TypeVar

from pbem.core.errors import InvalidSyntax, SetupError
from pbem.core.events import (
    ActionCleared,
    ActionSet,
    Event,
    GameEnded,
    PlayerDied,
    RoleChanged,
    VoteSet,
)
from pbem.core.ids import PlayerId
from pbem.core.match import fold
from pbem.core.outcome import Outcome, Termination

K = TypeVar("K", bound=Hashable)


def deal(
    players: Sequence[PlayerId],
    deck: Sequence[str],
    rng: random.Random,
    fixed: Mapping[str, str] | None = None,
    known_roles: Iterable[str] = (),
) -> tuple[dict[str, str], tuple[str, ...]]:
    """Deal ``deck`` uniformly at random, one card per player; the rest is left over.

    A ``fixed`` deal (a transcript's ``roles``) must give every player a role of this game
    and use exactly the deck's cards.
    """
    if fixed is not None:
        known = set(known_roles)
        missing = [p for p in players if p not in fixed]
        extra = [p for p in fixed if p not in players]
        if missing or extra:
            who = missing[0] if missing else extra[0]
            raise SetupError(f"roles: {'no role for' if missing else 'not a player:'} {who}")
        for player, role in fixed.items():
            if role not in known:
                raise SetupError(f"roles: unknown role {role!r} for {player}")
        left = Counter(deck)
        left.subtract(Counter(fixed.values()))
        if any(n < 0 for n in left.values()):
            over = sorted(r for r, n in left.items() if n < 0)
            raise SetupError(f"roles: too many {', '.join(over)} for the deck of {len(players)}")
        leftover = tuple(sorted(left.elements()))
        return {p: fixed[p] for p in players}, leftover
    cards = list(deck)
    rng.shuffle(cards)
    return dict(zip(players, cards, strict=False)), tuple(sorted(cards[len(players) :]))


def ranked(counts: Mapping[K, float]) -> list[list[K]]:
    """Groups of keys with equal counts, best first (keys in first-seen order within a group)."""
    groups: dict[float, list[K]] = {}
    for key, n in counts.items():
        groups.setdefault(n, []).append(key)
    return [groups[n] for n in sorted(groups, reverse=True)]


def plurality(votes: Mapping[PlayerId, PlayerId]) -> list[PlayerId]:
    """The targets with the most votes (several on a tie, none without votes)."""
    counts = Counter(votes.values())
    groups = ranked(counts)
    return groups[0] if groups else []


def weighted_plurality(
    votes: Mapping[PlayerId, PlayerId], weights: Mapping[PlayerId, float]
) -> tuple[list[PlayerId], dict[PlayerId, float]]:
    """The targets with the highest weighted total (a voter absent from ``weights`` weighs 1).

    Returns the leading group (several on a tie, none without votes) and every total, for a
    council whose members do not all weigh the same (Loup-Garou's thief, LG-512).
    """
    totals: dict[PlayerId, float] = {}
    for voter, target in votes.items():
        totals[target] = totals.get(target, 0.0) + weights.get(voter, 1.0)
    groups = ranked(totals)
    return (groups[0] if groups else []), totals


def tally_params(votes: Mapping[PlayerId, PlayerId]) -> dict[str, list[dict[str, object]]]:
    """A public tally: every voter's current vote, then the count per target, best first."""
    counts = Counter(votes.values())
    return {
        "votes": [{"voter": v, "target": t} for v, t in votes.items()],
        "counts": [{"name": n, "count": counts[n]} for group in ranked(counts) for n in group],
    }


@dataclass(frozen=True)
class Seat:
    """One player: current card, the card dealt, life, and the cause of death."""

    name: PlayerId
    role: str
    dealt: str
    alive: bool = True
    cause: str | None = None


@dataclass(frozen=True)
class PowerSpent(Event):
    """A once-per-game power is used up. It belongs to the card ``card``: whoever holds that
    card later (a swap, an exchange) holds a spent power."""

    card: str


@dataclass(frozen=True)
class LeftoverChanged(Event):
    """The cards set aside after a player exchanged his card with one of them."""

    leftover: tuple[str, ...]


def swap_cards(
    roles: Mapping[PlayerId, str], a: PlayerId, b: PlayerId
) -> tuple[RoleChanged, RoleChanged]:
    """The two events of a card swap between players ``a`` and ``b``."""
    return RoleChanged(a, roles[b]), RoleChanged(b, roles[a])


def exchange_with_leftover(
    leftover: Sequence[str], player: PlayerId, holds: str, takes: str
) -> tuple[RoleChanged, LeftoverChanged]:
    """``player`` gives his card ``holds`` and takes ``takes`` from the leftover cards."""
    left = list(leftover)
    left.remove(takes)
    return RoleChanged(player, takes), LeftoverChanged(tuple(sorted([*left, holds])))


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


def bold_name(names: Sequence[PlayerId], bold: Sequence[str]) -> PlayerId | None:
    """The forum convention: the one player's name set in bold in a public post, if any.

    Several different bold names are refused (InvalidSyntax ``several_bold_names``).
    """
    by_fold = {fold(n): n for n in names}
    found = list(
        dict.fromkeys(by_fold[fold(b.strip())] for b in bold if fold(b.strip()) in by_fold)
    )
    if len(found) > 1:
        raise InvalidSyntax("several_bold_names", names=found)
    return PlayerId(found[0]) if found else None


Actions = Mapping[tuple[PlayerId, str], tuple[int, ActionSet]]
"""Pending actions of a phase: (actor, verb) -> (arrival sequence, the action)."""


class VillageState(Protocol):
    """What the werewolf-family states share, for :func:`fold_shared`."""

    __dataclass_fields__: ClassVar[dict[str, Any]]

    @property
    def seats(self) -> Mapping[PlayerId, Any]: ...
    @property
    def actions(self) -> Actions: ...
    @property
    def votes(self) -> Mapping[PlayerId, PlayerId]: ...
    @property
    def seq(self) -> int: ...


V = TypeVar("V", bound=VillageState)


def fold_shared(state: V, event: Event) -> V | None:
    """Fold the common events every werewolf-family game treats alike; None for the others.

    A withdrawn action, a vote (a withdrawal when ``target`` is None; a changed vote moves to
    the end of the arrival order), a death, a card change, the end of the game.
    """
    match event:
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
            outcome = Outcome(Termination(event.termination), event.side, event.winners)
            return replace(state, phase="over", deadlines={}, outcome=outcome)
    return None
