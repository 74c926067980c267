"""Which game ids mail can tell apart (issue 21, item 11).

Pure. A game's id is the tail of its plus-address (``moderator+village1@example.org``) and the
``[village1]`` tag of its Subjects; routing reads both without regard to case, so two ids that
differ only in case would leave one game unreachable, and an id equal to another address's tail
(the bounce address ``moderator+bounces@``, a list ``moderator+list@``) would take that
address's mail. An address's local part is at most 64 octets (RFC 5321, 4.5.3.1.1), so the id's
length limit depends on the moderator's own local part.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["RESERVED_IDS", "game_id_problem", "longest_game_id", "plus_tails"]

MAX_LOCAL_PART = 64

RESERVED_IDS = frozenset(
    {
        "bounce",
        "bounces",
        "list",
        "lists",
        "owner",
        "request",
        "admin",
        "postmaster",
        "abuse",
        "mailer-daemon",
        "noreply",
        "no-reply",
    }
)
"""Local parts and tails that mail systems and list managers give a meaning of their own."""

_ID = re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*")


def longest_game_id(moderator: str) -> int:
    """The longest id whose plus-address ``local+ID@domain`` is still a valid address."""
    local = moderator.partition("@")[0]
    return MAX_LOCAL_PART - len(local.encode("utf-8")) - 1


def plus_tails(moderator: str, addresses: Iterable[str]) -> set[str]:
    """The tails (lower-case) of the moderator's plus-addresses among ``addresses``: ids that
    would route their mail to a game."""
    local, _, domain = moderator.lower().partition("@")
    tails = set()
    for address in addresses:
        a_local, _, a_domain = address.strip().lower().partition("@")
        if a_domain == domain and a_local.startswith(local + "+"):
            tails.add(a_local[len(local) + 1 :])
    return tails


def game_id_problem(game_id: str, moderator: str, taken: Iterable[str] = ()) -> str | None:
    """Why ``game_id`` cannot be a new game's id, or None. ``taken``: the ids already used and
    the tails of the moderator's other plus-addresses (compared without case)."""
    limit = longest_game_id(moderator)
    if not _ID.fullmatch(game_id):
        return (
            "letters, digits, '_', '-' and single inner dots only (it is an address's tail and "
            "a Subject's [tag])"
        )
    if len(game_id) > limit:
        return (
            f"is {len(game_id)} characters long; at most {limit} here (the plus-address "
            f"{moderator.partition('@')[0]}+ID@ must fit the {MAX_LOCAL_PART} characters of "
            "an address's local part)"
        )
    folded = game_id.lower()
    if folded in RESERVED_IDS:
        return f"is reserved (mail systems give it a meaning: {', '.join(sorted(RESERVED_IDS))})"
    clash = next((t for t in taken if t.lower() == folded), None)
    if clash is not None:
        return (
            f"is taken: {clash!r} is already in use, and mail tells ids apart without regard "
            "to case"
        )
    return None
