"""Votes of the werewolf-family games: ranking, plurality (plain or weighted), the public
tally and the forum's bold-name vote."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import TypeVar

from pbem.core.errors import InvalidSyntax
from pbem.core.events import Event, Notice, VoteSet
from pbem.core.folded import Trace
from pbem.core.ids import PlayerId
from pbem.core.match import fold, names_by_fold
from pbem.games.village.events import TallyPosted
from pbem.games.village.state import V

K = TypeVar("K", bound=Hashable)


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
    table = tuple(names)
    by_spelling = _names_as_written(table)
    if len(bold) == 1:  # one bold name (the forum's vote, as the bots write it: issue 23)
        text = bold[0].strip()
        one = by_spelling.get(text)
        if one is not None:
            return one
        folded = names_by_fold(table).get(fold(text))
        return None if folded is None else PlayerId(folded)
    by_fold = names_by_fold(table)
    found: list[str] = []
    for text in bold:
        text = text.strip()
        # a name as the table writes it is read without folding it again (the forum's bold
        # vote, as the bots write it: issue 23); any other spelling is folded once
        name: str | None = by_spelling.get(text)
        if name is None:
            name = by_fold.get(fold(text))
        if name is not None and name not in found:
            found.append(name)
    if len(found) > 1:
        raise InvalidSyntax("several_bold_names", names=found)
    return PlayerId(found[0]) if found else None


@functools.lru_cache(maxsize=256)
def _names_as_written(names: tuple[str, ...]) -> dict[str, PlayerId]:
    """Each name of ``names`` as written, with the player :func:`names_by_fold` finds for
    its folded spelling (a table's names: asked at each bold vote, never changed)."""
    by_fold = names_by_fold(names)
    return {n: PlayerId(by_fold[fold(n)]) for n in names}


def vote_and_tally(
    state: V,
    vote: VoteSet,
    now: datetime,
    interval: timedelta,
    evolve: Callable[[V, Event], V],
    tally: Callable[[V], Notice],
) -> list[Event]:
    """A vote, then the running tally after it on the list, unless the last tally is younger
    than ``interval`` (LUP-D18, LG-525, LG-741, CAS-730: a tally at most every so often)."""
    last = state.last_tally
    if last is not None and now - last < interval:
        return [vote]
    # the tally reads the state after the vote: that fold is traced (pbem.core.folded), so a
    # caller folding these very events takes the state built here instead of folding the
    # vote a second time (issue 23); a notice changes no village state
    trace = Trace(state)
    voted = evolve(state, vote)
    trace.add(vote, voted)
    posted = TallyPosted(now)
    trace.add(posted, evolve(voted, posted))
    notice = tally(voted)
    trace.add(notice, trace.state)
    return [vote, posted, notice]
