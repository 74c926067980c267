"""``PROLONGER 24h``/``EXTEND 24h``: every deadline of the current phase moves that much later;
every player is told the new deadline."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from pbem.core.commands import Command, CommandSpec, Text
from pbem.core.errors import IllegalNow
from pbem.core.events import DeadlineMoved
from pbem.desk.common import Result, new_deadline, notice, running, verb
from pbem.desk.kernel import parse_duration

if TYPE_CHECKING:
    from pbem.table.ports import DeskTable

NAME = "extend"
# optional: a bare PROLONGER is answered « Durée illisible » by parse_duration, not « the text
# to send is missing »
SPEC = CommandSpec(verb(NAME), ("PROLONGER",), ("EXTEND",), (Text(optional=True),))
HELP = {
    "fr": "PROLONGER durée : repousse d'autant l'échéance de la phase en cours (24h, 2j, 90m).",
    "en": "EXTEND duration: moves the current phase's deadline that much later (24h, 2d, 90m).",
}
EXAMPLE = {"fr": "PROLONGER 2j", "en": "EXTEND 2d"}


def run(table: DeskTable, command: Command, now: datetime, admin: str, lang: str) -> Result:
    """Move every deadline of the current phase that much later and tell every player."""
    running(table)
    by = parse_duration(command.text)
    ruled = table.rules.deadlines(table.state)
    if not ruled:
        raise IllegalNow("desk_no_deadline")
    moves = [
        DeadlineMoved(key, due, table.desk.moves.get((key, due), due) + by)
        for key, due in ruled.items()
    ]
    deadlines = {m.key: m.to.isoformat() for m in moves}
    return Result(
        (*moves, notice("extended", deadlines=deadlines, paused=table.paused)),
        (new_deadline(table, moves, lang),),
    )
