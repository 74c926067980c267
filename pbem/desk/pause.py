"""``PAUSE``: the deadlines are frozen; the players are told (``REPRISE`` restores the time)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from pbem.core.commands import Command, CommandSpec, Text
from pbem.core.errors import IllegalNow
from pbem.core.events import Paused
from pbem.desk.common import Result, notice, running, verb

if TYPE_CHECKING:
    from pbem.table.ports import DeskTable

NAME = "pause"
SPEC = CommandSpec(verb(NAME), ("PAUSE",), ("PAUSE",), (Text(optional=True),))
HELP = {
    "fr": "PAUSE [raison] : gèle les échéances ; les joueurs sont prévenus.",
    "en": "PAUSE [reason]: freezes the deadlines; the players are told.",
}
EXAMPLE = {"fr": "PAUSE vacances de Noël", "en": "PAUSE Christmas holidays"}


def run(table: DeskTable, command: Command, now: datetime, admin: str, lang: str) -> Result:
    """Freeze the deadlines and tell the players; refused if already paused."""
    running(table)
    if table.paused:
        raise IllegalNow("desk_paused_already")
    return Result((Paused(now), notice("paused", reason=command.text)))
