"""``HISTORIQUE nom [phase|TOUT]``/``HISTORY name [phase|ALL]``: one seat's history, to the
game master, as the seat itself gets it (njudge's HISTORY for the master): the list's posts,
the seat's own mails and its orders, phase by phase (:mod:`pbem.judge.history`). A question
about what a player was told, or sent, is answered from the log, not from memory."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from pbem.core.commands import Command, CommandSpec, Player, Text
from pbem.core.errors import IllegalNow
from pbem.desk.common import Result, verb

if TYPE_CHECKING:
    from pbem.table.ports import DeskTable

NAME = "history"
SPEC = CommandSpec(
    verb(NAME),
    ("HISTORIQUE",),
    ("HISTORY",),
    (Player(), Text(optional=True)),
)
HELP = {
    "fr": "HISTORIQUE nom [phase|TOUT] : à vous seul, ce que ce joueur a reçu et envoyé (la liste, "
    "ses messages, ses ordres), phase par phase.",
    "en": "HISTORY name [phase|ALL]: to you only, what that player got and sent (the list, their "
    "mails, their orders), phase by phase.",
}
EXAMPLE = {"fr": "HISTORIQUE {name} NUIT 1", "en": "HISTORY {name} NIGHT 1"}


def run(table: DeskTable, command: Command, now: datetime, admin: str, lang: str) -> Result:
    """The seat's history in the phases asked for, to the game master, as the seat got it."""
    # late: pbem.judge's services import the table, which imports the desk
    from pbem.judge.history import Selection, history_phases, selection
    from pbem.record.story import phase_marks

    seat = command.targets[0]
    rounds = "round" in table.summary()
    marks = phase_marks(table.events, rounds)
    current_round = marks[-1].round if marks else 0
    wanted = selection(command.text, rounds=rounds, current_round=current_round)
    if not any(wanted.holds(m) for m in marks):  # a phase not (yet) played
        raise IllegalNow("history_none", text=command.text)
    params = {
        "game": table.rules.title,
        "game_id": table.rules.id,
        "asked": command.text if wanted != Selection() else "",
        "phases": history_phases(table, seat, lang, marks, wanted),
        "seat": table.roster.shown(seat),
    }
    return Result((), (table.renderer.text("common/history", lang, params),))
