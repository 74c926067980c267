"""The game's hash chain: each phase's close publishes a digest of everything before it.

``H_0`` is the seed's commitment (:func:`pbem.record.seed.commitment`), published under the
opening post. The log is cut after every ``PhaseClosed`` event (the marker the table writes
before a resolution); link ``n`` covers the encoded events after cut ``n-1`` up to and
including cut ``n``: the previous resolution (deaths, the phase that opened and its deadlines),
every accepted order and vote with its sender's seat (and, before a mail's orders, its
``OrdersReceived`` stamp: the seat, the arrival time and the lines as the receipt showed them),
the game master's acts (pauses,
extensions, announcements, removals, substitutions, rollbacks) and the deadlines as moved.
Then::

    H_n = SHA-256( H_{n-1} as 64 lowercase hex digits  ||  canonical JSON of link n )

where the canonical JSON is ``{"events": [...]}``, each event in its public form (every
e-mail address replaced by ``sha256:`` and the SHA-256 of the address in lower case, so the
open record needs no address and whoever knows one can still check it), dumped with sorted keys, no spaces and
``ensure_ascii=False``, encoded in UTF-8 (``json.dumps(sort_keys=True,
separators=(",", ":"), ensure_ascii=False)``). The public result post of close ``n`` carries
``H_n``; a player who kept the posts can later check the exported record against them, and
since each digest covers the one before, one published digest vouches for the whole log up
to it. The chain is a pure function of the log: nothing is stored beside it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

CUT = "PhaseClosed"
"""The encoded ``type`` after which a link ends."""


def canonical_json(value: Any) -> bytes:
    """The canonical bytes of a JSON value (sorted keys, no spaces, UTF-8)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


_ADDRESS = re.compile(r"[^@\s]+@[^@\s]+")


def public_form(value: Any) -> Any:
    """An encoded event with every e-mail address replaced by its ``sha256:`` digest."""
    if isinstance(value, str):
        if _ADDRESS.fullmatch(value):
            return "sha256:" + hashlib.sha256(value.strip().lower().encode()).hexdigest()
        return value
    if isinstance(value, Mapping):
        return {k: public_form(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [public_form(v) for v in value]
    return value


def next_digest(previous: str, events: Sequence[Mapping[str, Any]]) -> str:
    """``H_n`` from ``H_{n-1}`` and the encoded events of link ``n`` (public form or not)."""
    public = [public_form(e) for e in events]
    return hashlib.sha256(previous.encode("ascii") + canonical_json({"events": public})).hexdigest()


@dataclass(frozen=True)
class Link:
    """One link of the chain: its number, the close's deadline key, the index of its
    ``PhaseClosed`` event in the log, and ``H_n``."""

    n: int
    key: str
    index: int
    digest: str

    def to_json(self) -> dict[str, Any]:
        """The link as JSON-ready data."""
        return {"n": self.n, "key": self.key, "index": self.index, "digest": self.digest}


def links(start: str, encoded: Iterable[Mapping[str, Any]]) -> list[Link]:
    """Every link of a log (encoded events), from ``start`` = ``H_0``."""
    out: list[Link] = []
    digest, pending = start, []
    for index, event in enumerate(encoded):
        pending.append(event)
        if event.get("type") == CUT:
            digest = next_digest(digest, pending)
            out.append(Link(len(out) + 1, str(event.get("key", "")), index, digest))
            pending = []
    return out


@dataclass(frozen=True)
class ChainCursor:
    """Where the chain of a live game stands (a cache: the chain stays a pure function of
    the log): the log's events consumed, the encoded ones since the last cut, the links made
    and the last digest."""

    seen: int
    pending: tuple[Mapping[str, Any], ...]
    n: int
    digest: str

    def fed(self, encoded: Iterable[Mapping[str, Any]]) -> tuple[ChainCursor, list[Link]]:
        """The cursor after the next events of the log, and the links they close."""
        seen, pending, n, digest = self.seen, list(self.pending), self.n, self.digest
        found: list[Link] = []
        for event in encoded:
            pending.append(event)
            if event.get("type") == CUT:
                n, digest = n + 1, next_digest(digest, pending)
                found.append(Link(n, str(event.get("key", "")), seen, digest))
                pending = []
            seen += 1
        return ChainCursor(seen, tuple(pending), n, digest), found
