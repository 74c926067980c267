"""``ANNULER RESOLUTION 24h``/``ROLLBACK 24h``: the last resolution is void.

Its events, and every later one, are voided by a ``RolledBack`` kernel event: they stay in the
log as its audit trail and the rules never fold them again. The phase reopens with deadlines
the given time from now. Orders received after the resolution (an ``ActionSet`` or a vote) are
given again to the rules on the reopened phase: kept where still legal, dropped with the rules'
reason otherwise. Every player is told the results are void, and privately which of his orders
stand, which were kept and which were dropped. With nothing re-applied, closing the phase again
draws exactly what it drew (the RNG counts the rules' events only).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from pbem.core.commands import Command, CommandSpec, Text
from pbem.core.errors import CommandError, IllegalNow
from pbem.core.events import (
    DeadlineMoved,
    Event,
    PhaseClosed,
    PhaseStarted,
    PlayerDied,
    RolledBack,
    VoteSet,
    voided,
)
from pbem.desk.common import (
    Result,
    as_command,
    is_order,
    notice,
    order_text,
    pending_orders,
    phase_of,
    verb,
)
from pbem.desk.kernel import parse_duration

if TYPE_CHECKING:
    from pbem.table.ports import DeskTable

NAME = "rollback"
# optional: a bare ROLLBACK is answered « Durée illisible » by parse_duration (as PROLONGER)
SPEC = CommandSpec(
    verb(NAME),
    ("ANNULER RESOLUTION", "ANNULER RÉSOLUTION"),
    ("ROLLBACK",),
    (Text(optional=True),),
)
HELP = {
    "fr": "ANNULER RESOLUTION durée : annule la dernière résolution ; la phase rouvre pour cette "
    "durée.",
    "en": "ROLLBACK duration: voids the last resolution; the phase reopens for that long.",
}
EXAMPLE = {"fr": "ANNULER RESOLUTION 12h", "en": "ROLLBACK 12h"}


def run(table: DeskTable, command: Command, now: datetime, admin: str, lang: str) -> Result:
    """Void the last resolution and reopen its phase for the given time, the later orders given
    again to the rules."""
    by = parse_duration(command.text)
    if not table.desk.closes:
        raise IllegalNow("desk_nothing_to_roll_back")
    start = table.desk.closes[-1]
    marker = table.events[start]
    assert isinstance(marker, PhaseClosed)
    after = start + 1 + marker.events
    void = voided(table.events)
    later = [e for i, e in enumerate(table.events[after:], after) if i not in void and is_order(e)]
    rolled = RolledBack(start, len(table.events))
    back = table.with_events([rolled])
    ruled = back.rules.deadlines(back.state)
    if not ruled:
        raise IllegalNow("desk_no_deadline")
    first = min(ruled.values())
    moves = [DeadlineMoved(k, d, now + by + (d - first)) for k, d in ruled.items()]
    events: list[Event] = [rolled, *moves]
    state = back.state
    kept: dict[str, list[str]] = {}
    dropped: dict[str, list[dict[str, str]]] = {}
    new: list[Event] = []
    specs = table.rules.all_commands
    langs = table.player_langs
    shown = table.roster.renamed  # a seat that changed hands, named as the players know it
    for event in later:
        order = as_command(event)
        if order is None:
            continue
        actor, again = order
        channel = "list" if isinstance(event, VoteSet) else "private"
        try:
            caused = table.rules.decide(state, actor, again, now, channel)
        except CommandError as exc:
            # told to the actor: « Vous êtes déjà une louve » agrees with her
            reason = table.reason(exc, langs.get(actor, table.setup.lang), actor)
            text = order_text(event, specs, langs.get(actor, table.setup.lang), shown)
            dropped.setdefault(actor, []).append({"order": text, "reason": reason})
            continue
        new += caused
        state = table.rules.fold(caused, state)
        kept.setdefault(actor, []).append(
            order_text(event, specs, langs.get(actor, table.setup.lang), shown)
        )
    phase = phase_of(back)
    deadlines = {m.key: m.to.isoformat() for m in moves}
    events += new
    events.append(notice("rolled_back", deadlines=deadlines, **phase))
    for name in table.rules.names(table.state):
        lang = langs.get(name, table.setup.lang)
        standing = pending_orders([*back.ruled, *new], specs, lang, shown)
        params: dict[str, Any] = {
            "standing": standing.get(name, []),
            "kept": kept.get(name, []),
            "dropped": dropped.get(name, []),
            **phase,
        }
        events.append(notice("your_orders", (name,), **params))
    undone = [e for i, e in enumerate(table.events[start:], start) if i not in void]
    told = {
        "reopened": phase,
        "opened": next(
            ({"phase": e.phase, "number": e.number} for e in undone if isinstance(e, PhaseStarted)),
            None,
        ),
        "deaths": [table.roster.shown(e.player) for e in undone if isinstance(e, PlayerDied)],
        "deadline": min(m.to for m in moves).isoformat(),
        "kept": sum(len(k) for k in kept.values()),
        "dropped": sum(len(d) for d in dropped.values()),
    }
    # the game master reads what his command undid, not only that it was accepted
    return Result(tuple(events), (table.renderer.text("desk/rolled_back_gm", lang, told),))
