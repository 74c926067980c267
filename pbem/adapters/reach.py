"""Why a mail server could not be reached, in the sysadmin's words: what is wrong and which key
to change, instead of an exception's name (refused, unknown host, no answer, TLS or STARTTLS on
the wrong port, an IMAP port given to SMTP or the reverse). ``pbem check-config`` says it, and
``pbem serve`` logs it at each retry of its mailbox (the journal the sysadmin reads)."""

from __future__ import annotations

import socket
import ssl
from collections.abc import Iterator
from typing import Literal

Protocol = Literal["IMAP", "SMTP"]

#: the usual port of each TLS mode (RFC 8314: implicit TLS on 993 and 465, STARTTLS on 143, 587)
PORTS: dict[Protocol, dict[str, int]] = {
    "IMAP": {"tls": 993, "starttls": 143, "none": 143},
    "SMTP": {"tls": 465, "starttls": 587, "none": 25},
}


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and what it was raised from, outermost first (the libraries wrap the OS's
    error in their own)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def unreachable(
    protocol: Protocol, host: str, port: int, tls: str, timeout: float, exc: BaseException
) -> str:
    """One line (two at most) saying why ``protocol`` at ``host:port`` failed and what to
    change; the exception's own text when it is none of the known causes."""
    section = protocol.lower()
    where = f"{protocol} {host}:{port}"
    usual = PORTS[protocol]
    other: Protocol = "SMTP" if protocol == "IMAP" else "IMAP"
    for e in _causes(exc):
        text = str(e)
        if isinstance(e, ssl.SSLCertVerificationError):
            return (
                f"{where}: the server's certificate is not trusted ({e.verify_message}): "
                f"set {section}.host to the name its certificate was issued for, or renew it"
            )
        if isinstance(e, ssl.SSLError) and "WRONG_VERSION_NUMBER" in text:
            return (
                f'{where}: the server does not speak TLS on this port ({section}.tls = "tls"): '
                f"use its TLS port ({section}.port = {usual['tls']}), or {section}.tls = "
                f'"starttls" on this one'
            )
        if "STARTTLS" in text and "not support" in text:
            return (
                f"{where}: the server offers no STARTTLS on this port: on its TLS port "
                f'({section}.port = {usual["tls"]}) set {section}.tls = "tls"'
            )
        if isinstance(e, socket.gaierror):
            return f"{where}: host name {host!r} not found ({e.strerror}): check {section}.host"
        if isinstance(e, ConnectionRefusedError):
            return (
                f"{where}: connection refused, nothing listens there: check {section}.host, "
                f"{section}.port ({usual['tls']} for tls, {usual['starttls']} for starttls) and "
                "that the server runs"
            )
        if (isinstance(e, TimeoutError) or "Timed out" in text) and (
            port == usual["tls"] and tls != "tls"
        ):  # a TLS port waits for our handshake while we wait for its greeting
            return (
                f"{where}: no answer within {timeout:g} s: port {port} is the TLS port, set "
                f'{section}.tls = "tls" (or {section}.port = {usual["starttls"]} for starttls)'
            )
        if isinstance(e, TimeoutError) or "Timed out" in text:
            return (
                f"{where}: no answer within {timeout:g} s: check {section}.host and "
                f"{section}.port, and that no firewall drops pbem's connections"
            )
        greeting = _greeting_of_the_other(protocol, text)
        if greeting:
            return (
                f"{where}: this is an {other} server, not an {protocol} one (it greeted "
                f"{greeting!r}): check {section}.port ({usual['tls']} for tls, "
                f"{usual['starttls']} for starttls)"
            )
    return f"{where}: {type(exc).__name__}: {exc}"


def _greeting_of_the_other(protocol: Protocol, text: str) -> str:
    """The greeting the server sent, when it is the other protocol's: SMTP's ``220``, IMAP's
    ``* OK``; empty otherwise."""
    if protocol == "IMAP" and "unexpected response" in text and "220" in text:
        marker = "220"
    elif protocol == "SMTP" and "Malformed SMTP response" in text and "* OK" in text:
        marker = "* OK"
    else:
        return ""
    start = text.index(marker)
    return text[start:].split("\\r")[0].split("\r")[0].rstrip("'\")\n")[:60]
