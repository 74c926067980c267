"""``ADRESSE nom nouvelle@adresse``/``ADDRESS name new@address``: the game master sets a seat's
address at once (issue 25, njudge's master SET ADDRESS), by mail or with ``pbem admin GAME
"ADDRESS name new@address"``.

The player's own ``ADRESSE`` waits for a code mailed to the new address
(pbem/judge/address.py); the game master vouches for the address himself, so it needs none.
The checks are the player's (an address nobody plays, steers, waits on the bench with, nor the
game's own); the seat keeps its name, role, language and code. The old address and the new
one are told (pbem/judge/address.py's ``changed_mails``), the old one refused from then on.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from pbem.core.commands import Command, CommandSpec, Player, Text
from pbem.core.errors import IllegalNow, InvalidSyntax
from pbem.core.events import AddressChanged
from pbem.desk.common import Result, verb

if TYPE_CHECKING:
    from pbem.table.ports import DeskTable

NAME = "address"
SPEC = CommandSpec(verb(NAME), ("ADRESSE",), ("ADDRESS",), (Player(), Text(optional=True)))
HELP = {
    "fr": "ADRESSE nom nouvelle@adresse : ce joueur joue désormais depuis cette adresse "
    "(sans code à confirmer) ; les deux adresses sont prévenues.",
    "en": "ADDRESS name new@address: that player plays from this address from now on (no code "
    "to confirm); both addresses are told.",
}
EXAMPLE = {"fr": "ADRESSE {name} nouvelle@exemple.org", "en": "ADDRESS {name} new@example.org"}


def change(
    table: DeskTable, command: Command, admin: str = "", admins: Sequence[str] = ()
) -> AddressChanged:
    """The change ``command`` asks for, by ``admin``; a CommandError says why it cannot be made
    (``admins``: the daemon's game masters, whose addresses no seat may take either)."""
    seat = command.targets[0]
    words = command.text.split()
    if len(words) != 1 or "@" not in words[0]:
        raise InvalidSyntax("address_desk_syntax")
    email = words[0].strip("<>").lower()
    holder = table.roster.by_seat(seat)
    if email == holder.email.lower():
        raise IllegalNow("address_desk_same", name=seat, address=email)
    # imported here: pbem.judge's services import the table, which imports the desk
    from pbem.judge.address import check_free

    check_free(table, email, (*admins, *([admin] if admin else [])))
    return AddressChanged(seat, holder.email, email, by=admin or "admin")


def run(table: DeskTable, command: Command, now: datetime, admin: str, lang: str) -> Result:
    """Move the seat to the new address at once; the game master is told the change."""
    event = change(table, command, admin)
    params = {
        "name": table.roster.shown(event.seat),
        "address": event.email,
        "old": event.old_email,
    }
    return Result((event,), (table.renderer.text("judge/address_desk", lang, params),))
