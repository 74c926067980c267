"""The fixtures themselves: the full loop aiosmtplib -> aiosmtpd -> LMTP -> Maildir -> IMAP."""

from __future__ import annotations

import asyncio
from email.message import EmailMessage

import aiosmtplib

from tests.support.mailstack import LIST, MODERATOR, MailStack


def test_full_loop_and_list(stack: MailStack) -> None:
    msg = EmailMessage()
    msg["From"] = "alice@example.test"
    msg["To"] = MODERATOR
    msg["Subject"] = "hello"
    msg.set_content("VOTE bob")
    asyncio.run(aiosmtplib.send(msg, hostname="127.0.0.1", port=stack.smtp.port, timeout=10))
    del msg["To"]
    msg["To"] = LIST
    asyncio.run(aiosmtplib.send(msg, hostname="127.0.0.1", port=stack.smtp.port, timeout=10))
    got = stack.messages(MODERATOR)
    assert len(got) == 2
    assert got[1]["List-Id"] == "<game.lists.example.test>"
    assert len(stack.messages("bob@example.test")) == 1
