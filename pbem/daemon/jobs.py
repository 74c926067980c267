"""The scheduler's jobs, by a typed key: a game's deadline and the reminders before it.

A key's text (``str(job)``) is the scheduler's job id; a game's jobs are found by their
``game_id``, never by a prefix of that text."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class DeadlineJob:
    """Resolve the game's deadline ``key`` when it falls."""

    game_id: str
    key: str

    def __str__(self) -> str:
        return f"{self.game_id}:{self.key}"


@dataclass(frozen=True)
class ReminderJob:
    """Remind the players who have not acted, ``hours`` before the deadline ``key``."""

    game_id: str
    key: str
    hours: float

    def __str__(self) -> str:
        return f"{self.game_id}:{self.key}:remind:{self.hours}"


@dataclass(frozen=True)
class DigestJob:
    """Send the game's daily digest (issue 25: pbem/daemon/digests.py)."""

    game_id: str

    def __str__(self) -> str:
        return f"{self.game_id}:digest"


Job = DeadlineJob | ReminderJob | DigestJob


def instance_id(key: str, when: datetime) -> str:
    """One deadline instance: engines reuse keys (every night is ``night``), so a deadline's
    record (its compare-and-set state, its reminders) is keyed by the key AND its due time."""
    return f"{key}@{when.isoformat()}"
