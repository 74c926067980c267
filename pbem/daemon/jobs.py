"""The scheduler's jobs, by a typed key: a game's deadline and the reminders before it.

A key's text (``str(job)``) is the scheduler's job id; a game's jobs are found by their
``game_id``, never by a prefix of that text."""

from __future__ import annotations

from dataclasses import dataclass


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


Job = DeadlineJob | ReminderJob
