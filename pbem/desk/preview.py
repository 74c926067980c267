"""``APERCU``/``PREVIEW``: what the current phase would resolve to if it closed now, for the
game master only. The real resolution runs on the table as it is (``Table.close`` computes a
step without changing anything) and nothing of it is sent: its mails are shown in the reply."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from pbem.core.commands import Command, CommandSpec
from pbem.desk.common import Result, earliest, running, verb

if TYPE_CHECKING:
    from pbem.table.ports import DeskTable
    from pbem.table.step import Step

NAME = "preview"
SPEC = CommandSpec(verb(NAME), ("APERCU", "APERÇU"), ("PREVIEW",))
HELP = {
    "fr": "APERCU : ce que donnerait la phase si elle était close maintenant (à vous seul).",
    "en": "PREVIEW: what the phase would resolve to if it closed now (to you only).",
}
EXAMPLE: dict[str, str] = {}
"""None: the command alone is its example."""


def preview_step(table: DeskTable, now: datetime) -> Step:
    """The step closing the current phase now would give; the table is left as it was."""
    key, _ = earliest(table)
    return table.close(key, now)


def run(table: DeskTable, command: Command, now: datetime, admin: str, lang: str) -> Result:
    """What closing the phase now would send, to the game master only; nothing changes."""
    running(table)
    step = preview_step(table, now)
    mails = [
        {"to": list(m.to), "public": m.public, "subject": m.subject, "body": m.body}
        for m in step.outgoing
    ]
    text = table.renderer.text("desk/preview", lang, {"mails": mails, "events": len(step.events)})
    return Result((), (text,))
