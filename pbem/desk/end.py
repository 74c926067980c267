"""``FIN [camp|nul]``/``END [side|none]``: the game ends now, with that side winning or nobody;
every card is revealed on the list."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from pbem.core.commands import Command, CommandSpec, Text
from pbem.core.errors import InvalidSyntax
from pbem.core.events import GameEnded
from pbem.core.match import fold
from pbem.core.outcome import Termination
from pbem.desk.common import Result, cast, notice, running, verb

if TYPE_CHECKING:
    from pbem.table import Table

NAME = "end"
SPEC = CommandSpec(verb(NAME), ("FIN",), ("END",), (Text(optional=True),))
HELP = {
    "fr": "FIN [camp|nul] : termine la partie (ce camp gagne, ou personne) ; tout est révélé.",
    "en": "END [side|none]: ends the game (that side wins, or nobody); everything is revealed.",
}
EXAMPLE = {"fr": "FIN NUL", "en": "END NONE"}
NOBODY = ("", "nul", "none", "draw", "personne")


def run(table: Table, command: Command, now: datetime, admin: str) -> Result:
    running(table)
    seats = cast(table)
    sides = sorted({s["side"] for s in seats if s["side"]})
    wanted = fold(command.text.strip())
    side: str | None = None
    if wanted not in NOBODY:
        side = next((s for s in sides if fold(s) == wanted), None)
        if side is None:
            raise InvalidSyntax("desk_unknown_side", side=command.text.strip(), sides=sides)
    winners = tuple(s["name"] for s in seats if side is not None and s["side"] == side)
    return Result(
        (
            GameEnded(Termination.ADMIN, side, winners),
            notice(
                "ended",
                side=side,
                winners=list(winners),
                reveal=seats,
                names=f"{table.rules.templates}/_names.jinja",
            ),
        )
    )
