"""The mail servers' TLS context (pbem/adapters/tls.py): made once, and only where TLS is used
(loading the system's authorities costs ~30 ms of CPU per context; every daemon start made two
and every reconnection one more, TLS or not)."""

from __future__ import annotations

import asyncio
import ssl

import pytest

from pbem.adapters import tls
from pbem.adapters.imap import ImapMailbox, ImapSettings
from pbem.adapters.smtp import SmtpClient, SmtpSettings
from tests.support.mailstack import MODERATOR, Dovecot, MailStack


def test_one_context_per_verification_setting() -> None:
    assert tls.client_context(True) is tls.client_context(True)
    assert tls.client_context(True).verify_mode == ssl.CERT_REQUIRED
    lax = tls.client_context(False)
    assert lax.verify_mode == ssl.CERT_NONE and not lax.check_hostname


def test_plain_connections_make_no_tls_context(
    stack: MailStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused() -> ssl.SSLContext:
        raise AssertionError("a TLS context made for a connection without TLS")

    monkeypatch.setattr(ssl, "create_default_context", refused)
    tls.client_context.cache_clear()
    try:
        box = ImapMailbox(
            ImapSettings(
                host="127.0.0.1",
                port=stack.dovecot.imap_port,
                user=MODERATOR,
                password=Dovecot.password(MODERATOR),
                tls="none",
                timeout=10,
            )
        )
        box.connect()
        assert box.connected
        box.close()
        asyncio.run(
            SmtpClient(SmtpSettings("127.0.0.1", stack.smtp.port, tls="none")).login_check()
        )
    finally:
        tls.client_context.cache_clear()
