"""What a table hands back: a :class:`Step` (events to commit, mails to send), its
:class:`Outgoing` mails, and the receipt a mail's commands make (:class:`Reply`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, NotRequired, Required, TypedDict, overload

from pbem.core.events import Event
from pbem.core.frozen import quick_init
from pbem.core.game import PlayerSpec

Channel = Literal["private", "list", "graveyard"]
"""Where a mail reached the game: the moderator's address, the game's list, or its graveyard
(the dead's and the observers' list, issue 25: pbem/judge/observer.py)."""
PostVerdict = Literal["relay", "hold", "refused"]
"""What a daemon that relays the list does with a post: distribute it, hold it, drop it."""
AutoSubmitted = Literal["auto-generated", "auto-replied"]
"""A mail's ``Auto-Submitted`` header (RFC 3834): a game's own mail, or an answer to one."""
Confirm = Literal["ask", "apply"]
"""A list post whose commands wait for its sender's confirmation: ask for it, or apply them."""


class Delivery(TypedDict, total=False):
    """How a mail reached a game, and what the daemon knows of its sender: the keywords of
    every table's ``receive`` (:class:`pbem.table.Table`, the sign-ups' table, the daemon's
    port), declared once."""

    channel: Required[Channel]
    now: Required[datetime]
    relay: bool
    """The daemon distributes the list itself, so a list post the rules close for now
    (:class:`~pbem.core.errors.ListClosed`) is held rather than refused, and a non-player's
    post is refused rather than ignored (it would otherwise reach every player). Default
    False."""
    confirm: Confirm | None
    """List posts whose commands need a confirmation from the registered address
    (requirement 6): ``"ask"`` takes the post as posted but runs none of its commands,
    listing them in ``Step.deferred``; ``"apply"``, once confirmed, runs them without
    counting the post a second time. Default None."""
    strong: bool
    """False: the sender passed the daemon's authentication for ordinary commands but not
    the stronger one for irreversible commands, so the commands the rules call final are
    refused (requirement 5). Default True."""
    admins: Sequence[str]
    """The daemon's administrators, who run the game master's desk in every game besides
    the game's own ``admins``. Default none."""
    graveyard: str
    """The game's graveyard address when the daemon keeps one (``[list] graveyard``, issue
    25): an observer's welcome names it. Default none."""


Page = str | Callable[[], str]
"""An HTML alternative, or how to make it when it is first read."""


class LazyPage:
    """The ``html`` field of :class:`Outgoing`: given a page or a function that makes it, read
    as the page, made on first reading and kept. A mail's HTML is made only if it is read
    (written to the outbox, compared, shown): a preview, a mail the budget drops, a game set
    up and never sent (``bench/games.py``) make none (issue 23: render only what is sent)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = f"_{name}"

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> str: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> str: ...
    def __get__(self, obj: object | None, owner: type | None = None) -> str:
        if obj is None:
            return ""  # the field's default (a text-only mail)
        page: Page = obj.__dict__[self.slot]
        if not isinstance(page, str):
            page = page()
            obj.__dict__[self.slot] = page
        return page

    def __set__(self, obj: object, value: Page) -> None:
        obj.__dict__[self.slot] = value


_set = object.__setattr__


@dataclass(frozen=True)
class Outgoing:
    """One mail to send. ``key`` is stable and unique: the Message-ID derives from it."""

    key: str
    to: tuple[str, ...]
    public: bool
    subject: str
    body: str
    in_reply_to: str | None = None
    thread: str = ""
    auto: AutoSubmitted = "auto-generated"
    html: LazyPage = LazyPage()
    """The HTML alternative (:mod:`pbem.table.mailpages`); empty: a text-only mail. Given as a page
    or as a function making it on first reading (:class:`LazyPage`)."""

    def __init__(  # the generated one sets each field through object.__setattr__ (issue 23)
        self,
        key: str,
        to: tuple[str, ...],
        public: bool,
        subject: str,
        body: str,
        in_reply_to: str | None = None,
        thread: str = "",
        auto: AutoSubmitted = "auto-generated",
        html: Page = "",
    ) -> None:
        _set(
            self,
            "__dict__",
            {
                "key": key,
                "to": to,
                "public": public,
                "subject": subject,
                "body": body,
                "in_reply_to": in_reply_to,
                "thread": thread,
                "auto": auto,
                "_html": html,  # LazyPage's slot, as its __set__ would store it
            },
        )


Encoded = tuple[dict[str, Any], ...]
"""A step's events as the store keeps them (:class:`pbem.core.events.EventCodec`)."""


class Encoding:
    """A step's events, to be encoded when first read: how many they are is known without
    encoding them (:meth:`Step.size`)."""

    __slots__ = ("encode", "events")

    def __init__(self, encode: Callable[[Event], dict[str, Any]], events: Sequence[Event]):
        self.encode, self.events = encode, events

    def __len__(self) -> int:
        return len(self.events)

    def __call__(self) -> Encoded:
        return tuple([self.encode(e) for e in self.events])


class LazyEvents:
    """The ``events`` field of :class:`Step`: given encoded events or an :class:`Encoding`,
    read as the encoded events, encoded on first reading and kept. A table folds a step from
    its decoded events (``Step.facts``); only whoever stores or shows the step encodes them
    (the daemon's commit), a bot game never (issue 23)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Encoded: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> Encoded: ...
    def __get__(self, obj: object | None, owner: type | None = None) -> Encoded:
        if obj is None:
            return ()  # the field's default (a step that appends nothing)
        # the instance's own entry, under the field's name: @quick_init and quick_replace
        # fill and copy the instance's __dict__ directly
        events: Encoded | Encoding = obj.__dict__[self.name]
        if type(events) is Encoding:
            events = obj.__dict__[self.name] = events()
        return events  # type: ignore[return-value]

    def __set__(self, obj: object, value: Encoded | Encoding) -> None:
        obj.__dict__[self.name] = value


Mails = tuple[Outgoing, ...] | Callable[[], tuple[Outgoing, ...]]
"""A step's mails, or how to make them when they are first read."""


