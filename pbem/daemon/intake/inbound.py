"""The mail in hand while the inbound policy runs: what is known of it so far.

:func:`read_inbound` reads what every step needs once (the headers, compat32: cheap string
reads; each address header parsed once); the steps of :mod:`pbem.daemon.intake.steps` fill in
the rest as they learn it (the game, the full parse, the sender's verdict)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage, Message
from email.parser import BytesHeaderParser
from email.policy import compat32
from typing import TYPE_CHECKING, Any, ClassVar

from pbem.adapters.imap import Fetched
from pbem.daemon.auth import AuthVerdict
from pbem.daemon.message import header_addresses
from pbem.daemon.ports import Channel, Game
from pbem.mail.listpost import Attribution

if TYPE_CHECKING:
    from pbem.daemon.intake.parts import IntakeParts


@dataclass
class Inbound:
    """One inbound mail on its way through the policy."""

    key: str
    """The exactly-once key (:func:`pbem.daemon.message.content_key`)."""
    fetched: Fetched | None
    """Where it came from (``None``: a shunted mail retried by the operator)."""
    raw: bytes
    now: datetime
    msg: Message
    """Its headers; the full modern parse once routed to a game (an :class:`EmailMessage`)."""
    info: dict[str, Any]
    """What its ledger entry records (when, UID, Message-ID; a step adds ``why``)."""
    rcpts: list[str]
    sender: str
    channel: Channel
    reason: str | None = None
    """Why it is an automatic mail (:func:`pbem.mail.inbound.automatic_reason`), if it is."""
    munged: Attribution | None = None
    """A list post whose From the list rewrote (DMARC), and its author when found."""
    game: Game | None = None
    how: str | None = None
    """How routing found its game (``"thread"``: only through the mail it answers)."""
    verdict: AuthVerdict | None = None
    copies: tuple[str, ...] = field(default=())
    """The keys of this mail's other copies (and of its DKIM signatures): applied once."""

    @property
    def parsed(self) -> EmailMessage:
        """The full parse (routed mail only)."""
        assert isinstance(self.msg, EmailMessage)
        return self.msg

    @property
    def routed(self) -> Game:
        """Its game (a step after routing only)."""
        assert self.game is not None
        return self.game

    @property
    def checked(self) -> AuthVerdict:
        """Its sender's verdict (a step after authentication only)."""
        assert self.verdict is not None
        return self.verdict


def headers_of(raw: bytes) -> Message:
    """The headers only, compat32: cheap string reads for hygiene and routing; the full modern
    parse is done only for mail that reaches a game's engine (a single part's from this one:
    :func:`pbem.mail.parse_once.reparse`)."""
    return BytesHeaderParser(policy=compat32).parsebytes(raw)


def ledger_info(msg: Message, fetched: Fetched | None, now: datetime) -> dict[str, Any]:
    """What the ledger records of a mail."""
    return {
        "at": now.isoformat(),
        "uid": fetched.uid if fetched else None,
        "uidvalidity": fetched.uidvalidity if fetched else None,
        "message_id": str(msg.get("Message-ID", ""))[:200],
    }


def recipients_and_sender(msg: Message) -> tuple[list[str], str]:
    """Each address header parsed once per mail (hygiene, channel and routing all read them)."""
    return header_addresses(msg, "To", "Cc"), (header_addresses(msg, "From") or [""])[0]


class Step(ABC):
    """One link of the inbound chain (:data:`pbem.daemon.intake.steps.CHAIN`): a name, what it
    checks, and the check."""

    name: ClassVar[str]
    description: ClassVar[str]

    @abstractmethod
    def check(self, svc: IntakeParts, mail: Inbound) -> bool:
        """Deal with ``mail`` for good (``True``: committed, answered or ignored; the chain
        stops) or let it go on (``False``)."""
