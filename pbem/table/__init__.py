"""One game's pure pipeline: email in, events and outgoing mail out.

A :class:`Table` joins a game's rules, the mail parsing and the rendering. The daemon and
``pbem simulate`` both drive it, so a transcript behaves exactly as the same mails would by
email. It does no I/O and reads no clock: ``now`` comes in. :meth:`Table.receive` and
:meth:`Table.on_deadline` compute a :class:`Step` without changing the table; the caller
commits the step, then :meth:`Table.apply` folds it in. The RNG of a deadline is seeded from
the game's seed and the length of its log, so a step recomputed after a crash is identical.

One module a concern: ``table`` (the Table: log, state, what is read of it, its inputs),
``setup`` (a game's fixed parameters), ``step`` (what an input gives back), ``receive`` (a
mail to the game), ``commands`` (a player's command lines read and run), ``admin`` (the game
master's lines), ``mails`` (a step's mails), ``wording`` (canonical forms, AIDE's syntax,
refusals), ``ports`` (what those parts, the desk, the judges and the seats read of the Table:
they import its ports, never the Table).
"""

from __future__ import annotations

from pbem.table.setup import TableSetup
from pbem.table.step import Channel, Confirm, Delivery, Outgoing, PostVerdict, Reply, Step
from pbem.table.table import Table

__all__ = [
    "Channel",
    "Confirm",
    "Delivery",
    "Outgoing",
    "PostVerdict",
    "Reply",
    "Step",
    "Table",
    "TableSetup",
]
