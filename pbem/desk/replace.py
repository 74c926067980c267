"""``REMPLACER nom par adresse [nom] [il|elle]``/``REPLACE name WITH address [name] [he|she]``:
a newcomer takes a living seat (issue 13), or ``REMPLACER nom par <nom du banc>`` a volunteer
of the bench. ``pbem seat replace`` sends the same line through the admin spool.

The seat keeps its card, votes and history; the roster moves its mail, commands and list
membership to the new address; the list is told, the newcomer gets the hand-over packet
(pbem/seats/handover.py) and the old address a goodbye. The checks are pbem/seats/substitution.py's.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from pbem.core.commands import Command, CommandSpec, Player, Text
from pbem.desk.common import Result, verb
from pbem.seats.substitution import parse_newcomer, substitution

if TYPE_CHECKING:
    from pbem.table.ports import DeskTable

NAME = "replace"
SPEC = CommandSpec(
    verb(NAME), ("REMPLACER", "REMPLACE"), ("REPLACE",), (Player(), Text(optional=True))
)
HELP = {
    "fr": (
        "REMPLACER nom par adresse [nom] [il|elle] : un nouveau joueur prend le siège d'un "
        "joueur vivant (son rôle, ses votes, son histoire) ; il reçoit le dossier du siège. "
        "REMPLACER nom par nom-du-volontaire : un volontaire du banc (REMPLACANT) le prend."
    ),
    "en": (
        "REPLACE name WITH address [name] [he|she|they]: a newcomer takes a living player's "
        "seat (its role, votes and history) and gets the seat's hand-over packet. "
        "REPLACE name WITH volunteer's-name: a volunteer of the bench (SUBSTITUTE) takes it."
    ),
}
EXAMPLE = {
    "fr": "REMPLACER {name} par zoe@exemple.org Zoé elle",
    "en": "REPLACE {name} WITH zoe@example.org Zoe she",
}


def run(table: DeskTable, command: Command, now: datetime, admin: str, lang: str) -> Result:
    """Seat the newcomer (or a volunteer of the bench) in the living seat; the game master is
    told."""
    seat = command.targets[0]
    event = substitution(table, seat, parse_newcomer(table, command.text))
    text = table.renderer.text(
        "desk/replaced",
        lang,
        {"old": event.old_name, "name": event.name, "address": event.email, "seat": seat},
    )
    return Result((event,), (text,))
