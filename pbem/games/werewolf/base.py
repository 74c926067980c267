"""Pieces shared by the werewolf-family games: dealing, vote ranking, council tallies."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

from pbem.core.errors import InvalidSyntax, SetupError
from pbem.core.ids import PlayerId
from pbem.core.match import fold

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
