"""What the service is given: the table and engine contracts, the mailbox and the scheduler,
structurally (:mod:`pbem.table` and the adapters satisfy them), and its small shared types."""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias, Unpack

from pbem.adapters.servers import ImapSettings
from pbem.adapters.store import GameStore
from pbem.daemon.jobs import Job
from pbem.mail.envelope import OutgoingLike
from pbem.table.step import Channel as Channel  # the daemon's parts import it from here
from pbem.table.step import Delivery, PostVerdict

if TYPE_CHECKING:  # the IMAP client's library is for serve only (start-up cost)
    from pbem.adapters.imap import Fetched


class StepLike(Protocol):
    """What a table gives back for an input (:class:`pbem.table.Step`): encoded events to
    commit, mails to send, and for a list post what becomes of it."""

    @property
    def events(self) -> Sequence[Mapping[str, Any]]: ...
    @property
    def outgoing(self) -> Sequence[OutgoingLike]: ...
    @property
    def post(self) -> PostVerdict | None: ...
    @property
    def deferred(self) -> tuple[str, ...]: ...


class TableLike(Protocol):
    """What the daemon asks of a game's table: its players, its mail in and out, its deadlines."""

    @property
    def game_id(self) -> str: ...

    @property
    def finished(self) -> bool: ...
    @property
    def player_emails(self) -> Mapping[str, str]: ...
    @property
    def player_langs(self) -> Mapping[str, str]: ...
    def receive(self, msg: EmailMessage, **delivery: Unpack[Delivery]) -> StepLike: ...
    def release(self, msg: EmailMessage, now: datetime) -> StepLike: ...
    def admin_lines(
        self,
        lines: Sequence[str],
        sender: str,
        now: datetime,
        key: str,
        *,
        reply_to: Sequence[str] = (),
    ) -> StepLike: ...
    def deadlines(self) -> Mapping[str, datetime]: ...
    def on_deadline(self, key: str, now: datetime) -> StepLike: ...
    def apply(self, step: Any) -> None: ...


class Engine(Protocol):
    """What makes a game's table: a new game from its setup, or a stored one from its events."""

    def new(self, setup: Mapping[str, Any], now: datetime) -> tuple[TableLike, StepLike]: ...
    def load(self, setup: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> TableLike: ...


class Mailbox(Protocol):
    """The inbound mailbox: :class:`pbem.adapters.imap.Mailbox`, or the local Maildir of
    :mod:`pbem.adapters.maildir` (the embedded demo). Blocking; run in a worker thread."""

    s: ImapSettings
    uidvalidity: int
    interrupt: threading.Event

    @property
    def connected(self) -> bool: ...
    def connect(self) -> None: ...
    def pending_uids(self) -> list[int]: ...
    def fetch(self, uids: Sequence[int]) -> list[Fetched]: ...
    def move(self, uids: Sequence[int], name: str) -> None: ...
    def wait(self, max_seconds: float) -> bool: ...
    def close(self) -> None: ...


class Scheduler(Protocol):
    """The part of APScheduler's AsyncIOScheduler we use (pbem/adapters/scheduler.py)."""

    def arm(
        self,
        job: Job,
        when: datetime,
        callback: Callable[[], Awaitable[None]],
        plan: Hashable | None = None,
    ) -> None:
        """``plan``: what ``callback`` does, as a value: armed again for the same time with an
        equal plan, a job not run yet may be left as it is."""
        ...

    def disarm_game(self, game_id: str, keep: Collection[Job]) -> None: ...


FaultHook = Callable[[str], None]


MailTime: TypeAlias = "datetime | Callable[[Fetched], datetime] | None"


def no_fault(point: str) -> None:
    """Default: no fault injection."""


@dataclass
class Game:
    """A loaded game: its files, its in-memory table and its ledger keys."""

    store: GameStore
    table: TableLike
    keys: set[str]

    @property
    def id(self) -> str:
        """The game's id, as its store has it."""
        return self.store.game_id


Disposition = Literal["processed", "quarantine", "keep"]


if TYPE_CHECKING:  # mypy checks here that the default engine and its tables fit the port
    from pbem.signup.engine import WithSignups
    from pbem.signup.table import SignupTable
    from pbem.table import Table

    TABLES: tuple[type[TableLike], ...] = (Table, SignupTable)
    ENGINES: tuple[Engine, ...] = (Table, WithSignups(Table))
