"""The open game record: one versioned JSON document a player can read without pbem.

``pbem export GAME`` writes :func:`game_record` of a finished game; its schema is
docs/record-schema.json and docs/record.md explains every field. The record carries the whole
log (``events``, each in the public form of pbem/record/chain.py: no e-mail address), so
``pbem verify`` can check the chain and replay the rules (pbem/record/replay.py); the other
fields are views of that log for readers (the cast and each seat's tenure, the phases with
their orders, tallies, deaths and the game master's acts, the result).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pbem.record.chain import links, public_form
from pbem.record.seed import commitment

if TYPE_CHECKING:
    from pbem.table.table import Table

RECORD_VERSION = 1
"""The version of the record's shape (docs/record-schema.json's ``record_version``)."""
ACTS = frozenset(
    {
        *("Paused", "Resumed", "DeadlineMoved", "RolledBack", "DeskNotice"),  # the desk's
        *("Substituted", "BenchJoined", "SeatRemoved", "AddressChanged"),  # a seat's holder
        *("Unheard", "DigestSent"),  # the server's own: a phase forgiven, a digest sent
        *("ObserverAsked", "ObserverJoined", "ObserverLeft"),  # who follows it: no seat's order
    }
)
"""The acts of the game master and of the server: the desk's, a seat's holder changing, a
removal, a phase forgiven (issue 25), a digest sent, an observer's coming and going (issue 25:
a non-player's, never an order of a seat)."""
REQUESTS = frozenset(
    {
        "OrdersReceived",  # a mail's accepted orders: seat, arrival time, words
        *("AddressAsked", "AddressDropped", "DigestChosen"),  # issue 25's services
        *("AbsenceDeclared", "AbsenceCancelled"),
    }
)
"""The kernel events a player's (or, for an absence, a game master's) command made: listed
among the phase's orders, as the rules' own events are."""


def taken_in(encoded: Sequence[Mapping[str, Any]]) -> list[bool]:
    """Per event, whether the rules took it in from a player: not the opening (up to the
    deal's commitment, or the first phase), not a close's resolution, not a notice, not an
    act of the game master."""
    end = next((i for i, e in enumerate(encoded) if e.get("type") == "DealCommitted"), None)
    if end is None:
        end = next((i for i, e in enumerate(encoded) if e.get("type") == "PhaseStarted"), -1)
    resolved: set[int] = set()
    for index, event in enumerate(encoded):
        if event.get("type") == "PhaseClosed":
            resolved.update(range(index + 1, index + 1 + int(event.get("events", 0))))
    return [
        i > end
        and i not in resolved
        and e.get("type") not in ACTS | {"PhaseClosed", "Notice", "DeskNotice"}
        for i, e in enumerate(encoded)
    ]


def game_record(table: Table) -> dict[str, Any]:
    """The open record of ``table``'s game (finished or not: the caller decides whether the
    seed and the deal's salt may be revealed yet)."""
    setup = table.setup
    encoded = [public_form(table.rules.codec.encode(e)) for e in table.events]
    start = commitment(setup.seed)
    chain = links(start, encoded)
    summary = table.summary()
    return {
        "record_version": RECORD_VERSION,
        "game": setup.game,
        "game_id": setup.game_id,
        "title": table.rules.title,
        "setup": {
            "lang": setup.lang,
            "timezone": setup.timezone,
            "options": dict(setup.options),
            "roles": dict(setup.roles) if setup.roles is not None else None,
            "leftover": list(setup.leftover) if setup.leftover is not None else None,
            "players": [
                {"name": p.name, "lang": p.lang, "gender": p.gender} for p in setup.players
            ],
        },
        "seed": {"scheme": setup.seed_scheme, "value": str(setup.seed), "commitment": start},
        "deal": _deal(table),
        "cast": _cast(setup.players, encoded, chain),
        "phases": _phases(encoded, chain),
        "deaths": _deaths(encoded, chain),
        "result": _result(encoded, summary),
        "chain": {"start": start, "links": [link.to_json() for link in chain]},
        "events": encoded,
    }


