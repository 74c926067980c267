"""A full disk is waited out, not crash-looped (issue 10 item 17).

When a state write fails for want of space (ENOSPC, EDQUOT), nothing unwritten has been
acknowledged: the mail stays in INBOX, the outbox rows were never on disk (requirement 2). But
memory may be ahead of the disk, so the service stops (:meth:`pbem.daemon.queue.Writer.run`).
``pbem serve`` then does not exit (under ``Restart=`` that was a restart every 5 s, each failing
at its first write): it holds the episode here.

- The admins are told once per episode by a path that needs no disk write: straight SMTP with the
  configured server (the outbox lives on the full disk), and the journal (``log.critical``).
- Nothing is fetched nor moved; an IMAP round-trip every few seconds keeps the readiness and the
  watchdog fed (requirement 12: fed only after a successful round-trip).
- When the data directory has room again (twice its largest state file, plus a margin: an atomic
  write holds the old and the new copy), a fresh service opens the state from disk and redoes the
  uncommitted work (the mail is still in INBOX). A resume that fails again re-enters the same
  episode (no second alert) and waits longer before the next try (doubling, capped).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from pbem.daemon.config import Config
from pbem.daemon.direct_alert import send_alert

log = logging.getLogger(__name__)


DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
#: room asked beyond twice the largest state file before resuming
MARGIN = 1 << 20
FIRST_WAIT = 2.0
MAX_WAIT = 300.0


def is_disk_full(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or what caused it) is a write refused for want of space."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in DISK_FULL_ERRNOS:
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def room_needed(data_dir: Path) -> int:
    """Free bytes the next commits need: twice the largest state file, plus :data:`MARGIN`."""
    largest = 0
    with contextlib.suppress(OSError):  # a directory we may not list: what was seen counts
        for path in data_dir.rglob("*.json"):
            with contextlib.suppress(OSError):
                largest = max(largest, path.stat().st_size)
    return 2 * largest + MARGIN


def room_free(data_dir: Path) -> int:
    """The bytes free to an unprivileged writer on the data directory's file system."""
    st = os.statvfs(data_dir)
    return st.f_bavail * st.f_frsize


async def mail_admins(cfg: Config, template: str, params: dict[str, object], key: str) -> bool:
    """Send one alert to the admins straight over SMTP (no outbox row: nothing written).
    True once the server took it for every admin."""
    if not cfg.admins:
        return True
    res = await send_alert(cfg, template, params, key)
    if not res.ok:
        log.error("disk full: the alert to the admins was not sent (%s); retrying", res.detail)
    return res.ok


@dataclass
class DiskFullEpisode:
    """One stretch of a full disk, across the fresh services tried meanwhile."""

    cfg: Config
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    since: datetime | None = None
    error: str = ""
    alerted: bool = False
    tries: int = 0
    send: Callable[[Config, str, dict[str, object], str], Awaitable[bool]] = mail_admins

    def _params(self) -> dict[str, object]:
        data = self.cfg.data_dir
        return {
            "data_dir": str(data),
            "error": self.error,
            "since": self.since.isoformat() if self.since else "",
            "free": room_free(data) if data.exists() else 0,
            "needed": room_needed(data) if data.exists() else MARGIN,
        }

    async def hold(self, exc: BaseException, ping: Callable[[float], Awaitable[None]]) -> bool:
        """Wait until the data directory has room (True) or a stop is asked (False).

        ``ping(seconds)`` waits about that long and makes an IMAP round-trip (the watchdog)."""
        if self.since is None:
            self.since = datetime.now(UTC)
        self.error = f"{type(exc).__name__}: {exc}"[:300]
        wait = min(MAX_WAIT, FIRST_WAIT * 2**self.tries)
        self.tries += 1
        log.critical(
            "disk full under %s (%s): nothing is fetched nor moved until there is room; "
            "checking every %.0f s",
            self.cfg.data_dir,
            self.error,
            wait,
        )
        while not self.stop.is_set():
            if not self.alerted:
                key = f"diskfull:{self.since.isoformat()}"
                self.alerted = await self.send(
                    self.cfg, "daemon/alert_disk_full", self._params(), key
                )
            await ping(wait)
            if self.stop.is_set():
                break
            data = self.cfg.data_dir
            if room_free(data) >= room_needed(data):
                log.warning("disk full: room again under %s; resuming", data)
                return True
        return False

    async def resumed(self) -> None:
        """The fresh service drained the mailbox: the episode is over. The admins who were
        told of it are told of its end (straight SMTP too: one mail, no retry)."""
        if self.since is None:
            return
        if self.alerted:
            await self.send(
                self.cfg,
                "daemon/alert_disk_resumed",
                self._params(),
                f"diskfull-end:{self.since.isoformat()}",
            )
        log.warning("disk full since %s: over, processing resumed", self.since.isoformat())
        self.since, self.error, self.alerted, self.tries = None, "", False, 0
