"""``CLORE``/``CLOSE``: the current phase closes now, exactly as at its deadline."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from pbem.core.commands import Command, CommandSpec
from pbem.core.events import DeadlineMoved, Event, Paused, PhaseClosed
from pbem.desk.common import Result, earliest, notice, running, verb

if TYPE_CHECKING:
    from pbem.table.ports import DeskTable

NAME = "close"
SPEC = CommandSpec(verb(NAME), ("CLORE",), ("CLOSE",))
HELP = {
    "fr": "CLORE : clôt la phase en cours maintenant, comme à son échéance.",
    "en": "CLOSE: closes the current phase now, as at its deadline.",
}
EXAMPLE: dict[str, str] = {}
"""None: the command alone is its example."""


def run(table: DeskTable, command: Command, now: datetime, admin: str, lang: str) -> Result:
    running(table)
    key, _ = earliest(table)
    facts = table.close(key, now).facts
    # marked as the game master's act, for the archive's log of them (issue 22)
    closed = tuple(replace(f, at=now) if isinstance(f, PhaseClosed) else f for f in facts)
    if table.desk.paused_at is None or not closed:
        return Result(closed)
    return Result((*closed, *_still_paused(table, closed, now)))


def _still_paused(table: DeskTable, closed: Sequence[Event], now: datetime) -> list[Event]:
    """A close in a pause opens a phase whose deadlines do not run: it is paused from now,
    so that REPRISE gives it all its time (not the pause's whole length on top), a deadline
    the close left standing keeps what it had left when the pause began, and the players are
    told that the deadlines the new phase announced wait for the resumption. After the
    resolution's own events: ``pbem verify`` replays those, a ROLLBACK voids these too."""
    paused_at = table.desk.paused_at
    assert paused_at is not None
    before = table.rules.deadlines(table.state).items()
    after = table.with_events(closed)
    standing = [(k, d) for k, d in after.rules.deadlines(after.state).items() if (k, d) in before]
    moves = [
        DeadlineMoved(k, d, table.desk.moves.get((k, d), d) + (now - paused_at))
        for k, d in standing
    ]
    return [Paused(now), *moves, notice("still_paused")]
