"""``SPECTATEURS [ACCEPTER|REFUSER adresse]``/``OBSERVERS [ACCEPT|REFUSE address]``: the game
master's answer to the requests to follow the game (issue 25, pbem/judge/observer.py), and the
list of its observers. ``REFUSER`` also removes an observer already accepted. By mail or
``pbem admin GAME ...``."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from pbem.core.commands import Command, CommandSpec, Text
from pbem.core.errors import IllegalNow, InvalidSyntax
from pbem.core.events import ObserverJoined, ObserverLeft
from pbem.core.match import fold
from pbem.desk.common import Result, verb

if TYPE_CHECKING:
    from pbem.table.ports import DeskTable

NAME = "observer"
SPEC = CommandSpec(
    verb(NAME), ("SPECTATEURS", "OBSERVATEURS"), ("OBSERVERS",), (Text(optional=True),)
)
HELP = {
    "fr": (
        "SPECTATEURS : la liste des spectateurs et des demandes en attente. "
        "SPECTATEURS ACCEPTER adresse / SPECTATEURS REFUSER adresse : accepte ou refuse une "
        "demande (REFUSER retire aussi un spectateur déjà accepté)."
    ),
    "en": (
        "OBSERVERS: the observers and the requests awaiting an answer. "
        "OBSERVERS ACCEPT address / OBSERVERS REFUSE address: accepts or refuses a request "
        "(REFUSE also removes an observer already accepted)."
    ),
}
EXAMPLE = {
    "fr": "SPECTATEURS ACCEPTER ami@exemple.org",
    "en": "OBSERVERS ACCEPT friend@example.org",
}

_ACCEPT = {"accepter", "accepte", "accept", "oui", "yes"}
_REFUSE = {"refuser", "refuse", "retirer", "remove", "non", "no"}
_LIST = {"", "liste", "list"}


def run(table: DeskTable, command: Command, now: datetime, admin: str, lang: str) -> Result:
    """List the observers and the requests, or accept or refuse (remove) one by address."""
    # late: pbem.judge loads the table, whose admin lines load this package
    from pbem.judge.observer import observers

    words = command.text.split()
    action = fold(words[0]) if words else ""
    seen = observers(table)
    if action in _LIST and len(words) <= 1:
        params = {
            "game": table.rules.title,
            "joined": sorted(seen.joined),
            "pending": sorted(seen.pending),
        }
        return Result((), (table.renderer.text("desk/observers", lang, params),))
    if len(words) != 2 or action not in _ACCEPT | _REFUSE:
        raise InvalidSyntax("observer_usage")
    address = words[1].strip("<>").lower()
    if action in _ACCEPT:
        if address in seen.joined:  # accepted before: not « no request at this address »
            raise IllegalNow("observer_joined_already", address=address)
        if address not in seen.pending:
            raise IllegalNow("observer_unknown", address=address)
        if table.finished:
            raise IllegalNow("desk_over")
        return Result((ObserverJoined(address, seen.pending[address], admin.lower()),))
    if address not in seen.pending and address not in seen.joined:
        raise IllegalNow("observer_unknown", address=address)
    return Result((ObserverLeft(address, admin.lower()),))
