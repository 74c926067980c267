"""A verifiable deal: the opening post commits to the deal, the archive reveals it.

The canonical deal is what the rules' ``setup`` dealt: every event it emitted except the game's
creation, the first phase, the notices and the commitment itself (so every seat's role, the
leftover cards, Penny, the Idiot, Dracula and objects where a game deals them at the start),
as JSON with sorted keys and ASCII escapes (so a shell ``printf`` reproduces the same bytes).
The commitment is ``SHA-256(salt ":" canonical)``, the salt drawn by the daemon from
``os.urandom`` at creation: without it nobody can test guesses of the deal against the digest.

Only the initial deal is committed. A card change during the game (Léo taking a leftover card,
Cole's exchange, the Mythomaniac, a bitten human) is an event of the game, shown in the
archive's timeline; a substitution changes who holds a seat, not its card; a rollback removes
resolution events, never the deal. So the digest published at the start stays the one to check.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pbem.core.events import DealCommitted, Event, GameCreated, Notice, PhaseStarted

_NOT_DEALT = (GameCreated, PhaseStarted, Notice, DealCommitted)
SALT_BYTES = 16


def new_salt() -> str:
    """A fresh secret salt (hex), from the OS's CSPRNG, for a game being created."""
    import secrets

    return secrets.token_hex(SALT_BYTES)


def canonical_deal(encoded: Iterable[Mapping[str, Any]], game: str) -> str:
    """The canonical JSON of a deal, from the encoded opening events that dealt it."""
    dealt = [dict(e) for e in encoded if e.get("type") not in {t.__name__ for t in _NOT_DEALT}]
    return json.dumps(
        {"game": game, "deal": dealt}, sort_keys=True, separators=(",", ":"), ensure_ascii=True
    )


def deal_events(events: Iterable[Event]) -> list[Event]:
    """The events of a game's opening that are part of its deal (before the first phase)."""
    out: list[Event] = []
    for event in events:
        if isinstance(event, PhaseStarted):
            break
        if not isinstance(event, _NOT_DEALT):
            out.append(event)
    return out


def digest(salt: str, canonical: str) -> str:
    """The commitment: SHA-256 of ``salt:canonical`` in hex."""
    return hashlib.sha256(f"{salt}:{canonical}".encode()).hexdigest()


def deal_commitment(
    opening: Iterable[Event], encode: Callable[[Event], Mapping[str, Any]], game: str, salt: str
) -> DealCommitted:
    """The event committing a game's opening events to their deal, under ``salt``."""
    canonical = canonical_deal((encode(e) for e in deal_events(opening)), game)
    return DealCommitted(salt, digest(salt, canonical))


def shell_recipe(salt: str, canonical: str) -> str:
    """A one-line shell command printing the digest (``sha256sum`` of coreutils)."""
    quoted = f"{salt}:{canonical}".replace("'", "'\\''")
    return f"printf '%s' '{quoted}' | sha256sum"


@dataclass(frozen=True)
class Reveal:
    """What the archive publishes: the salt, the canonical deal and the digest announced."""

    salt: str
    canonical: str
    digest: str

    @property
    def verifies(self) -> bool:
        """Whether the salt and the canonical deal hash to the digest announced."""
        return digest(self.salt, self.canonical) == self.digest

    @property
    def recipe(self) -> str:
        """A shell command that prints the digest, for a player to check it."""
        return shell_recipe(self.salt, self.canonical)

    def to_json(self) -> dict[str, str]:
        """The reveal as JSON-ready data (salt, canonical deal, digest)."""
        return {"salt": self.salt, "canonical": self.canonical, "digest": self.digest}


def reveal(events: Iterable[Event], encode: Any, game: str) -> Reveal | None:
    """The reveal of a finished game's log, or None if its deal was never committed."""
    events = list(events)
    committed = next((e for e in events if isinstance(e, DealCommitted)), None)
    if committed is None:
        return None
    canonical = canonical_deal((encode(e) for e in deal_events(events)), game)
    return Reveal(committed.salt, canonical, committed.digest)


_MARKED = re.compile(
    r"pbem-deal:(?P<salt>[0-9a-f]+):(?P<digest>[0-9a-f]{64}):(?P<canonical>\{.*\})"
)


def find_reveal(text: str) -> Reveal | None:
    """The reveal in an archive (HTML or text) or in a JSON file written beside it.

    An archive carries one line ``pbem-deal:SALT:DIGEST:CANONICAL`` (HTML-escaped in the HTML
    version, unescaped here); a JSON file has the keys of :meth:`Reveal.to_json`.
    """
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except ValueError:
            data = None
        if isinstance(data, dict) and {"salt", "canonical", "digest"} <= set(data):
            return Reveal(str(data["salt"]), str(data["canonical"]), str(data["digest"]))
    import html

    for line in text.splitlines():
        match = _MARKED.search(html.unescape(line))
        if match:
            return Reveal(match["salt"], match["canonical"], match["digest"])
    return None
