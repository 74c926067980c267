"""``REPRISE``/``RESUME``: the deadlines run again, each moved by the pause's length."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from pbem.core.commands import Command, CommandSpec
from pbem.core.errors import IllegalNow
from pbem.core.events import DeadlineMoved, Resumed
from pbem.desk.common import Result, new_deadline, notice, running, verb

if TYPE_CHECKING:
    from pbem.table.ports import DeskTable

NAME = "resume"
SPEC = CommandSpec(verb(NAME), ("REPRISE", "REPRENDRE"), ("RESUME",))
HELP = {
    "fr": "REPRISE : relance les échéances ; chacun retrouve le temps qui lui restait.",
    "en": "RESUME: the deadlines run again, with the time that was left.",
}
EXAMPLE: dict[str, str] = {}
"""None: the command alone is its example."""


def run(table: DeskTable, command: Command, now: datetime, admin: str, lang: str) -> Result:
    """Run the deadlines again, each moved by the pause's length, and tell the players; refused if
    not paused."""
    running(table)
    paused_at = table.desk.paused_at
    if paused_at is None:
        raise IllegalNow("desk_not_paused")
    gap = max(now - paused_at, now - now)
    moves = []
    for key, due in table.rules.deadlines(table.state).items():
        current = table.desk.moves.get((key, due), due)
        moves.append(DeadlineMoved(key, due, current + gap))
    deadlines = {m.key: m.to.isoformat() for m in moves}
    return Result(
        (Resumed(now), *moves, notice("resumed", deadlines=deadlines)),
        (new_deadline(table, moves, lang, paused=False),) if moves else (),
    )
