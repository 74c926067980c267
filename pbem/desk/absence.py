"""``ABSENCE nom du 12/01 au 14/01 [raison]``/``ABSENT name from … to …``: the game master
declares (or with ``ANNULER``/``CANCEL`` cancels, or bare lists) a player's absence, within
the game's allowance as the player's own ``ABSENCE`` (pbem/judge/absence.py, issue 25); the
player and the other game masters are told."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from pbem.core.commands import Command, CommandSpec, Player, Text
from pbem.desk.common import Result, verb

if TYPE_CHECKING:
    from pbem.table.ports import DeskTable

NAME = "absence"
SPEC = CommandSpec(
    verb(NAME), ("ABSENCE", "ABSENCES"), ("ABSENT", "ABSENCE"), (Player(), Text(optional=True))
)
HELP = {
    "fr": "ABSENCE nom du 12/01 au 14/01 [raison] : déclare l'absence d'un joueur (ABSENCE nom : "
    "ses absences ; ABSENCE nom ANNULER [date] : l'annule).",
    "en": "ABSENT name from 12/01 to 14/01 [reason]: declares a player's absence (ABSENT name: "
    "that player's absences; ABSENT name CANCEL [date]: cancels it).",
}
EXAMPLE = {
    "fr": "ABSENCE {name} du 24/12 au 26/12 Noël",
    "en": "ABSENT {name} from 24/12 to 26/12 Christmas",
}


def run(table: DeskTable, command: Command, now: datetime, admin: str, lang: str) -> Result:
    """Declare, cancel or list the seat's absences as the game master, within the game's allowance;
    the listing answers him."""
    # imported here: pbem.judge's services import the table, which imports the desk
    from pbem.judge.absence import act

    seat = command.targets[0]
    events, _ = act(table, table.state, seat, command.text, now, by=admin)
    listed = act(table, table.state, seat, "", now, events, by=admin)[1]
    return Result(tuple(events), (listed(lang, for_gm=True),))
