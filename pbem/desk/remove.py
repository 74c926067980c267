"""``RETIRER nom [raison]``/``REMOVE name [reason]``: the game master removes a player.

The seat leaves the game for good: ``SeatRemoved`` then its death, with what each game's
rules make of it (pbem/games/removal.py, docs/seats.md), announced on the list with the
reason given (« Alice a été retirée de la partie : … »), the card shown per the
``removal_reveal`` option. Unlike the desk's other acts these are the rules' events (the seat
is dead for the rules), so ``ANNULER RESOLUTION`` does not undo a removal.

In a player's mouth ``RETIRER`` withdraws a vote (LUP-620, LG-623, CAS-621); only the game
master's commands read it this way.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from pbem.core.commands import Command, CommandSpec, Player, Text
from pbem.desk.common import Result, running, verb
from pbem.games.removal import removal_events

if TYPE_CHECKING:
    from pbem.table.ports import DeskTable

NAME = "remove"
SPEC = CommandSpec(verb(NAME), ("RETIRER",), ("REMOVE",), (Player(), Text(optional=True)))
HELP = {
    "fr": "RETIRER nom [raison] : retire ce joueur de la partie (sa mort, avec ses conséquences "
    "dans ce jeu), annoncé sur la liste avec la raison.",
    "en": "REMOVE name [reason]: removes that player from the game (the seat's death, with its "
    "consequences in this game), announced on the list with the reason.",
}
EXAMPLE = {
    "fr": "RETIRER {name} ne répond plus depuis une semaine",
    "en": "REMOVE {name} silent for a week",
}


def run(table: DeskTable, command: Command, now: datetime, admin: str, lang: str) -> Result:
    """Remove the player for good: the seat's death and what the game's rules make of it."""
    running(table)
    player = command.targets[0]
    events = removal_events(
        table.rules,
        table.state,
        player,
        reason=command.text.strip(),
        by=admin,
        now=now,
        rng=table.removal_rng(),
    )
    return Result(tuple(events))
