"""The daily digest (issue 25 item 6): once a day, at ``[daemon] digest_hour`` in each game's
time zone, the seats that asked for it (``DIGEST on``) get the day's public posts in one mail.

The content is the judge's pure :func:`pbem.judge.digest.digest_step`; here, the timer (one
:class:`pbem.daemon.jobs.DigestJob` a game that has subscribers, armed with its deadlines by
:meth:`pbem.daemon.deadlines.Deadlines.rearm`), the list posts kept for the digest and the one
write: the day's ``DigestSent`` event and its mails committed together, so a digest goes out
once, even across a crash or a restart (a job that fires again finds the day's event in the
log and sends nothing).

When the daemon is the list (``[list] mode = relay``), a post it relays is not copied to the
digest's readers: it is kept for their digest instead, as a held post of kind ``digest`` (its
bytes in a file apart, as the posts held while the list is closed; never in the game's log,
which the open record publishes), committed with the relayed copy, and released with the
digest that tells it."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import Message
from typing import Any
from zoneinfo import ZoneInfo

from pbem.daemon.config import Config
from pbem.daemon.gamelist import poster_of
from pbem.daemon.message import parse
from pbem.daemon.ports import Game
from pbem.daemon.replies import Replies
from pbem.judge.digest import digest_step, subscribers
from pbem.table.table import Table

log = logging.getLogger(__name__)

KEPT = "digest"
"""The kind of a held post kept for the digest's readers."""


def next_digest(now: datetime, hour: int, timezone: str) -> datetime:
    """The next ``hour`` o'clock in ``timezone`` strictly after ``now`` (an aware time)."""
    tz = ZoneInfo(timezone)
    local = now.astimezone(tz)
    at = local.replace(hour=hour, minute=0, second=0, microsecond=0)
    if at <= local:
        at = (at + timedelta(days=1)).replace(hour=hour)
    return at


def kept_post(entry: Mapping[str, Any], raw: bytes) -> dict[str, Any]:
    """A kept list post as the digest tells it: who, its Subject, its text (without the lines
    it quotes), where it fell in the log and whose digest it is for."""
    msg = parse(raw)
    body = msg.get_body(("plain",))
    text = str(body.get_content()) if body is not None else ""
    lines = [line.rstrip() for line in text.splitlines() if not line.startswith(">")]
    return {
        "index": int(entry.get("index", 0)),
        "for": list(entry.get("for", ())),
        "poster": str(entry.get("poster", "")),
        "subject": str(msg.get("Subject", "") or ""),
        "body": "\n".join(lines).strip("\n"),
    }


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
    _kept: dict[str, bool] = field(default_factory=dict)
    """Per game, whether list posts wait for a digest (read from the store once)."""

    def readers(self, game: Game) -> dict[str, int]:
        """The game's seats whose digest is on (seat -> the log index of the choice)."""
        table = game.table
        if not isinstance(table, Table):
            return {}
        seen, known = self._read.get(game.id, (0, {}))
        if seen > len(table.events):  # another table (a reload): read it again
            seen, known = 0, {}
        known = subscribers(table.events, seen, known)
        self._read[game.id] = (len(table.events), known)
        return known

    def _waiting(self, game: Game) -> bool:
        if game.id not in self._kept:
            self._kept[game.id] = any(h.get("kind") == KEPT for h in game.store.held_entries())
        return self._kept[game.id]

    def due(self, game: Game) -> datetime | None:
        """When the game's next digest goes, or None (no subscriber and no post kept for one,
        the game is over)."""
        table = game.table
        if not isinstance(table, Table):
            return None
        if table.finished:  # what was kept for a digest goes now, a last digest
            return self.clock() if self._waiting(game) else None
        if not self.readers(game) and not self._waiting(game):
            return None
        return next_digest(self.clock(), self.cfg.digest_hour, table.setup.timezone)

    def keep(
        self, game: Game, key: str, msg: Message, raw: bytes, now: datetime
    ) -> tuple[dict[str, Any] | None, frozenset[str]]:
        """A list post the daemon relays: the held entry that keeps it for the digest's
        readers and their addresses, left out of the relayed copy; (None, none) when no seat
        reads a digest."""
        seats = self.readers(game)
        table = game.table
        if not seats or not isinstance(table, Table):
            return None, frozenset()
        emails = table.player_emails
        held_for = frozenset(emails[s].lower() for s in seats if s in emails)
        entry = {
            "key": f"{KEPT}/{key}",
            "kind": KEPT,
            "raw": raw.decode("latin-1"),
            "at": now.isoformat(),
            "index": len(table.events),
            "for": sorted(seats),
            "poster": poster_of(game, msg),
        }
        self._kept[game.id] = True
        return entry, held_for

    def send(self, game_id: str, now: datetime | None = None) -> int:
        """The game's digest of today (its local date): the mails sent, 0 when it went already
        or there was nothing to tell."""
        game = self.games.get(game_id)
        table = game.table if game is not None else None
        if game is None or not isinstance(table, Table):
            return 0
        now = now or self.clock()
        day = now.astimezone(ZoneInfo(table.setup.timezone)).date().isoformat()
        entries = [h for h in game.store.held_entries() if h.get("kind") == KEPT]
        if table.finished and not entries:
            return 0
        kept = [kept_post(h, game.store.held_raw(h)) for h in entries]
        step = digest_step(table, day, kept, final=table.finished)
        if not step.events:
            if table.finished:  # nobody left to tell: the kept copies go
                game.store.commit(unhold=[str(h["key"]) for h in entries])
                self._kept[game.id] = False
            return 0
        rows = self.replies.rows(game, step, now, error=False)
        game.store.commit(events=step.events, outbox=rows, unhold=[str(h["key"]) for h in entries])
        table.apply(step)
        self._kept[game.id] = False
        self.wake()
        log.info("game %s: digest of %s to %d seat(s)", game_id, day, len(step.outgoing))
        return len(step.outgoing)
