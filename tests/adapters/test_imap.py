"""IMAP adapter against a real Dovecot: fetch, size cap, MOVE and its fallback, IDLE, drops (F3)."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from pbem.adapters.imap import ImapDown, ImapMailbox, ImapSettings
from tests.support.mailstack import MODERATOR, Dovecot, MailStack


def _mail(i: int, body: str = "VOTE bob") -> bytes:
    return (
        f"From: alice@example.test\r\nTo: {MODERATOR}\r\nSubject: m{i}\r\n"
        f"Message-ID: <m{i}@example.test>\r\n\r\n{body}\r\n"
    ).encode()


def _box(stack: MailStack | Dovecot, **kw: object) -> ImapMailbox:
    dovecot = stack.dovecot if isinstance(stack, MailStack) else stack
    s = ImapSettings(
        host="127.0.0.1",
        port=dovecot.imap_port,
        user=MODERATOR,
        password=Dovecot.password(MODERATOR),
        tls="none",
        timeout=10,
        **kw,  # type: ignore[arg-type]
    )
    box = ImapMailbox(s)
    box.connect()
    return box


def test_fetch_peek_size_cap_and_move(stack: MailStack) -> None:
    for i in range(3):
        stack.inject(_mail(i), MODERATOR)
    stack.inject(_mail(9, "x" * 5000), MODERATOR)
    box = _box(stack, max_size=2000, processed="pbem/Processed")
    assert box.delimiter == "/"
    uids = box.pending_uids()
    assert len(uids) == 4
    got = box.fetch(uids)
    assert [f.raw is None for f in got] == [False, False, False, True]
    assert got[0].raw is not None and b"Subject: m0" in got[0].raw
    assert got[3].size > 5000 and got[0].internaldate.tzinfo is not None
    # PEEK: nothing marked \Seen
    flags = box.client.get_flags(uids) if box.client else {}
    assert all(b"\\Seen" not in f for f in flags.values())
    box.move(uids[:2], "pbem/Processed")
    box.has_move = False  # the COPY + \Deleted + UID EXPUNGE fallback
    box.move(uids[2:3], "pbem/Processed")
    box.move(uids[3:], "Quarantine")
    assert box.pending_uids() == []
    assert len(stack.messages(MODERATOR, "pbem/Processed")) == 3
    assert len(stack.messages(MODERATOR, "Quarantine")) == 1
    box.close()


def test_idle_wakes_on_new_mail(stack: MailStack) -> None:
    box = _box(stack)
    assert box.has_idle
    t = threading.Timer(0.5, stack.inject, (_mail(1), MODERATOR))
    t.start()
    start = time.monotonic()
    assert box.wait(20) is True
    assert time.monotonic() - start < 5
    assert len(box.pending_uids()) == 1
    t.join()
    box.close()


def test_polling_mode_and_interrupt(stack: MailStack) -> None:
    box = _box(stack, use_idle=False, poll_interval=30)
    assert not box.has_idle
    threading.Timer(0.3, box.interrupt.set).start()
    start = time.monotonic()
    box.wait(30)
    assert time.monotonic() - start < 3
    box.close()


def test_server_drop_mid_idle_raises_imapdown_then_reconnects(stack: MailStack) -> None:
    box = _box(stack)
    threading.Timer(0.5, stack.dovecot.kill_imap_children).start()
    with pytest.raises(ImapDown):
        box.wait(2)
    # the whole server restarts on the same ports
    stack.dovecot.stop()
    with pytest.raises(ImapDown):
        box.connect()
    stack.dovecot.start()
    stack.inject(_mail(2), MODERATOR)
    box.connect()
    assert len(box.pending_uids()) == 1
    box.close()


def test_mail_announced_before_idle_is_not_missed(stack: MailStack) -> None:
    """A mail whose EXISTS arrived during another command (here a NOOP) wakes the next wait at
    once instead of waiting for the IDLE renewal; a mail kept in INBOX does not (no busy loop)."""
    stack.inject(_mail(1), MODERATOR)
    box = _box(stack, idle_renew=8.0)
    assert box.has_idle
    box.pending_uids()  # mail 1 is known (e.g. kept for a retry)
    started = time.monotonic()
    assert box.wait(1.5) is False, "a known mail is not new mail"
    assert time.monotonic() - started >= 1.0
    stack.inject(_mail(2), MODERATOR)
    time.sleep(0.5)
    assert box.client is not None
    box.client.noop()  # the EXISTS of mail 2 arrives here, before IDLE starts
    started = time.monotonic()
    assert box.wait(8.0) is True
    assert time.monotonic() - started < 4.0
    box.close()


def test_mail_delivered_between_commands_wakes_the_next_wait() -> None:
    """A mail delivered while the connection is quiet is not in the next SEARCH (the server's
    view is synced at the command's end); the EXISTS that announces it then is the only news
    of it: the server holds the client told, and IDLE never announces it again (measured: 40
    s of IDLE without a word), so the wait must read it and wake at once, not sleep until the
    IDLE renewal (5 minutes by default). Dovecot's default idle check, as in production."""
    dovecot = Dovecot(users=(MODERATOR,), extra_conf="mailbox_idle_check_interval = 30 secs")
    dovecot.start()
    try:
        box = _box(dovecot)
        assert box.has_idle and box.pending_uids() == []
        assert dovecot.lmtp_deliver("alice@example.test", [MODERATOR], _mail(1)) == [250]
        # without the EXISTS read, IDLE sleeps the whole 20 s and the wait says "no mail"
        assert box.wait(20) is True
        assert len(box.pending_uids()) == 1
        box.close()
    finally:
        dovecot.destroy()


def test_move_of_a_uid_another_client_expunged_is_not_a_drop(
    stack: MailStack, caplog: pytest.LogCaptureFixture
) -> None:
    """Dovecot answers ``NO [EXPUNGEISSUED]`` to a UID MOVE (and COPY) naming a UID another
    session expunged before ours was told (F15): the rest is moved, the link kept."""
    from imapclient import IMAPClient

    for i in range(6):
        stack.inject(_mail(i), MODERATOR)
    box = _box(stack)
    uids = box.pending_uids()
    assert len(box.fetch(uids)) == 6
    with IMAPClient("127.0.0.1", port=stack.dovecot.imap_port, ssl=False, timeout=10) as other:
        other.login(MODERATOR, Dovecot.password(MODERATOR))
        other.select_folder("INBOX")
        other.delete_messages([uids[0]])
        other.expunge()
        box.move(uids[:3], "Processed")
        other.noop()
        other.delete_messages([uids[3]])
        other.expunge()
        box.has_move = False  # the COPY + \Deleted + UID EXPUNGE fallback, same answer
        box.move(uids[3:], "Processed")
    assert box.connected
    assert caplog.text.count("expunged by another client") == 2, caplog.text
    assert box.pending_uids() == []
    got = sorted(str(m["Subject"]) for m in stack.messages(MODERATOR, "Processed"))
    assert got == ["m1", "m2", "m4", "m5"]
    box.close()


def test_an_unsolicited_fetch_of_another_client_is_not_taken_for_a_size(stack: MailStack) -> None:
    """Another client's flag change reaches the daemon as ``* N FETCH (FLAGS ...)`` without a
    UID, which imapclient files under the sequence number N: when N is also the UID of a mail
    expunged meanwhile, that entry has no size. It is a mail gone, not a KeyError that kills the
    daemon (seen once in test_concurrent_client under load)."""
    stack.inject(_mail(1), MODERATOR)
    stack.inject(_mail(2), MODERATOR)
    box = _box(stack)
    uids = box.pending_uids()
    assert box.client is not None
    real_fetch = box.client.fetch

    def fetch_with_an_unsolicited_flags_update(ids: list[int], items: list[str]) -> object:
        got = real_fetch([u for u in ids if u != uids[0]], items)  # uids[0] expunged meanwhile
        got[uids[0]] = {b"SEQ": uids[0], b"FLAGS": (b"\\Seen",)}
        return got

    box.client.fetch = fetch_with_an_unsolicited_flags_update  # type: ignore[method-assign]
    assert [f.uid for f in box.fetch(uids)] == uids[1:]
    box.close()


def test_a_mailbox_it_cannot_reach_says_what_to_change() -> None:
    """``pbem serve`` logs each retry of its mailbox with the ImapDown's text: it says what is
    wrong and which key to change, as check-config does (pbem.adapters.reach), not
    ``ConnectionRefusedError: [Errno 111]`` (F3: the retries themselves are test_faults')."""
    with socket.socket() as free:  # a port nothing listens on once closed
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    box = ImapMailbox(ImapSettings("127.0.0.1", port, "u", "p", tls="none", timeout=5.0))
    with pytest.raises(ImapDown) as caught:
        box.connect()
    said = str(caught.value)
    assert said.startswith(f"IMAP 127.0.0.1:{port}: connection refused, nothing listens there")
    assert "check imap.host, imap.port" in said and "Errno" not in said
