"""``AIDE``/``HELP``: the desk's commands, with what each does and an example.

One source: each command's ``HELP`` (its form, then what it does) and ``EXAMPLE`` are what
this list shows and what a refused line's reply quotes (:func:`usage`); a test parses every
example with the desk's own grammar.

The command is a :class:`Help` over the commands it lists, given by the registry
(:data:`pbem.desk.COMMANDS`), which holds it too: this module imports no registry (no import
circle with :mod:`pbem.desk`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from pbem.core.commands import Command, CommandSpec
from pbem.desk.common import DeskCommand, Result, verb

if TYPE_CHECKING:
    from pbem.table.ports import DeskTable

NAME = "help"
SPEC = CommandSpec(verb(NAME), ("AIDE",), ("HELP",))
HELP = {
    "fr": "AIDE : cette liste.",
    "en": "HELP: this list.",
}
EXAMPLE: dict[str, str] = {}
"""None: the command alone is its example."""


def form(command: DeskCommand, lang: str) -> str:
    """How ``command`` is written (``RETIRER nom [raison]``): its help's words before the
    colon, French typography's « : » or English's ": "."""
    text = command.HELP.get(lang, command.HELP["en"])
    return text.split(" : " if lang == "fr" else ": ", 1)[0]


def example(command: DeskCommand, lang: str, name: str) -> str:
    """``command``'s example in ``lang``, naming the player ``name``; empty when the command
    alone is its example."""
    text = command.EXAMPLE.get(lang, command.EXAMPLE.get("en", ""))
    return text.replace("{name}", name)


def usage(table: DeskTable, command: DeskCommand, lang: str) -> str:
    """The form and an example of ``command``, for the reply to a line of it the grammar
    refused (a missing or extra argument)."""
    params = {"form": form(command, lang), "example": example(command, lang, _a_name(table))}
    return table.renderer.text("desk/usage", lang, params).strip()


def _a_name(table: DeskTable) -> str:
    """A seat's name for the examples: the first seat's, as the game shows it."""
    names = table.roster.shown_names(table.rules.names(table.state))
    return names[0] if names else "Alice"


class Help:
    """``AIDE``/``HELP``: ``others``, the registry's other commands, then itself."""

    NAME = NAME
    SPEC = SPEC
    HELP: Mapping[str, str] = HELP
    EXAMPLE: Mapping[str, str] = EXAMPLE

    def __init__(self, others: Sequence[DeskCommand]) -> None:
        self.others = tuple(others)

    def run(
        self, table: DeskTable, command: Command, now: datetime, admin: str, lang: str
    ) -> Result:
        """The desk's commands, each with what it does and an example, then the game's own."""
        name = _a_name(table)
        lines = [
            {"help": c.HELP.get(lang, c.HELP["en"]), "example": example(c, lang, name)}
            for c in (*self.others, self)
        ]
        # the game's own commands (Dracula's review of a telepathy, AMB-072), as its folder says
        own = f"{table.rules.templates}/admin_help"
        if table.rules.admin_commands and table.renderer.exists(own, lang):
            text = table.renderer.text(own, lang, {})
            lines += [{"help": line, "example": ""} for line in text.splitlines() if line.strip()]
        else:
            lines += [{"help": s.keyword(lang), "example": ""} for s in table.rules.admin_commands]
        params = {"game": table.rules.title, "lines": lines}
        return Result((), (table.renderer.text("desk/help", lang, params),))
