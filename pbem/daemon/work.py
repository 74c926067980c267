"""The work items of the service's queue: one dataclass per kind of work, run by the single
writer (:mod:`pbem.daemon.queue`) one at a time."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pbem.adapters.imap import Fetched
from pbem.adapters.store import DaemonStore
from pbem.daemon.ports import Game, MailTime


@dataclass(frozen=True)
class Batch:
    """Mails fetched together, applied with one durable write per touched file."""

    mails: Sequence[Fetched]
    now: MailTime = None


@dataclass(frozen=True)
class Deadline:
    """A game's deadline to resolve: ``now`` is when it counts (``None``: when the scheduler
    fired it, and held while a clock jump is handled). ``armed``: the time of the deadline
    instance the timer that queued it was armed for (``None``: not a timer's); a timer armed
    for an older instance of the key (extended since: an outage, the game master's EXTEND)
    resolves nothing."""

    game_id: str
    key: str
    now: datetime | None = None
    armed: datetime | None = None


@dataclass(frozen=True)
class Reminder:
    """The players who have not acted yet are reminded ``hours`` before a deadline."""

    game_id: str
    key: str
    hours: float


@dataclass(frozen=True)
class Call:
    """Any other write, done by the single writer (a rearm, an outage extension...)."""

    run: Callable[[], Any]


@dataclass(frozen=True)
class Stop:
    """SIGTERM: the writer finishes the item in hand and stops."""


Work = Batch | Deadline | Reminder | Call | Stop


@dataclass
class WorkItem:
    """A work item in the queue, and the future its submitter awaits."""

    work: Work
    future: asyncio.Future[Any]


@contextlib.contextmanager
def group_commit(daemon: DaemonStore, games: Iterable[Game]) -> Iterator[None]:
    """One durable write per touched file at the end (group commit)."""
    with contextlib.ExitStack() as stack:
        stack.enter_context(daemon.db.group())
        for g in games:
            stack.enter_context(g.store.head.group())
        yield
