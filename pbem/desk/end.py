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
    from pbem.table.ports import DeskTable

NAME = "end"
SPEC = CommandSpec(verb(NAME), ("FIN",), ("END",), (Text(optional=True),))
HELP = {
    "fr": "FIN [camp|nul] : termine la partie (ce camp gagne, ou personne) ; tout est révélé.",
    "en": "END [side|none]: ends the game (that side wins, or nobody); everything is revealed.",
}
EXAMPLE = {"fr": "FIN NUL", "en": "END NONE"}
NOBODY = ("", "nul", "none", "draw", "personne")


def run(table: DeskTable, command: Command, now: datetime, admin: str, lang: str) -> Result:
    """End the game now with the side named winning (or nobody), every card revealed."""
    running(table)
    seats = cast(table)
    sides = sorted({s["side"] for s in seats if s["side"]})
    wanted = fold(command.text.strip())
    side: str | None = None
    if wanted not in NOBODY:
        side = _side(table, sides, wanted)
        if side is None:
            shown = [_side_name(table, s, lang) for s in sides]
            raise InvalidSyntax("desk_unknown_side", side=command.text.strip(), sides=shown)
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


_ARTICLES = ("des ", "du ", "de la ", "the ")


def _side_name(table: DeskTable, side: str, lang: str) -> str:
    """A side as the game master reads it in ``lang`` (« Loups-Garous », "Werewolves"): the
    desk's own name of it (``desk/_table.jinja``), without its article."""
    text = table.renderer.text("desk/side_name", lang, {"side": side}).strip()
    for article in _ARTICLES:
        if text.startswith(article):
            return text[len(article) :]
    return text


def _side(table: DeskTable, sides: list[str], wanted: str) -> str | None:
    """The side ``wanted`` names: its id (``werewolves``), or its name in either language
    (« Loups-Garous », "Werewolves"), whole or by a unique beginning (« loups »)."""
    spellings = {
        s: {fold(s), *(fold(_side_name(table, s, lang)) for lang in ("fr", "en"))} for s in sides
    }
    exact = [s for s, names in spellings.items() if wanted in names]
    if exact:
        return exact[0]
    begun = [s for s, names in spellings.items() if any(n.startswith(wanted) for n in names)]
    return begun[0] if len(begun) == 1 and len(wanted) >= 3 else None
