"""The game master's desk: his commands, by mail and from the shell (``pbem admin``).

One small module per command, as Mailman's ``commands/eml_*.py``: each has a ``NAME``, a
:class:`~pbem.core.commands.CommandSpec` (French and English keywords), a help text in both
languages and a pure ``run(table, command, now, admin, lang) -> Result`` (``lang``: the game master's). They are registered in the
explicit tuple :data:`COMMANDS`. Their facts are kernel events (pbem.desk.kernel) handled by the
Table for every game alike: no game's rules change.
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

COMMANDS: tuple[DeskCommand, ...] = (
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
    help,
)
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


__all__ = ["COMMANDS", "DESK_SPECS", "Result", "is_desk", "run_desk"]
