"""A server that refused our login: a configuration fault, not an outage.

An outage (a dropped connection, a server restarting, ``[UNAVAILABLE]``) is waited out; a wrong
user or password never gets right by waiting, and retrying it forever can lock the account. So
the adapters raise :class:`LoginRefused` for a refusal, ``pbem check-config`` prints it in words,
and ``pbem serve`` stops with :data:`EX_CONFIG`, which the unit does not restart.
"""

from __future__ import annotations

import ast
import re

from pbem.core.errors import PbemError

EX_CONFIG = 78
"""sysexits.h: configuration error. systemd/pbem.service has ``RestartPreventExitStatus=78``."""

#: RFC 5530 response codes meaning "these credentials are refused": permanent.
IMAP_REFUSED_CODES = frozenset(
    {"AUTHENTICATIONFAILED", "AUTHORIZATIONFAILED", "EXPIRED", "PRIVACYREQUIRED"}
)
_CODE = re.compile(r"^\s*\[([A-Z-]+)[^\]]*\]\s*")


class LoginRefused(PbemError):
    """``protocol`` (IMAP or SMTP) refused ``user`` at ``server``; ``reply`` is the server's
    own words, decoded."""

    def __init__(self, protocol: str, user: str, server: str, reply: str) -> None:
        self.protocol = protocol
        self.user = user
        self.server = server
        self.reply = reply
        super().__init__(self.describe())

    @property
    def section(self) -> str:
        """The config section of the server that refused the login (``imap``, ``smtp``)."""
        return self.protocol.lower()

    def describe(self) -> str:
        """One line: which login failed, what the server said, what to check."""
        said = f" (the server said: {self.reply})" if self.reply else ""
        return (
            f"{self.protocol} login refused for user {self.user!r} at {self.server}{said}: "
            f"check {self.section}.user and the password ({self.section}.password_file or the "
            f"credential {self.section}-password)"
        )


def server_text(value: object) -> str:
    """A server reply as words: imaplib and imapclient hand out ``b'...'`` reprs and bytes."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace").strip()
    text = str(value).strip()
    if re.fullmatch(r"b(['\"]).*\1", text, re.DOTALL):
        try:
            raw = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return text
        if isinstance(raw, bytes):
            return raw.decode("utf-8", "replace").strip()
    return text


def imap_refusal(reply: str) -> bool:
    """Whether a NO to LOGIN is a refusal of the credentials (permanent): a credentials code
    (RFC 5530), or no code at all (older servers: ``NO Login failed``). A code such as
    ``[UNAVAILABLE]``, ``[SERVERBUG]``, ``[INUSE]`` or ``[LIMIT]`` is a passing trouble."""
    m = _CODE.match(reply)
    return m is None or m.group(1) in IMAP_REFUSED_CODES


def without_code(reply: str) -> str:
    """``[AUTHENTICATIONFAILED] Authentication failed.`` -> ``Authentication failed.``"""
    return _CODE.sub("", reply, count=1) or reply
