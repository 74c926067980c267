"""``ROLES``: the whole table, to the game master only: every seat's card and side, the dead,
each player's pending orders, the phase and its deadlines."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from pbem.core.commands import Command, CommandSpec
from pbem.desk.common import Result, cast, deaths, pending_orders, phase_of, verb

if TYPE_CHECKING:
    from pbem.table.ports import DeskTable

NAME = "roles"
SPEC = CommandSpec(verb(NAME), ("ROLES", "RÔLES"), ("ROLES",))
HELP = {
    "fr": "ROLES : toute la table, à vous seul : rôles, camps, morts, ordres en attente.",
    "en": "ROLES: the whole table, to you only: roles, sides, deaths, pending orders.",
}
EXAMPLE: dict[str, str] = {}
"""None: the command alone is its example."""


def run(table: DeskTable, command: Command, now: datetime, admin: str, lang: str) -> Result:
    """The whole table, to the game master only: cards, sides, deaths, pending orders, deadlines,
    bench."""
    died = deaths(table)
    params = {
        "game": table.rules.title,
        "names": f"{table.rules.templates}/_names.jinja",
        "cast": [
            {**s, "holder": _holder(table, s["name"]), "death": died.get(s["name"], {})}
            for s in cast(table)
        ],
        "genders": table.genders,  # « morte, lynchée au jour 2 » agrees with the seat
        # a seat that changed hands is named as the players know it (issue 13)
        "orders": pending_orders(table.ruled, table.rules.all_commands, lang, table.roster.renamed),
        "deadlines": {k: v.isoformat() for k, v in table.deadlines().items()},
        "bench": [f"{b.name} <{b.email}>" for b in table.roster.bench],  # issue 13
        "paused": table.paused,
        "finished": table.finished,
        **phase_of(table),
    }
    return Result((), (table.renderer.text("desk/roles", lang, params),))


def _holder(table: DeskTable, seat: str) -> str:
    """Who holds a seat that changed hands (the roster): ``Zoe <zoe@example.net>``; empty
    for a seat still held by its first player."""
    first = next((p.email for p in table.setup.players if p.name == seat), "")
    holder = table.roster.by_seat(seat)
    if holder.email == first:
        return ""
    return f"{holder.name} <{holder.email}>"