def record_name(game_id: str) -> str:
    """The record's file name: ``GAME.record.json`` (``pbem export``, the archive's folder,
    the archive mail's attachment)."""
    return f"{game_id}.record.json"


def record_json(table: Table, *, compact: bool = False) -> str:
    """:func:`game_record` as the file ``pbem export`` writes: sorted keys, one space of
    indent, UTF-8 text (not ``\\u`` escapes), ending with a newline. ``compact``: no indent
    nor spaces, the same JSON value in about 30 % fewer bytes (the archive mail's attachment,
    sent to every player)."""
    record = game_record(table)
    if compact:
        return json.dumps(record, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"
    return json.dumps(record, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def _deal(table: Table) -> dict[str, str] | None:
    from pbem.record.deal import reveal

    shown = reveal(table.events, table.rules.codec.encode, table.rules.id)
    return shown.to_json() if shown is not None else None


def _link_of(index: int, chain: Sequence[Any]) -> int:
    """The number of the link an event's index falls in (its phase: 1 before the first cut)."""
    for link in chain:
        if index <= link.index:
            return int(link.n)
    return len(chain) + 1


def _cast(
    players: Sequence[Any], encoded: Sequence[Mapping[str, Any]], chain: Sequence[Any]
) -> list[dict[str, Any]]:
    seats: dict[str, list[dict[str, Any]]] = {
        p.name: [{"name": p.name, "from_index": 0, "from_link": 1, "until_index": None}]
        for p in players
    }
    for index, event in enumerate(encoded):
        if event.get("type") != "Substituted":
            continue
        tenure = seats.setdefault(str(event["seat"]), [])
        if tenure:
            tenure[-1]["until_index"] = index
        link = _link_of(index, chain)
        tenure.append(
            {"name": event["name"], "from_index": index, "from_link": link, "until_index": None}
        )
    return [{"seat": seat, "holders": holders} for seat, holders in seats.items()]


def _phases(encoded: Sequence[Mapping[str, Any]], chain: Sequence[Any]) -> list[dict[str, Any]]:
    phases: list[dict[str, Any]] = []
    begin = 0
    opened: Mapping[str, Any] | None = None
    orders = taken_in(encoded)
    ends = [link.index for link in chain] + ([len(encoded) - 1] if encoded else [])
    for n, end in enumerate(ends, 1):
        if end < begin:
            continue
        part = encoded[begin : end + 1]
        for event in part:
            if event.get("type") == "PhaseStarted":
                opened = event
        tallies: dict[str, dict[str, Any]] = {}
        for event in part:
            if event.get("type") == "VoteSet":
                tallies.setdefault(str(event["ballot"]), {})[str(event["voter"])] = event["target"]
        phases.append(
            {
                "n": n,
                "phase": opened.get("phase") if opened else None,
                "number": opened.get("number") if opened else None,
                "deadlines": dict(opened.get("deadlines", {})) if opened else {},
                "closed_by": part[-1].get("key") if part[-1].get("type") == "PhaseClosed" else None,
                "digest": chain[n - 1].digest if n <= len(chain) else None,
                "orders": [
                    {"index": begin + i, **e} for i, e in enumerate(part) if orders[begin + i]
                ],
                "tallies": tallies,
                "acts": [
                    {"index": begin + i, **e} for i, e in enumerate(part) if e["type"] in ACTS
                ],
            }
        )
        begin = end + 1
    return phases


def _deaths(encoded: Sequence[Mapping[str, Any]], chain: Sequence[Any]) -> list[dict[str, Any]]:
    return [
        {"player": e["player"], "cause": e["cause"], "index": i, "link": _link_of(i, chain)}
        for i, e in enumerate(encoded)
        if e.get("type") == "PlayerDied"
    ]


def _result(
    encoded: Sequence[Mapping[str, Any]], summary: Mapping[str, Any]
) -> dict[str, Any] | None:
    ended = next((e for e in reversed(encoded) if e.get("type") == "GameEnded"), None)
    if ended is None:
        return None
    return {
        "termination": ended.get("termination"),
        "side": ended.get("side"),
        "winners": list(ended.get("winners", [])),
        "players": [dict(p) for p in summary.get("players", [])],
    }
