"""Which player counts a game's rules accept, and the deck they deal for a count.

Pure. The rules are the authority: a count is legal when the game's own setup accepts that
many players with the options the game master chose (LUP-010 8 to 24, LG-002 16, CAS-002 14,
DRA-005 13, or another count where an option allows it), and the deck is what that setup
deals (the cards in play, plus the cards set aside where the game has them, CAS-010). So the
announcement, ``DEMARRER`` and the deadline never disagree with ``pbem new-game``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from pbem.core.errors import SetupError
from pbem.core.game import GameSpec, PlayerSpec, Rules
from pbem.core.ids import PlayerId

TRIAL_START = datetime(2026, 1, 5, 18, 0, tzinfo=UTC)
"""The date a trial deal is made at: the rules' checks of a count do not depend on it."""


def _trial(rules: Rules[Any], count: int, options: Mapping[str, Any], lang: str) -> Any:
    """The state right after the rules' setup for ``count`` players; SetupError if refused."""
    players = tuple(
        PlayerSpec(PlayerId(f"P{i}"), f"p{i}@seat.invalid", lang) for i in range(1, count + 1)
    )
    events = rules.setup(GameSpec(players, options, lang), TRIAL_START, random.Random(0))
    return rules.fold(events)


def refusal(rules: Rules[Any], count: int, options: Mapping[str, Any], lang: str) -> str | None:
    """Why the rules refuse ``count`` players with ``options`` (None: they accept it)."""
    try:
        _trial(rules, count, options, lang)
    except SetupError as exc:
        return str(exc)
    return None


def legal_counts(
    rules: Rules[Any], low: int, high: int, options: Mapping[str, Any], lang: str
) -> list[int]:
    """The counts from ``low`` to ``high`` the rules accept."""
    return [n for n in range(low, high + 1) if refusal(rules, n, options, lang) is None]


def deck(
    rules: Rules[Any], count: int, options: Mapping[str, Any], lang: str
) -> tuple[dict[str, int], int]:
    """The deck for ``count`` players, in the rules' order of roles, and how many of its cards
    are set aside (Chasse aux sorcières deals 14 of its 16 cards, CAS-010)."""
    summary = rules.summary(_trial(rules, count, options, lang))
    aside = [str(r) for r in summary.get("leftover") or ()]
    cards = Counter([str(p["role"]) for p in summary["players"]] + aside)
    order = {role: i for i, role in enumerate(rules.roles)}
    ranked = sorted(cards, key=lambda role: order.get(role, len(order)))
    return {role: cards[role] for role in ranked}, len(aside)


__all__ = ["deck", "legal_counts", "refusal"]
