"""The daemon's heartbeat file, for ``pbem status``: is it running, and when did it last reach
the mailbox?

``pbem serve`` rewrites ``heartbeat.json`` in the data directory every :data:`INTERVAL`
seconds (or its ``daemon.heartbeat_seconds``, if shorter) from its event loop, so a hung loop
stops it as surely as a dead process; at a clean stop it writes ``stopped``. A beat older than
:func:`stale_after` means the daemon died or hangs. The file is not state: it is written with a
rename (never half-read) and no fsync, and nothing but ``pbem status`` reads it.
"""

from __future__ import annotations

import contextlib
import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

from pbem.adapters.store.directories import share_like_parent

FILE = "heartbeat.json"
INTERVAL = 10.0
"""Seconds between beats at most."""


def interval(heartbeat_seconds: float) -> float:
    """Seconds between beats: the configured ones, between 0.5 and :data:`INTERVAL`."""
    return max(0.5, min(INTERVAL, heartbeat_seconds))


def stale_after(heartbeat_seconds: float) -> float:
    """Seconds without a beat after which the daemon is reported as not responding: three
    missed beats, plus slack for a busy machine."""
    return 3 * interval(heartbeat_seconds) + 5


def write(root: Path, record: dict[str, Any]) -> None:
    """Replace the heartbeat file (rename: a reader never sees half of it). Never raises: a
    heartbeat that cannot be written (disk full) must not stop the daemon."""
    tmp = root / f".{FILE}.tmp"
    with contextlib.suppress(OSError):
        # the state's access whatever the umask: never others (docs/daemon.md, issue 21)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        try:
            share_like_parent(fd, root)
            os.write(fd, json.dumps(record).encode())
        finally:
            os.close(fd)
        os.replace(tmp, root / FILE)


def read(root: Path) -> dict[str, Any] | None:
    """The last heartbeat written under ``root``; None if there is none or it is unreadable."""
    try:
        data = json.loads((root / FILE).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def describe(
    record: dict[str, Any] | None, now: datetime, heartbeat_seconds: float
) -> dict[str, Any]:
    """``state``: ``running``, ``not responding`` (a stale beat: died or hung), ``stopped`` (a
    clean stop) or ``never started``; with the pid, the last beat's age and the last time the
    mailbox answered."""
    if record is None:
        return {"state": "never started"}
    at = datetime.fromisoformat(str(record["at"]))
    age = max(0.0, (now - at).total_seconds())
    if record.get("stopped"):
        state = "stopped"
    elif age > stale_after(heartbeat_seconds):
        state = "not responding"
    else:
        state = "running"
    out = {
        "state": state,
        "pid": record.get("pid"),
        "version": record.get("version"),
        "started": record.get("started"),
        "heartbeat": record["at"],
        "heartbeat_age_seconds": round(age, 1),
        "mailbox_ok": record.get("mailbox_ok"),
    }
    return out
