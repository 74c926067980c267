"""Cards of the werewolf-family games: the deal with its leftover cards, card swaps and
exchanges, and once-per-game powers that move with the card."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pbem.core.errors import SetupError
from pbem.core.events import Event, RoleChanged
from pbem.core.ids import PlayerId


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
