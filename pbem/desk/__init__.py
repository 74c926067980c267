"""The game master's desk: his commands, by mail and from the shell (``pbem admin``).

One small module per command, as Mailman's ``commands/eml_*.py``: each has a ``NAME``, a
:class:`~pbem.core.commands.CommandSpec` (French and English keywords), a help text in both
languages and a pure ``run(table, command, now, admin, lang) -> Result`` (``lang``: the game
master's), over the desk's port of the Table (:class:`pbem.table.ports.DeskTable`). They are
registered in the explicit tuple :data:`COMMANDS`, ``AIDE``/``HELP`` last, given the others it
lists (:class:`pbem.desk.help.Help`). Their facts are kernel events (pbem.desk.kernel) handled
by the Table for every game alike: no game's rules change.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from pbem.core.commands import Command, CommandSpec
from pbem.desk import (
    absence,
    address,
    announce,
    close,
    end,
    extend,
    help,
    history,
    observer,
    pause,
    preview,
    remove,
    replace,
    resume,
    roles,
    rollback,
    status,
)
from pbem.desk.common import DeskCommand, Result

if TYPE_CHECKING:
    from pbem.table.ports import DeskTable

_LISTED: tuple[DeskCommand, ...] = (
    pause,
    resume,
    extend,
    close,
    roles,
    announce,
    remove,
    end,
    preview,
    rollback,
    replace,
    absence,
    address,
    history,
    observer,
    status,
)
COMMANDS: tuple[DeskCommand, ...] = (*_LISTED, help.Help(_LISTED))
"""Every desk command, in the order ``AIDE``/``HELP`` lists them."""

DESK_SPECS: tuple[CommandSpec, ...] = tuple(c.SPEC for c in COMMANDS)
_BY_VERB = {c.SPEC.verb: c for c in COMMANDS}


def is_desk(verb: str) -> bool:
    """Whether ``verb`` is one of the desk's commands (not a game's own admin command)."""
    return verb in _BY_VERB


def run_desk(table: DeskTable, command: Command, now: datetime, admin: str, lang: str) -> Result:
    """Run a desk command on ``table`` for the game master ``admin``, answered in ``lang`` (the
    language of his mail's command words, else the game's); raises a CommandError to reject
    it."""
    return _BY_VERB[command.verb].run(table, command, now, admin, lang)


def usage(table: DeskTable, verb: str, lang: str) -> str:
    """The form and an example of the desk command ``verb``, for the reply to a line of it
    the grammar refused (a missing or extra argument); empty for another verb."""
    command = _BY_VERB.get(verb)
    return "" if command is None else help.usage(table, command, lang)


__all__ = ["COMMANDS", "DESK_SPECS", "Result", "is_desk", "run_desk", "usage"]
