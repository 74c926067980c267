"""What a table hands back: a :class:`Step` (events to commit, mails to send), its
:class:`Outgoing` mails, and the receipt a mail's commands make (:class:`Reply`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pbem.core.events import Event

Channel = Literal["private", "list"]
"""Where a mail reached the game: the moderator's address, or the game's list."""
PostVerdict = Literal["relay", "hold", "refused"]
"""What a daemon that relays the list does with a post: distribute it, hold it, drop it."""


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
    auto: str = "auto-generated"
    html: str = ""
    """The HTML alternative (:mod:`pbem.mailpages`); empty: a text-only mail."""


@dataclass(frozen=True)
class Step:
    """The result of one input: encoded events to append, mails to send."""

    events: tuple[dict[str, Any], ...] = ()
    outgoing: tuple[Outgoing, ...] = ()
    facts: tuple[Event, ...] = field(default=(), compare=False, repr=False)
    """The same events, decoded (spares :meth:`Table.apply` a decode when in hand)."""
    post: PostVerdict | None = None
    """For a list post: whether a daemon that relays the list distributes it now, holds it
    until the list reopens, or drops it (the sender has been told why)."""
    deferred: tuple[str, ...] = ()
    """With ``receive(confirm="ask")``: the command lines that wait for a confirmation."""


@dataclass
class Reply:
    """The receipt of one mail as it is built: the lines accepted (canonical form, deadline,
    final), rejected (and why), ignored, and the texts it answers with."""

    accepted: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    topic: str = ""
    """``help`` or ``rules`` when the mail asked for AIDE or REGLES: the Subject says so (when
    the reply holds nothing else)."""
    helped: str = ""
    """The player an AIDE answered: his reply's HTML has a quick action per command it lists
    that has a fixed form (issue 15)."""

    def __bool__(self) -> bool:
        return bool(self.accepted or self.rejected or self.extra)