class LazyMails:
    """The ``outgoing`` field of :class:`Step`: given the mails or a function that makes them,
    read as the mails, made on first reading and kept. A game set up and stored without
    sending its opening (``bench/games.py``) renders none of its notices (issue 23: render
    only what is sent); whoever sends them (``pbem new-game``, the sign-ups' start, the
    daemon writing its outbox) reads them as before."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> tuple[Outgoing, ...]: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> tuple[Outgoing, ...]: ...
    def __get__(self, obj: object | None, owner: type | None = None) -> tuple[Outgoing, ...]:
        if obj is None:
            return ()  # the field's default (a step that sends nothing)
        # the instance's own entry, under the field's name: @quick_init and quick_replace
        # fill and copy the instance's __dict__ directly
        mails: Mails = obj.__dict__[self.name]
        if callable(mails):
            mails = mails()
            obj.__dict__[self.name] = mails
        return mails

    def __set__(self, obj: object, value: Mails) -> None:
        obj.__dict__[self.name] = value


@quick_init  # one per mail and per deadline, remade by each replace (issue 23)
@dataclass(frozen=True)
class Step:
    """The result of one input: encoded events to append, mails to send."""

    events: LazyEvents = LazyEvents()
    """The events to append, encoded; given so or as an :class:`Encoding` of ``facts``
    encoded on first reading (:class:`LazyEvents`)."""
    outgoing: LazyMails = LazyMails()
    """The mails to send, in order; given as they are or as a function making them on first
    reading (:class:`LazyMails`: the opening of :meth:`pbem.table.Table.new`)."""
    facts: tuple[Event, ...] = field(default=(), compare=False, repr=False)
    """The same events, decoded (spares :meth:`Table.apply` a decode when in hand)."""
    post: PostVerdict | None = None
    """For a list post: whether a daemon that relays the list distributes it now, holds it
    until the list reopens, or drops it (the sender has been told why)."""
    deferred: tuple[str, ...] = ()
    """With ``receive(confirm="ask")``: the command lines that wait for a confirmation."""
    folded: tuple[Any, Any] | None = field(default=None, compare=False, repr=False)
    """The rules' state the step was made on and the one its events lead to, when the step
    folded them (its prompts' quick actions are checked on it): :meth:`Table.apply` on that
    same state takes it rather than folding the events again."""

    @property
    def size(self) -> int:
        """How many events the step appends, without encoding them."""
        return len(self.__dict__["events"])


class Accepted(TypedDict):
    """A line of a receipt that was taken: as the game understood it."""

    line: str
    """The command in its canonical form (or the line as the game master wrote it)."""
    deadline: str | None
    """Until when it may still be changed (ISO 8601), if the rules say."""
    final: bool
    """Whether it can no longer be changed."""
    text: NotRequired[str]
    """A text others will read, exactly as it is passed on (DRA-421)."""
    verb: NotRequired[str]
    """The command's verb: a later line of the same verb in the mail replaces it."""
    replaced: NotRequired[str]
    """The later line of the same mail that replaced this order (LUP-603), as it shows."""
    passed_on: NotRequired[bool]
    """A chat line, relayed at once (nothing stands until a deadline)."""
    withdrawn: NotRequired[bool]
    """A VOTE a later RETIRER of the same mail withdrew (LUP-620): it never stood."""
    withdraws: NotRequired[bool]
    """A RETIRER that withdrew a VOTE of its own mail."""
    note: NotRequired[str]
    """How the order was taken where it differs from what it reads (:class:`Amended`)."""


class Rejected(TypedDict):
    """A line of a receipt that was refused, and why (in the reader's language)."""

    line: str
    reason: str


Topic = Literal["", "help", "rules", "history", "status", "game_status", "roles"]
"""What a reply answers, when it answers a question alone: its Subject (common/reply.txt)."""


@quick_init  # one per mail received (issue 23)
@dataclass
class Reply:
    """The receipt of one mail as it is built: the lines accepted (canonical form, deadline,
    final), rejected (and why), ignored, and the texts it answers with."""

    accepted: list[Accepted] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    hints: dict[str, str] = field(default_factory=dict)
    """An ignored line -> the order it seems to hold (« je sonde Hugo »: SONDER Hugo)."""
    extra: list[str] = field(default_factory=list)
    topic: Topic = ""
    """``help``, ``rules``, ``history`` or ``status`` when the mail asked for AIDE, REGLES,
    HISTORIQUE or STATUT (a game master's STATUT and ROLES: ``game_status``, ``roles``): the
    Subject says so (when the reply holds nothing else)."""
    markdown: bool = False
    """The texts hold a Markdown page (REGLES): the mail's text part is its plain reading
    (:func:`pbem.mail.plain_text.plain_text`), its HTML part the page's form."""
    helped: str = ""
    """The player an AIDE answered: his reply's HTML has a quick action per command it lists
    that has a fixed form (issue 15)."""
    mails: list[Outgoing] = field(default_factory=list)
    """Mails a command sends to others than its sender, after the receipt (issue 25, ADRESSE:
    the code to the new address)."""

    def __bool__(self) -> bool:
        return bool(self.accepted or self.rejected or self.extra)


Receipt = tuple[PlayerSpec, Reply, str, str | None]
"""A step's receipt: to whom, what it says, the key its mail derives from, the Message-ID it
answers."""
