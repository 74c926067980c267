"""``ANNONCE texte``/``ANNOUNCE text``: a post on the list as the game master."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from pbem.core.commands import Command, CommandSpec, Text
from pbem.desk.common import Result, notice, verb

if TYPE_CHECKING:
    from pbem.table.ports import DeskTable

NAME = "announce"
SPEC = CommandSpec(verb(NAME), ("ANNONCE", "ANNONCER"), ("ANNOUNCE",), (Text(),))
HELP = {
    "fr": "ANNONCE texte : publie le texte sur la liste, au nom du meneur.",
    "en": "ANNOUNCE text: posts the text on the list as the game master.",
}
EXAMPLE = {
    "fr": "ANNONCE Le jour 2 commence une heure plus tard",
    "en": "ANNOUNCE Day 2 starts an hour later",
}


def run(table: DeskTable, command: Command, now: datetime, admin: str, lang: str) -> Result:
    """Post the text on the list as the game master."""
    return Result((notice("announce", text=command.text),))
