"""Roles as data: a game's cards are one table of :class:`Role` records.

A record holds the facts of a card that the rules read: its team, how many copies the deck
holds and from how many players, the words that name it, the actions it owns (verb, the phase
or sub-phase that collects it, its priority in the resolution loop, once per game), the
template of its prompt, and whether the holders of the card know each other. A game lists its
records in an explicit tuple and derives its lookups from it with the functions below; the
genuinely odd cards keep a small hook in the game's own code. Adding a plain card is one
record, its templates and its tests.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Action:
    """A command a card owns."""

    verb: str
    priority: int = 0
    """Its order in the resolution loop, lower first (0: not resolved by the loop)."""
    phase: str = "night"
    """The phase or sub-phase that collects it."""
    nights: tuple[int, ...] = ()
    """The only nights it may be sent (empty: every night of its phase)."""
    once_per_game: bool = False
    allow_self: bool = True
    """The actor may name himself."""


@dataclass(frozen=True)
class Role:
    """One card of a game."""

    id: str
    team: str
    """The side the holder of the card wins with."""
    actions: tuple[Action, ...] = ()
    copies: int = 1
    """How many of these cards a deck holds when it holds the card."""
    min_players: int = 0
    """The smallest table whose recommended deck holds the card (0: always or never)."""
    words: tuple[str, ...] = ()
    """The words that name the card (a nickname may not be one of them)."""
    prompt: str | None = None
    """The template of the card's prompt, sent each night it may act."""
    partners_know: bool = False
    """The holders of the card know each other."""


def role_ids(table: Iterable[Role]) -> tuple[str, ...]:
    """The card ids, in the table's order."""
    return tuple(role.id for role in table)


def by_id(table: Iterable[Role]) -> dict[str, Role]:
    """Each card by its id."""
    return {role.id: role for role in table}


def verb_owners(table: Iterable[Role]) -> dict[str, str]:
    """Which card owns each verb, in the table's order."""
    return {action.verb: role.id for role in table for action in role.actions}


def priorities(table: Iterable[Role]) -> dict[str, int]:
    """Each resolved verb's priority in the resolution loop, lowest (first) first."""
    found = {a.verb: a.priority for role in table for a in role.actions if a.priority}
    return dict(sorted(found.items(), key=lambda kv: kv[1]))


def teams(table: Iterable[Role]) -> dict[str, str]:
    """Each card's team."""
    return {role.id: role.team for role in table}


def action_of(table: Iterable[Role], verb: str) -> Action | None:
    """The record of ``verb``, if a card owns it."""
    return next((a for role in table for a in role.actions if a.verb == verb), None)


def knowing_partners(table: Iterable[Role]) -> frozenset[str]:
    """The cards whose holders know each other."""
    return frozenset(role.id for role in table if role.partners_know)


def words_of(table: Iterable[Role]) -> Mapping[str, tuple[str, ...]]:
    """The words naming each card that has some."""
    return {role.id: role.words for role in table if role.words}


def prompt_of(cards: Mapping[str, Role], card: str) -> str:
    """The template of ``card``'s prompt (KeyError for a card the table gives none)."""
    prompt = cards[card].prompt
    if prompt is None:
        raise KeyError(f"the card {card!r} has no prompt")
    return prompt
