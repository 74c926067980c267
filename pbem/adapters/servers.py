"""How to reach the mail servers (the settings the config builds) and what a send gave, apart
from the clients.

The config (read by every ``pbem`` command) and the outbox (``pbem new-game`` queues the opening
mails) need these records, not imapclient and aiosmtplib, which only ``serve`` and
``check-config`` use: importing them costs start-up time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pbem.adapters.login import LoginRefused

TlsMode = Literal["none", "starttls", "tls"]


@dataclass(frozen=True)
class ImapSettings:
    """How to reach the moderator's mailbox."""

    host: str
    port: int
    user: str
    password: str
    tls: Literal["none", "starttls", "tls"] = "tls"
    verify_certs: bool = True
    timeout: float = 60.0
    inbox: str = "INBOX"
    processed: str = "Processed"
    quarantine: str = "Quarantine"
    max_size: int = 2_000_000
    # of a mail over max_size, the text parts are read if they are this small together (the
    # photo or attachments never downloaded); else only its header, to answer the sender
    text_max_size: int = 1_000_000
    batch: int = 50
    # re-IDLE (DONE + NOOP round-trip) this often: well under RFC 2177's 29 min, and short
    # enough that a silently dead link is noticed within minutes (§3.4)
    idle_renew: float = 5 * 60.0
    poll_interval: float = 60.0
    use_idle: bool = True


@dataclass(frozen=True)
class SmtpSettings:
    """How to reach the submission server."""

    host: str
    port: int
    tls: TlsMode = "starttls"
    user: str | None = None
    password: str | None = None
    timeout: float = 30.0
    verify_certs: bool = True


@dataclass
class SendResult:
    """Per-recipient outcome of one send."""

    sent: list[str] = field(default_factory=list)
    retry: list[str] = field(default_factory=list)
    dead: list[str] = field(default_factory=list)
    detail: str = ""
    login_refused: LoginRefused | None = None
    """Set when the server refused our AUTH: the mail is kept (``retry``), and the daemon stops
    (a wrong password is a configuration fault, not an outage)."""

    @property
    def ok(self) -> bool:
        """Whether every recipient took the mail (none to retry, none dead)."""
        return not self.retry and not self.dead
