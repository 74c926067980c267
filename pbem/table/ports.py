"""What the Table's parts read of it: its ports, named here rather than
:class:`pbem.table.table.Table` that composes the parts, so that no part imports the hub (no
import circle through the Table, as the daemon's intake and operator requests have
:class:`~pbem.daemon.intake.parts.IntakeParts` and
:class:`~pbem.daemon.operator.parts.OperatorParts`).

Each port adds to the one below it what its parts read beyond it, and mypy checks that the
Table meets each where it hands itself over:

- :class:`TableView` (5 members): the rules, the state, the seats and the renderer, what
  the Table's wording reads to word a command or a refusal for its reader;
- :class:`AnsweringTable` (+16): what a part answering mail reads besides (the setup, the
  log, the addresses, the mail's HTML page, a refusal's wording, the step appending its
  events): the judges' services, the seats, the late sign-up;
- :class:`DeskTable` (+5): the game master's acts besides (the pause, a table with his events
  appended, a phase closed now, a removal's draws): the desk's commands;
- :class:`HubTable` (+4): what the Table's own modules read besides (the seats by name, the
  phase's thread, the next resolution's draws, the hash chain): admin, commands, mails,
  receive.

The imports below are for the type checker only and none is of a part: this module stays out
of every circle (tests/cli/test_import_graph.py).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, Self

if TYPE_CHECKING:
    from pbem.adapters.codes import CodeSource
    from pbem.core.commands import CommandSpec
    from pbem.core.errors import CommandError
    from pbem.core.events import Event
    from pbem.core.game import PlayerSpec, Rules
    from pbem.core.ids import PlayerId
    from pbem.core.roster import Roster
    from pbem.desk.kernel import Desk
    from pbem.mail.render import Renderer
    from pbem.record.chain import ChainCursor
    from pbem.table.mailpages import MailPages
    from pbem.table.setup import TableSetup
    from pbem.table.step import PostVerdict, Receipt, Step


class TableView(Protocol):
    """What wording a command or a refusal for its reader reads of a game:
    :mod:`pbem.table.wording`."""

    @property
    def rules(self) -> Rules[Any]: ...
    @property
    def state(self) -> Any: ...
    @property
    def roster(self) -> Roster: ...
    @property
    def renderer(self) -> Renderer: ...
    @property
    def genders(self) -> Mapping[str, str]: ...


class AnsweringTable(TableView, Protocol):
    """A game a part answers mail for: the judges' services, the seats, the late sign-up."""

    @property
    def setup(self) -> TableSetup: ...
    @property
    def events(self) -> Sequence[Event]:
        """The whole log, the desk's kernel events and voided events included."""

    @property
    def ruled(self) -> Sequence[Event]:
        """The events the rules fold."""

    @property
    def desk(self) -> Desk: ...
    @property
    def game_id(self) -> str: ...
    @property
    def finished(self) -> bool: ...
    @property
    def pages(self) -> MailPages: ...
    @property
    def by_email(self) -> Mapping[str, PlayerSpec]: ...
    @property
    def player_emails(self) -> Mapping[str, str]: ...
    @property
    def code_source(self) -> CodeSource: ...
    def deadlines(self) -> Mapping[str, datetime]: ...
    def summary(self) -> dict[str, Any]: ...
    def awaiting(self) -> frozenset[PlayerId]: ...
    def reason(self, exc: CommandError, lang: str, reader: str | None = None) -> str: ...
    def syntax(self, spec: CommandSpec, lang: str) -> dict[str, str]: ...
    def step(
        self,
        events: Sequence[Event],
        reply: Receipt | None = None,
        post: PostVerdict | None = None,
    ) -> Step: ...


class DeskTable(AnsweringTable, Protocol):
    """A game the game master acts on: the desk's commands."""

    @property
    def paused(self) -> bool: ...
    @property
    def player_langs(self) -> Mapping[str, str]: ...
    def with_events(self, events: Sequence[Event]) -> Self: ...
    def close(self, key: str, now: datetime) -> Step: ...
    def removal_rng(self) -> random.Random: ...


class HubTable(DeskTable, Protocol):
    """The game as the Table's own modules read it: admin, commands, mails, receive."""

    @property
    def by_name(self) -> Mapping[str, PlayerSpec]: ...
    @property
    def thread(self) -> str: ...
    def rng(self, offset: int = 0) -> random.Random: ...
    def chain_cursor(self) -> ChainCursor: ...


__all__ = ["AnsweringTable", "DeskTable", "HubTable", "TableView"]
