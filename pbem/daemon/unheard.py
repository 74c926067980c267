"""Forgiveness (issue 25 item 2): the daemon notes in a game's log each time it could not hear
a seat (``Unheard``): his mail bounced, was held (crash loop, oversize, DKIM, a confirmation
pending), or the daemon was down across a deadline. The phase it falls in is then not counted
against the seat (pbem/core/absences.py): a pure reading of the log, which ``pbem verify``
replays alike."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from datetime import datetime

from pbem.core.events import Unheard
from pbem.daemon.ports import Game
from pbem.table.step import Step

log = logging.getLogger(__name__)


def unheard_step(game: Game, seats: Iterable[str], cause: str, now: datetime) -> Step | None:
    """The step noting that the daemon could not hear ``seats`` (``""``: anyone) for
    ``cause``; None for a game over (nothing is counted any more) or no seat."""
    make = getattr(game.table, "step", None)  # a game's Table (a sign-up lobby counts nothing)
    if game.table.finished or not callable(make):
        return None
    events = [Unheard(seat, cause, now) for seat in dict.fromkeys(seats)]
    step: Step | None = make(events) if events else None
    return step


def seat_of(game: Game, address: str | None) -> str | None:
    """The seat ``address`` holds in ``game`` now, or None."""
    wanted = (address or "").lower()
    return next((s for s, a in game.table.player_emails.items() if a.lower() == wanted), None)


def note_unheard(games: Mapping[str, Game], address: str, cause: str, now: datetime) -> int:
    """Note in every running game where ``address`` holds a seat that the daemon could not
    hear it (its own write: the caller's was to the daemon's file); how many games."""
    n = 0
    for game in games.values():
        seat = seat_of(game, address)
        step = None if seat is None else unheard_step(game, [seat], cause, now)
        if step is None:
            continue
        game.store.commit(events=step.events)
        game.table.apply(step)
        log.info("game %s: %s not heard (%s): the phase is not counted", game.id, seat, cause)
        n += 1
    return n
