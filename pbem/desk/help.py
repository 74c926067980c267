"""``AIDE``/``HELP``: the desk's commands, with what each does."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from pbem.core.commands import Command, CommandSpec
from pbem.desk.common import Result, verb

if TYPE_CHECKING:
    from pbem.table import Table

NAME = "help"
SPEC = CommandSpec(verb(NAME), ("AIDE",), ("HELP",))
HELP = {
    "fr": "AIDE : cette liste.",
    "en": "HELP: this list.",
}


def run(table: Table, command: Command, now: datetime, admin: str) -> Result:
    from pbem.desk import COMMANDS  # the registry imports this module

    lang = table.setup.lang
    lines = [c.HELP.get(lang, c.HELP["en"]) for c in COMMANDS]
    lines += [f"{s.keyword(lang)}" for s in table.rules.admin_commands]
    text = table.renderer.text("desk/help", lang, {"game": table.rules.title, "lines": lines})
    return Result((), (text,))
