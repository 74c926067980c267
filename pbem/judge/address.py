"""Issue 25: being built in this session (a module of its own, replaced whole)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from pbem.core.errors import IllegalNow

if TYPE_CHECKING:
    from pbem.core.commands import Command
    from pbem.core.events import Event
    from pbem.core.game import PlayerSpec
    from pbem.table.step import Reply
    from pbem.table.table import Table


def run(
    table: Table,
    state: Any,
    player: PlayerSpec,
    command: Command,
    line: str,
    now: datetime,
    events: list[Event],
    reply: Reply,
) -> Any:
    """Not yet."""
    raise IllegalNow("not_now")
