"""``STATUT``/``STATUS``: the game master's view of the seats' standing (issue 25 follow-up):
the phase, its deadline and who has not acted yet (as ``pbem status`` shows them), the declared
absences in progress or to come, whether they move the deadlines, and the
observers, accepted or awaiting his answer. By mail or ``pbem admin GAME STATUS``."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from pbem.core.commands import Command, CommandSpec
from pbem.desk.common import Result, phase_of, verb

if TYPE_CHECKING:
    from pbem.table.ports import DeskTable

NAME = "status"
SPEC = CommandSpec(verb(NAME), ("STATUT", "ETAT"), ("STATUS",))
HELP = {
    "fr": "STATUT : la phase, son échéance et qui n'a pas encore joué ; les absences en cours ou "
    "à venir et les spectateurs.",
    "en": "STATUS: the phase, its deadline and who has not acted yet; the absences in progress or "
    "to come, and the observers.",
}
EXAMPLE: dict[str, str] = {}
"""None: the command alone is its example."""


def run(table: DeskTable, command: Command, now: datetime, admin: str, lang: str) -> Result:
    """The phase, its deadline and who has not acted yet, the absences and the observers, to the
    game master."""
    # late: pbem.judge loads the table, whose admin lines load this package
    from pbem.judge.absence import extends, standing
    from pbem.judge.observer import observers

    seen = observers(table)
    away = {
        "game": table.rules.title,
        "absences": standing(table, now),
        "extends": extends(table.state),
        "genders": table.genders,
    }
    watching = {"game": table.rules.title, "joined": sorted(seen.joined)}
    watching["pending"] = sorted(seen.pending)
    deadlines = table.deadlines()
    phase = {
        **phase_of(table),
        "deadline": min(deadlines.values()).isoformat() if deadlines else "",
        "paused": table.paused,
        "finished": table.finished,
        "waiting": sorted(table.roster.shown(p) for p in table.awaiting()),
    }
    return Result(
        (),
        (
            table.renderer.text("desk/waiting", lang, phase),
            table.renderer.text("desk/status", lang, table.roster.show(away)),
            table.renderer.text("desk/observers", lang, watching),
        ),
    )
