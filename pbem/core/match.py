"""Name matching: accent- and case-insensitive, exact first, then a unique prefix.

Modelled on lykos' ``src/match.py``: a name that is a prefix of several players is ambiguous
and the reply lists them; a name that matches nobody gets "did you mean" suggestions.
"""

from __future__ import annotations

import difflib
import functools
import unicodedata
from collections.abc import Iterable, Sequence

from pbem.core.errors import AmbiguousTarget, UnknownTarget

_STRIP = "*_\"'«»“”‘’.,;:!?()[]<>"


@functools.lru_cache(maxsize=8192)
def fold(text: str) -> str:
    """Return ``text`` without accents, case-folded: the form every comparison uses."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


@functools.lru_cache(maxsize=256)
def names_by_fold(names: tuple[str, ...]) -> dict[str, str]:
    """The players by the folded spelling of their names (a game's table: asked at each bold
    vote, in every game; never changed by its readers)."""
    return {fold(n): n for n in names}


def clean_token(token: str) -> str:
    """Strip the bold markers and punctuation a name may carry in a post (``**bob**,``)."""
    return token.strip().strip(_STRIP).strip()


def match_name(name: str, candidates: Iterable[str], *, prefixes: bool = True) -> str:
    """Return the one candidate ``name`` designates.

    Raises :class:`UnknownTarget` (with suggestions) or :class:`AmbiguousTarget`.
    """
    pool: Sequence[str] = list(candidates)
    wanted = fold(clean_token(name))
    if not wanted:
        raise UnknownTarget(name=name)
    exact = [c for c in pool if fold(c) == wanted]
    if len(exact) == 1:
        return exact[0]
    if prefixes:
        starts = [c for c in pool if fold(c).startswith(wanted)]
        if len(starts) == 1:
            return starts[0]
        if len(starts) > 1:
            raise AmbiguousTarget(name=name, candidates=sorted(starts, key=fold))
    folded = {fold(c): c for c in pool}
    close = difflib.get_close_matches(wanted, list(folded), n=3, cutoff=0.6)
    raise UnknownTarget(name=name, suggestions=[folded[c] for c in close])
