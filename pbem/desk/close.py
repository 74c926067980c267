"""``CLORE``/``CLOSE``: the current phase closes now, exactly as at its deadline."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from pbem.core.commands import Command, CommandSpec
from pbem.core.events import PhaseClosed
from pbem.desk.common import Result, earliest, running, verb

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
    return Result(tuple(replace(f, at=now) if isinstance(f, PhaseClosed) else f for f in facts))
