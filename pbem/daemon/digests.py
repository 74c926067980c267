"""The daily digest (issue 25 item 6): once a day, at ``[daemon] digest_hour`` in each game's
time zone, the seats that asked for it (``DIGEST on``) get the day's public posts in one mail.

The content is the judge's pure :func:`pbem.judge.digest.digest_step`; here, the timer (one
:class:`pbem.daemon.jobs.DigestJob` a game that has subscribers, armed with its deadlines by
:meth:`pbem.daemon.deadlines.Deadlines.rearm`) and the one write: the day's ``DigestSent``
event and its mails committed together, so a digest goes out once, even across a crash or a
restart (a job that fires again finds the day's event in the log and sends nothing)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from pbem.daemon.config import Config
from pbem.daemon.ports import Game
from pbem.daemon.replies import Replies
from pbem.judge.digest import digest_step, subscribers
from pbem.table.table import Table

log = logging.getLogger(__name__)


def next_digest(now: datetime, hour: int, timezone: str) -> datetime:
    """The next ``hour`` o'clock in ``timezone`` strictly after ``now`` (an aware time)."""
    tz = ZoneInfo(timezone)
    local = now.astimezone(tz)
    at = local.replace(hour=hour, minute=0, second=0, microsecond=0)
    if at <= local:
        at = (at + timedelta(days=1)).replace(hour=hour)
    return at


@dataclass
class Digests:
    """Sends each game's daily digest. Reads the configuration, the games and the clock; mails
    through ``replies``; ``wake`` tells the sender new rows wait."""

    cfg: Config
    games: Mapping[str, Game]
    clock: Callable[[], datetime]
    replies: Replies
    wake: Callable[[], None]

    _read: dict[str, tuple[int, dict[str, int]]] = field(default_factory=dict)
    """Per game, the log length read and the subscribers found: a rearm after each mail reads
    only the events appended since (the log only grows)."""

    def due(self, game: Game) -> datetime | None:
        """When the game's next digest goes, or None (no subscriber, the game is over)."""
        table = game.table
        if not isinstance(table, Table) or table.finished:
            return None
        seen, known = self._read.get(game.id, (0, {}))
        if seen > len(table.events):  # another table (a reload): read it again
            seen, known = 0, {}
        known = subscribers(table.events, seen, known)
        self._read[game.id] = (len(table.events), known)
        if not known:
            return None
        return next_digest(self.clock(), self.cfg.digest_hour, table.setup.timezone)

    def send(self, game_id: str, now: datetime | None = None) -> int:
        """The game's digest of today (its local date): the mails sent, 0 when it went already
        or there was nothing to tell."""
        game = self.games.get(game_id)
        table = game.table if game is not None else None
        if game is None or not isinstance(table, Table) or table.finished:
            return 0
        now = now or self.clock()
        day = now.astimezone(ZoneInfo(table.setup.timezone)).date().isoformat()
        step = digest_step(table, day)
        if not step.events:
            return 0
        rows = self.replies.rows(game, step, now, error=False)
        game.store.commit(events=step.events, outbox=rows)
        table.apply(step)
        self.wake()
        log.info("game %s: digest of %s to %d seat(s)", game_id, day, len(step.outgoing))
        return len(step.outgoing)
