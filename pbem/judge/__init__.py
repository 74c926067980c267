"""The judges' services (issue 25): what the play-by-email judges (njudge, DPjudge) give a
player beyond the game's own moves, the same in every game. One module a command, as the
game master's are in :mod:`pbem.desk`:

- ``absence``: ABSENCE / ABSENT, a declared absence within the game's allowance;
- ``history``: HISTORIQUE / HISTORY, the game's public posts and the seat's own mails again;
- ``address``: ADRESSE / ADDRESS, a seat's new address, confirmed by a code;
- ``digest``: DIGEST, one mail a day with the day's public posts.

Each module has a :data:`Service` ``run``; the table calls it for its verb
(pbem/table/commands.py), with the state the mail's earlier commands left.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pbem.judge import absence, address, digest, history

if TYPE_CHECKING:
    from pbem.core.commands import Command
    from pbem.core.events import Event
    from pbem.core.game import PlayerSpec
    from pbem.table.ports import AnsweringTable
    from pbem.table.step import Reply

Service = Callable[
    ["AnsweringTable", Any, "PlayerSpec", "Command", str, datetime, "list[Event]", "Reply"], Any
]
"""Run one command on ``state``: its events added to ``events``, its answer to ``reply``; the
state after it (as :func:`pbem.table.commands.run_command`)."""

SERVICES: dict[str, Service] = {
    "absence": absence.run,
    "history": history.run,
    "address": address.run,
    "digest": digest.run,
}
