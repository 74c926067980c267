"""The fixtures themselves: the full loop aiosmtplib -> aiosmtpd -> LMTP -> sdbox -> IMAP."""

from __future__ import annotations

import asyncio
import threading
from email.message import EmailMessage

import aiosmtplib
from imapclient import IMAPClient

from tests.support.daemon_process import mail, send
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


def test_a_burst_is_numbered_in_the_order_it_was_delivered(stack: MailStack) -> None:
    """The suite's sign-ups, orders and votes are sent in bursts and must be read in the order
    they were sent (the daemon reads in UID order). A Maildir Dovecot numbers the mails of a
    burst when a session syncs, and under load it numbered one out of order (1 burst in about
    45: the season test failed on it in CI); sdbox numbers each mail as it is saved."""
    watcher = IMAPClient("127.0.0.1", port=stack.dovecot.imap_port, ssl=False)
    watcher.login(MODERATOR, stack.dovecot.password(MODERATOR))
    watcher.select_folder("INBOX")
    done = threading.Event()

    def idle() -> None:  # a session syncing the folder meanwhile, as the daemon's does
        while not done.is_set():
            watcher.idle()
            watcher.idle_check(timeout=0.2)
            watcher.idle_done()

    thread = threading.Thread(target=idle)
    thread.start()
    try:
        for burst in range(3):
            send(stack, *(mail("alice@example.test", f"VOTE {burst}-{i:02d}") for i in range(12)))
    finally:
        done.set()
        thread.join()
        watcher.logout()
    bodies = [str(m.get_content()).strip() for m in stack.messages(MODERATOR)]
    assert bodies == [f"VOTE {b}-{i:02d}" for b in range(3) for i in range(12)]
